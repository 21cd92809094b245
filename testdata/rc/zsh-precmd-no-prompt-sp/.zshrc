# No "%" marker after output without a newline (old advice), and a blank
# line before every prompt.
unsetopt prompt_cr prompt_sp
precmd() { print "" }
PS1='%1~ %# '
