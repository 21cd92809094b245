# What `eval "$(pyenv init -)"` and `eval "$(pyenv virtualenv-init -)"`
# put into a shell (written out here: no pyenv on the test machine).
export PYENV_SHELL=bash
export PATH="$HOME/.pyenv/shims:${PATH}"
pyenv() {
  local command=${1:-}
  [ "$#" -gt 0 ] && shift
  case "$command" in
  activate|deactivate|rehash|shell) eval "$(echo "pyenv-$command $*")" ;;
  *) command echo "pyenv $command $*" ;;
  esac
}
export PYENV_VIRTUALENV_INIT=1;
_pyenv_virtualenv_hook() {
  local ret=$?
  if [ -n "${VIRTUAL_ENV-}" ]; then
    : # eval "$(pyenv sh-activate --quiet || pyenv sh-deactivate --quiet || true)" || true
  else
    : # eval "$(pyenv sh-activate --quiet || true)" || true
  fi
  export PYENV_HOOK_RAN=$(( ${PYENV_HOOK_RAN:-0} + 1 ))
  return $ret
};
if ! [[ "${PROMPT_COMMAND-}" =~ _pyenv_virtualenv_hook ]]; then
  PROMPT_COMMAND="_pyenv_virtualenv_hook;${PROMPT_COMMAND-}"
fi
PS1='(pyenv) \w\$ '
