# tmuxmcp shell integration for zsh: .zlogin (see .zshenv).
__tmuxmcp_user
if [[ -r ${ZDOTDIR:-$HOME}/.zlogin ]]; then source "${ZDOTDIR:-$HOME}/.zlogin"; fi
__tmuxmcp_done
