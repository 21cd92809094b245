# Dotfiles shared with a Mac: there the highlighter is "bat"; on Debian
# and Ubuntu its binary is "batcat", so this alias names a missing command.
alias cat='bat --paging=never'
PS1='bat \W\$ '
