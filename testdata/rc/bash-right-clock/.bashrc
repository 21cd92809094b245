# A right-aligned clock in bash: save the cursor, print at the right edge,
# restore the cursor (the tput sc / tput rc trick).
__rp() { printf '%*s' "$COLUMNS" "$(date +%H:%M:%S)"; }
PS1='\[\e7$(__rp)\e8\]\u:\W\$ '
