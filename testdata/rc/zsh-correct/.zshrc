# Spelling correction of commands and arguments.
setopt correct correct_all
SPROMPT='zsh: correct %F{red}%R%f to %F{green}%r%f [nyae]? '
PS1='%n-correct %1~ %# '
