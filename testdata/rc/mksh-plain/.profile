PS1='mksh$ '
