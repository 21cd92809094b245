# List the directory on every cd.
chpwd() { ls -A }
PS1='chpwd %1~ %# '
