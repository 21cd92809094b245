# dash with set -e in its ENV file: any failing command would end it.
export ENV=$HOME/.shrc
PS1='dash-e$ '
