# A prompt that takes time to draw: a slow command substitution in PS1 and
# a slow PROMPT_COMMAND, as a git status on a big repository would.
__slow() { sleep 0.2; printf 'git:main'; }
PROMPT_COMMAND='sleep 0.2'
PS1='$(__slow) \W\$ '
