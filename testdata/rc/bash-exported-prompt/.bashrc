# An old .bashrc that exports its prompt settings (so every shell started
# from this one inherits them), with the history-sharing snippet everyone
# copies.
shopt -s histappend
HISTSIZE=100000
HISTFILESIZE=200000
HISTCONTROL=ignoredups:erasedups
export PROMPT_COMMAND="history -a; history -c; history -r; $PROMPT_COMMAND"
export PS1='[\u@hist \W]\$ '
