# Report background jobs the moment they end (set -b), not at the next
# prompt: bash prints the notice under the prompt and leaves the cursor on
# an empty row without drawing the prompt again.
set -b
PS1="nb\$ "
