# "I want a plain POSIX shell": bash hands the pane to dash.
export ENV=$HOME/.shrc
exec /bin/dash
