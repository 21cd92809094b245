# tmuxmcp shell integration for zsh: .zshenv. tmuxmcp starts zsh with
# ZDOTDIR pointing here; each of our startup files reads the user's file of
# the same name from the user's own ZDOTDIR (or HOME), and the last one read
# gives the user's ZDOTDIR back. Our .zshrc adds the marks after the user's.
__tmuxmcp_zdir=$ZDOTDIR
# The shell's secret tag comes on descriptor 9 from the launcher (never in
# the environment, where any process could read it): read first, before
# any file of the user's, and closed. It lives only in __tmuxmcp_tag.
typeset -g __tmuxmcp_tag=
if [[ ${TMUXMCP_SHELL_TAG_FD-} == 9 ]]; then
  { IFS= read -r -t 2 -u 9 __tmuxmcp_tag; exec 9<&-; } 2>/dev/null || __tmuxmcp_tag=
fi
__tmuxmcp_user() {
  if [[ -n ${TMUXMCP_USER_ZDOTDIR_SET-} ]]; then ZDOTDIR=${TMUXMCP_USER_ZDOTDIR-}; else unset ZDOTDIR; fi
}
__tmuxmcp_ours() {
  # remember where the user's files are, as their last file left it
  if [[ -n ${ZDOTDIR+x} ]]; then TMUXMCP_USER_ZDOTDIR=$ZDOTDIR TMUXMCP_USER_ZDOTDIR_SET=1; else TMUXMCP_USER_ZDOTDIR= TMUXMCP_USER_ZDOTDIR_SET=; fi
  ZDOTDIR=$__tmuxmcp_zdir
}
__tmuxmcp_done() {
  __tmuxmcp_user
  if [[ -n ${TMUXMCP_USER_XDG_DATA_DIRS_SET-} ]]; then export XDG_DATA_DIRS=${TMUXMCP_USER_XDG_DATA_DIRS-}; else unset XDG_DATA_DIRS; fi
  unset TMUXMCP_SHELL_TAG TMUXMCP_SHELL_TAG_FD TMUXMCP_USER_ZDOTDIR TMUXMCP_USER_ZDOTDIR_SET TMUXMCP_USER_XDG_DATA_DIRS TMUXMCP_USER_XDG_DATA_DIRS_SET
  unset __tmuxmcp_zdir
  unfunction __tmuxmcp_user __tmuxmcp_ours __tmuxmcp_done 2>/dev/null
}
__tmuxmcp_user
if [[ -r ${ZDOTDIR:-$HOME}/.zshenv ]]; then
  if [[ -n ${TMUXMCP_SHELL_TRACE-} ]]; then
    # tmuxmcp doctor: trace the user's file (to the pane) to name the line
    # at fault.
    setopt xtrace; PS4='+%x:%I: '
    source "${ZDOTDIR:-$HOME}/.zshenv"
    unsetopt xtrace
  else
    source "${ZDOTDIR:-$HOME}/.zshenv"
  fi
fi
if [[ -o interactive && -n ${__tmuxmcp_tag-} ]]; then
  __tmuxmcp_ours
else
  unset __tmuxmcp_tag
  __tmuxmcp_done
fi
