# dash as the login shell: PS1 here, the interactive settings in $ENV.
export ENV=$HOME/.shrc
PS1='dash$ '
