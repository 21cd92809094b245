# vi keys, with the mode shown in the prompt and redrawn on every switch.
bindkey -v
KEYTIMEOUT=1
vi_mode='INS'
zle-keymap-select() {
  if [[ $KEYMAP == vicmd ]]; then vi_mode='NRM'; else vi_mode='INS'; fi
  zle reset-prompt
}
zle-line-init() { vi_mode='INS'; zle reset-prompt; }
zle -N zle-keymap-select
zle -N zle-line-init
setopt prompt_subst
PS1='[${vi_mode}] %1~ %# '
