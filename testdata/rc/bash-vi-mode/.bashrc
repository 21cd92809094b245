set -o vi
PS1=' \W \$ '
