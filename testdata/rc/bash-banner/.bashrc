# A greeting at every start: a banner, a fortune and a status line.
printf '\e[1;33m%s\e[0m\n' '  _____ _____ ____  __  __ '
printf '\e[1;33m%s\e[0m\n' ' |_   _| ____|  _ \|  \/  |'
printf '\e[1;33m%s\e[0m\n' '   | | |  _| | |_) | |\/| |'
echo "Welcome back, $USER. Last login: somewhere."
echo "There are 3 updates. Today's fortune: a prompt is not a command."
PS1='$ '
