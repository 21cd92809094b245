# pyenv's recommended login setup, then the interactive rc.
export PYENV_ROOT="$HOME/.pyenv"
[[ -d $PYENV_ROOT/bin ]] && export PATH="$PYENV_ROOT/bin:$PATH"
[[ -f ~/.bashrc ]] && . ~/.bashrc
