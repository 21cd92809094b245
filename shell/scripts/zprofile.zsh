# tmuxmcp shell integration for zsh: .zprofile (see .zshenv).
__tmuxmcp_user
if [[ -r ${ZDOTDIR:-$HOME}/.zprofile ]]; then
  if [[ -n ${TMUXMCP_SHELL_TRACE-} ]]; then
    # tmuxmcp doctor: trace the user's file (to the pane) to name the line
    # at fault.
    setopt xtrace; PS4='+%x:%I: '
    source "${ZDOTDIR:-$HOME}/.zprofile"
    unsetopt xtrace
  else
    source "${ZDOTDIR:-$HOME}/.zprofile"
  fi
fi
__tmuxmcp_ours
