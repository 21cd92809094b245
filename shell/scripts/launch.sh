# tmuxmcp: start a pane's shell with tmuxmcp's shell integration, as a
# login shell (as tmux starts one). Run as: sh launch.sh [SHELL]; the shell
# defaults to $SHELL, which tmux sets to its default-shell. The shell reads
# the user's own startup files; the integration adds invisible OSC 133
# marks tagged with the shell's secret tag, which tmuxmcp hands over in
# $TMUXMCP_SHELL_TAG and this script passes on descriptor 9 (see below).
d=${0%/*}
if [ "${1-}" = --sandbox ]; then
  # A sandboxed pane's first stage, outside its sandbox (sh launch --sandbox
  # BWRAP-ARGV...): what needs the tmux server is done here, where it can be
  # reached, before exec'ing into the sandbox, which cannot reach it.
  shift
  if [ -n "${TMUXMCP_START_AFTER-}" ] && [ -n "${TMUX-}" ] && command -v timeout >/dev/null 2>&1; then
    timeout 10 tmux wait-for "$TMUXMCP_START_AFTER" 2>/dev/null
  fi
  unset TMUXMCP_START_AFTER
  if [ -n "${TMUX-}" ] && [ -z "${TMUXMCP_DEFAULT_COMMAND+1}" ]; then
    TMUXMCP_DEFAULT_COMMAND=$(tmux show-options -gv default-command 2>/dev/null)
    export TMUXMCP_DEFAULT_COMMAND
  fi
  exec "$@"
fi
s=${1:-${SHELL:-/bin/sh}}
# The tag must not stay in any environment: /proc/PID/environ keeps a
# process's first environment for every process of the user to read.
t=${TMUXMCP_SHELL_TAG-}
unset TMUXMCP_SHELL_TAG
if [ -n "${TMUXMCP_START_AFTER-}" ] && [ -n "${TMUX-}" ]; then
  # A session's first pane: tmuxmcp starts recording it only once its
  # control client is attached, so the shell waits for that (10 s at most)
  # and tmuxmcp sees its first prompt.
  if command -v timeout >/dev/null 2>&1; then
    timeout 10 tmux wait-for "$TMUXMCP_START_AFTER" 2>/dev/null
  fi
fi
unset TMUXMCP_START_AFTER
if [ -z "${1-}" ]; then
  # tmux runs default-command instead of a shell when one is configured
  # (in a sandbox, where tmux cannot be asked, tmuxmcp hands it over).
  if [ -n "${TMUXMCP_DEFAULT_COMMAND+1}" ]; then
    c=$TMUXMCP_DEFAULT_COMMAND
  elif [ -n "${TMUX-}" ]; then
    c=$(tmux show-options -gv default-command 2>/dev/null)
  else
    c=
  fi
  unset TMUXMCP_DEFAULT_COMMAND
  if [ -n "$c" ]; then exec "$s" -c "$c"; fi
fi
unset TMUXMCP_DEFAULT_COMMAND
# Shells the user's files start in the pane's place (exec zsh in .bashrc)
# find the integration through these too.
export TMUXMCP_USER_ZDOTDIR="${ZDOTDIR-}" TMUXMCP_USER_ZDOTDIR_SET="${ZDOTDIR+1}" ZDOTDIR="$d/zsh"
export TMUXMCP_USER_XDG_DATA_DIRS="${XDG_DATA_DIRS-}" TMUXMCP_USER_XDG_DATA_DIRS_SET="${XDG_DATA_DIRS+1}"
export XDG_DATA_DIRS="$d/data:${XDG_DATA_DIRS:-/usr/local/share:/usr/share}"
# An integrated shell reads its tag from descriptor 9 first thing (a pipe
# holding one line, drained and closed at once).
if [ -n "$t" ]; then
  export TMUXMCP_SHELL_TAG_FD=9
  exec 9<<EOF
$t
EOF
fi
unset t
case ${s##*/} in
  bash|bash[0-9]*)
    export TMUXMCP_USER_ENV="${ENV-}" TMUXMCP_USER_ENV_SET="${ENV+1}" ENV="$d/bash/tmuxmcp.bash"
    # POSIX mode (the one way to have bash read our file first) would make
    # ~/.sh_history the history file and leave inherit_errexit on: the
    # integration undoes both, and needs to know what the user's
    # environment said.
    if [ -z "${HISTFILE+1}" ] && [ -n "${HOME-}" ]; then
      export HISTFILE="$HOME/.bash_history" TMUXMCP_UNEXPORT_HISTFILE=1
    fi
    case :${BASHOPTS-}: in *:inherit_errexit:*) export TMUXMCP_USER_INHERIT_ERREXIT=1 ;; esac
    exec "$s" --login --posix -i ;;
  zsh|zsh[0-9]*) exec "$s" -l -i ;;
  fish) exec "$s" -l -i ;;
esac
# Other shells run commands through tmuxmcp's wrapper: give them their
# user's environment back untouched.
if [ -n "$TMUXMCP_USER_ZDOTDIR_SET" ]; then ZDOTDIR=$TMUXMCP_USER_ZDOTDIR; else unset ZDOTDIR; fi
if [ -n "$TMUXMCP_USER_XDG_DATA_DIRS_SET" ]; then XDG_DATA_DIRS=$TMUXMCP_USER_XDG_DATA_DIRS; else unset XDG_DATA_DIRS; fi
exec 9<&-
unset TMUXMCP_SHELL_TAG_FD TMUXMCP_USER_ZDOTDIR TMUXMCP_USER_ZDOTDIR_SET TMUXMCP_USER_XDG_DATA_DIRS TMUXMCP_USER_XDG_DATA_DIRS_SET
case ${s##*/} in
  sh|dash|ksh|ksh93|mksh|ash|yash|posh|lksh|oksh) exec "$s" -l ;;
  # tmuxmcp runs no commands in these (it says so before starting one),
  # but a pane started with one is a login shell, as tmux starts it.
  csh|tcsh) exec "$s" -l ;;
esac
exec "$s"
