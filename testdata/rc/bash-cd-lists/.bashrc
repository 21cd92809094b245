# List the directory after every cd (a very common function).
cd() { builtin cd "$@" && ls -A; }
PS1='cdls \W\$ '
