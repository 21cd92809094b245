export FROM_ZSHRC=yes
precmd() { print -n '' }
PS1='zd %1~ %# '
