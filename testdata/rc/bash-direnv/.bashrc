eval "$(direnv hook bash)"
PS1='direnv:\W\$ '
