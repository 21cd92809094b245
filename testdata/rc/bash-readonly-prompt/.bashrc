PS1='[\u@\h \W]\$ '
readonly PS1
