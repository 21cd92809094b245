# A slow start: a network-ish check and a heavy init, 2 s before the prompt.
sleep 1
export SLOW_RC_DONE=yes
sleep 1
PS1='slow\$ '
