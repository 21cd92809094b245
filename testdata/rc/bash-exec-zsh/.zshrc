PS1='zsh-after-bash %# '
setopt interactive_comments
