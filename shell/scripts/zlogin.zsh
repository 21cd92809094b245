# tmuxmcp shell integration for zsh: .zlogin (see .zshenv).
__tmuxmcp_user
if [[ -r ${ZDOTDIR:-$HOME}/.zlogin ]]; then
  if [[ -n ${TMUXMCP_SHELL_TRACE-} ]]; then
    # tmuxmcp doctor: trace the user's file (to the pane) to name the line
    # at fault.
    setopt xtrace; PS4='+%x:%I: '
    source "${ZDOTDIR:-$HOME}/.zlogin"
    unsetopt xtrace
  else
    source "${ZDOTDIR:-$HOME}/.zlogin"
  fi
fi
# A .zlogin that resets the hook arrays: ours go back in.
if (( $+functions[__tmuxmcp_hooks] )); then __tmuxmcp_hooks; fi
__tmuxmcp_done
unset TMUXMCP_SHELL_TRACE
