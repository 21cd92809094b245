PS1='zl %# '
