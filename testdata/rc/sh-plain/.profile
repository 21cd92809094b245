PS1='sh$ '
