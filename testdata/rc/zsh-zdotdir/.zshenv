# Everything else lives under ~/.config/zsh.
export ZDOTDIR=$HOME/.config/zsh
