# tmuxmcp shell integration for zsh: .zprofile (see .zshenv).
__tmuxmcp_user
if [[ -r ${ZDOTDIR:-$HOME}/.zprofile ]]; then source "${ZDOTDIR:-$HOME}/.zprofile"; fi
__tmuxmcp_ours
