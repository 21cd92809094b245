# "My login shell is bash, but I live in zsh."
export EDITOR=vi
if [ -x /usr/bin/zsh ] && [ -z "${NO_ZSH-}" ]; then
  exec /usr/bin/zsh
fi
PS1='bash-fallback\$ '
