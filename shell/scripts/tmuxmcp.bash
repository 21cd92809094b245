# tmuxmcp shell integration for bash.
#
# tmuxmcp starts bash as `bash --login --posix -i` with ENV naming this
# file. In POSIX mode bash reads nothing but $ENV, so this file first reads
# the user's own startup files exactly as bash would have (a login shell:
# /etc/profile, then the first of ~/.bash_profile, ~/.bash_login and
# ~/.profile; otherwise /etc/bash.bashrc and ~/.bashrc), at top level, then
# adds invisible OSC 133 marks tagged with this shell's secret tag, which
# the launcher hands over on descriptor $TMUXMCP_SHELL_TAG_FD (never in the
# environment, where any process could read it) and which lives only in
# this shell's own variables:
#   D;<status>  a command ended       the first PROMPT_COMMAND entry (the last,
#                                     when the user's files took the first out)
#   A           the prompt starts     the same entry
#   B           the prompt is drawn   the end of PS1 (the last entry keeps it there)
#   C           a command starts      the end of PS0 (what the user's PS0 prints is
#                                     not the command's output)
# The user's PROMPT_COMMAND entries run between ours as bash would run them,
# whatever their form (a string ending in ';' or '&', an array); nothing of
# theirs is pasted into a string of ours. Every line here works under the
# user's set -u, set -e and pipefail.
if [ -z "${__tmuxmcp_rearm-}" ]; then
set +o posix
# What POSIX mode left behind once it is off: inherit_errexit (unless the
# user's environment asked for it, in BASHOPTS), and HISTFILE, which
# defaults to ~/.sh_history there: the launcher exported the user's
# ~/.bash_history instead (bash reads it after this file, as it would
# have), and it is the user's plain variable again, as bash makes it.
if [ -z "${TMUXMCP_USER_INHERIT_ERREXIT-}" ]; then shopt -u inherit_errexit 2>/dev/null; fi
if [ -n "${TMUXMCP_UNEXPORT_HISTFILE-}" ]; then export -n HISTFILE; fi
unset TMUXMCP_USER_INHERIT_ERREXIT TMUXMCP_UNEXPORT_HISTFILE
if [ -n "${TMUXMCP_USER_ENV_SET-}" ]; then ENV=${TMUXMCP_USER_ENV-}; else unset ENV; fi
unset TMUXMCP_USER_ENV TMUXMCP_USER_ENV_SET
__tmuxmcp_tag=
if [ "${TMUXMCP_SHELL_TAG_FD-}" = 9 ]; then
  { IFS= read -r -t 2 -u 9 __tmuxmcp_tag; exec 9<&-; } 2>/dev/null || __tmuxmcp_tag=
  # A shell the user's files start in this one's place (exec zsh) reads it
  # there again; it is drained and closed once they have run.
  if [ -n "$__tmuxmcp_tag" ]; then exec 9<<<"$__tmuxmcp_tag"; fi
fi
if [ -n "${TMUXMCP_SHELL_TRACE-}" ]; then
  # tmuxmcp doctor: trace the user's files to name the line at fault.
  exec {__tmuxmcp_tfd}>>"$TMUXMCP_SHELL_TRACE"
  BASH_XTRACEFD=$__tmuxmcp_tfd
  __tmuxmcp_ps4=${PS4-}
  PS4='+${BASH_SOURCE[0]-}:${LINENO-}: '
  set -x
fi
if shopt -q login_shell; then
  if [ -r /etc/profile ]; then . /etc/profile; fi
  if [ -r ~/.bash_profile ]; then . ~/.bash_profile
  elif [ -r ~/.bash_login ]; then . ~/.bash_login
  elif [ -r ~/.profile ]; then . ~/.profile
  fi
else
  if [ -r /etc/bash.bashrc ]; then . /etc/bash.bashrc; fi
  if [ -r ~/.bashrc ]; then . ~/.bashrc; fi
fi
if [ -n "${TMUXMCP_SHELL_TRACE-}" ]; then
  { set +x; } 2>/dev/null
  unset BASH_XTRACEFD
  PS4=$__tmuxmcp_ps4
  exec {__tmuxmcp_tfd}>&-
  unset __tmuxmcp_ps4 __tmuxmcp_tfd TMUXMCP_SHELL_TRACE
fi
# The user's files did not exec another shell: give back what the launcher
# borrowed for that case.
if [ -n "${TMUXMCP_USER_ZDOTDIR_SET-}" ]; then export ZDOTDIR=${TMUXMCP_USER_ZDOTDIR-}; else unset ZDOTDIR; fi
if [ -n "${TMUXMCP_USER_XDG_DATA_DIRS_SET-}" ]; then export XDG_DATA_DIRS=${TMUXMCP_USER_XDG_DATA_DIRS-}; else unset XDG_DATA_DIRS; fi
if [ -n "${TMUXMCP_SHELL_TAG_FD-}" ]; then { \builtin read -r -t 1 -u 9 _; exec 9<&-; } 2>/dev/null || :; fi
unset TMUXMCP_SHELL_TAG TMUXMCP_SHELL_TAG_FD TMUXMCP_USER_ZDOTDIR TMUXMCP_USER_ZDOTDIR_SET TMUXMCP_USER_XDG_DATA_DIRS TMUXMCP_USER_XDG_DATA_DIRS_SET

fi

# bash before 4.4 has no PS0 (so no start mark) and no ${var@a}: without
# marks, commands run from job scripts, which bring their own.
if [ "${BASH_VERSINFO[0]}" -lt 4 ] || { [ "${BASH_VERSINFO[0]}" -eq 4 ] && [ "${BASH_VERSINFO[1]}" -lt 4 ]; }; then
  __tmuxmcp_tag=
fi
# A PS1, PS0 or PROMPT_COMMAND the user made readonly cannot carry our
# marks: without them, commands run from job scripts, which bring their own.
if [ -n "$__tmuxmcp_tag" ]; then
  case ${PS1+${PS1@a}}${PS0+${PS0@a}}${PROMPT_COMMAND+${PROMPT_COMMAND@a}} in *r*) __tmuxmcp_tag= ;; esac
fi
if [ -n "$__tmuxmcp_tag" ]; then
  # The marks live in variables of this shell that PS1, PS0 and
  # PROMPT_COMMAND only name: when the user exports those (old rc files
  # do), a shell started inside this one inherits names that expand to
  # nothing, never our marks or a call of a function it lacks.
  #   __tmuxmcp_b  the end-of-prompt mark, in its form for a shell under
  #                set -e when it is (tmuxmcp then runs commands so that a
  #                failing one does not end the shell)
  #   __tmuxmcp_c  the command-start mark
  __tmuxmcp_bm=$'\e]133;B;tmuxmcp=s'$__tmuxmcp_tag$'\a'
  __tmuxmcp_bme=$'\e]133;B;e;tmuxmcp=s'$__tmuxmcp_tag$'\a'
  __tmuxmcp_b=$__tmuxmcp_bm
  __tmuxmcp_c=$'\e]133;C;tmuxmcp=s'$__tmuxmcp_tag$'\a'
  __tmuxmcp_ps1='\[${__tmuxmcp_b-}\]'
  __tmuxmcp_ps0='${__tmuxmcp_c-}'
  # Our PROMPT_COMMAND entries: xtrace (set -x) does not trace them. They
  # return the command's status, so what follows them sees it as $?; as
  # the first part of an && list, that fires no ERR trap (a user's ERR
  # trap fires once for a failing command, not again for our hooks) and
  # never ends a shell under set -e.
  __tmuxmcp_first=__tmuxmcp_precmd
  __tmuxmcp_last=__tmuxmcp_prompt_end
  __tmuxmcp_pc1='{ ${__tmuxmcp_first-}; } 2>/dev/null && :'
  __tmuxmcp_pc2='{ ${__tmuxmcp_last-}; } 2>/dev/null && :'
  # PROMPT_COMMAND arrays run every entry from bash 5.1 on, and each entry
  # sees the command's own $? (so does PS1).
  __tmuxmcp_arrays=
  if [ "${BASH_VERSINFO[0]}" -gt 5 ] || { [ "${BASH_VERSINFO[0]}" -eq 5 ] && [ "${BASH_VERSINFO[1]}" -ge 1 ]; }; then
    __tmuxmcp_arrays=1
  fi
  # __tmuxmcp_da: our first entry printed this prompt's end and prompt
  # marks (so the last entry does not).
  __tmuxmcp_da=

  # __tmuxmcp_placed reports whether our first entry starts an entry of
  # PROMPT_COMMAND: only there does it see the command's own $?.
  __tmuxmcp_placed() {
    [ -z "$__tmuxmcp_arrays" ] && return 0
    local e
    for e in "${PROMPT_COMMAND[@]}"; do
      case $e in "$__tmuxmcp_pc1"*) return 0 ;; esac
    done
    return 1
  }

  __tmuxmcp_precmd() {
    local s=$?
    if __tmuxmcp_placed || [ "${PROMPT_COMMAND[*]: -1}" != "$__tmuxmcp_pc2" ]; then
      \builtin printf '\033]133;D;%s;tmuxmcp=s%s\007\033]133;A;tmuxmcp=s%s\007' "$s" "$__tmuxmcp_tag" "$__tmuxmcp_tag"
      __tmuxmcp_da=1
    fi
    __tmuxmcp_job_traps
    # Our last entry was taken out: ours go back now, for the next prompt.
    if [ -n "$__tmuxmcp_arrays" ] && ! __tmuxmcp_hooked; then __tmuxmcp_hooks; __tmuxmcp_marks; fi
    return "$s"
  }

  # __tmuxmcp_job_traps gives back the ERR and DEBUG traps a job script
  # set aside (so its own end did not fire them): at the prompt after it.
  __tmuxmcp_job_traps() {
    if [ -n "${__tmuxmcp_job_traps+x}" ]; then
      \builtin eval "$__tmuxmcp_job_traps"
      unset __tmuxmcp_job_traps
    fi
  }

  # __tmuxmcp_hooks puts our entries first and last in PROMPT_COMMAND and
  # keeps everything else as the user (or their tools, later) set it.
  #
  # From bash 5.1 PROMPT_COMMAND is an array: element 0 is our first entry,
  # a newline, and the user's own PROMPT_COMMAND (their string, or the first
  # entry of their array); their other entries follow, and our last entry
  # is an element of its own, last. So $PROMPT_COMMAND, which names element
  # 0, still holds all of a user's string, and tools that edit it as a
  # string (bash-preexec, pyenv, an rc's PROMPT_COMMAND="x;$PROMPT_COMMAND")
  # see and keep what they always did; whatever the user's text ends with
  # (a ';', a '&', a comment), it runs as it did. A plain assignment
  # (PROMPT_COMMAND='history -a', as Debian's rc files and the history-sync
  # snippets do, when ~/.bashrc is sourced again) replaces element 0 only:
  # our last entry survives, prints the marks our first did not (it sees
  # the command's $? too), and puts ours back.
  #
  # Before 5.1 PROMPT_COMMAND is one string: ours are its first and last
  # lines; an assignment replaces them both (tmuxmcp then sees a shell
  # without marks, and re-arms it from its next job script).
  __tmuxmcp_hooks() {
    if [ -n "${PROMPT_COMMAND+x}" ]; then
      case ${PROMPT_COMMAND@a} in *r*) return 0 ;; esac
    fi
    if [ -n "$__tmuxmcp_arrays" ]; then
      local e
      local -a keep=()
      for e in "${PROMPT_COMMAND[@]}"; do
        e=${e//"$__tmuxmcp_pc1"$'\n'/}
        e=${e//"$__tmuxmcp_pc1"/}
        e=${e//$'\n'"$__tmuxmcp_pc2"/}
        e=${e//"$__tmuxmcp_pc2"/}
        if [ -n "$e" ]; then keep+=("$e"); fi
      done
      if [ "${#keep[@]}" -eq 0 ]; then
        PROMPT_COMMAND=("$__tmuxmcp_pc1" "$__tmuxmcp_pc2")
      else
        PROMPT_COMMAND=("$__tmuxmcp_pc1"$'\n'"${keep[0]}" "${keep[@]:1}" "$__tmuxmcp_pc2")
      fi
    else
      local p=${PROMPT_COMMAND-}
      p=${p//"$__tmuxmcp_pc1"$'\n'/}
      p=${p//$'\n'"$__tmuxmcp_pc2"/}
      PROMPT_COMMAND=$__tmuxmcp_pc1$'\n'$p$'\n'$__tmuxmcp_pc2
    fi
    return 0
  }

  # __tmuxmcp_hooked reports whether ours are still first and last.
  __tmuxmcp_hooked() {
    if [ -n "$__tmuxmcp_arrays" ]; then
      case ${PROMPT_COMMAND[0]-} in "$__tmuxmcp_pc1" | "$__tmuxmcp_pc1"$'\n'*) ;; *) return 1 ;; esac
      [ "${PROMPT_COMMAND[*]: -1}" = "$__tmuxmcp_pc2" ]
      return
    fi
    case ${PROMPT_COMMAND-} in "$__tmuxmcp_pc1"$'\n'*$'\n'"$__tmuxmcp_pc2") return 0 ;; esac
    return 1
  }

  # __tmuxmcp_marks puts the end-of-prompt mark at the end of PS1 and the
  # command-start mark at the end of PS0, whatever the user's files or
  # hooks set them to since.
  __tmuxmcp_marks() {
    local ps1=$__tmuxmcp_ps1 ps0=$__tmuxmcp_ps0
    __tmuxmcp_b=$__tmuxmcp_bm
    case $- in *e*) __tmuxmcp_b=$__tmuxmcp_bme ;; esac
    if ! shopt -q promptvars; then
      # The prompts are not expanded: the marks go in as they are.
      ps1="\\[$__tmuxmcp_b\\]" ps0=$__tmuxmcp_c
    fi
    case ${PS1-} in
    *"$ps1") ;;
    *) PS1=${PS1-}
      PS1=${PS1//"$__tmuxmcp_ps1"/}
      PS1=${PS1//"\\[$__tmuxmcp_bm\\]"/}
      PS1=${PS1//"\\[$__tmuxmcp_bme\\]"/}$ps1 ;;
    esac
    case ${PS0-} in
    *"$ps0") ;;
    *) PS0=${PS0-}
      PS0=${PS0//"$__tmuxmcp_ps0"/}
      PS0=${PS0//"$__tmuxmcp_c"/}$ps0 ;;
    esac
    return 0
  }

  __tmuxmcp_prompt_end() {
    local s=$?
    if [ -z "$__tmuxmcp_da" ] && [ -n "$__tmuxmcp_arrays" ]; then
      # Our first entry did not run (the user's files replaced it): the
      # marks come from here, with the command's status.
      \builtin printf '\033]133;D;%s;tmuxmcp=s%s\007\033]133;A;tmuxmcp=s%s\007' "$s" "$__tmuxmcp_tag" "$__tmuxmcp_tag"
      __tmuxmcp_job_traps
    fi
    __tmuxmcp_da=
    __tmuxmcp_hooked || __tmuxmcp_hooks
    # Last, so a PROMPT_COMMAND that rebuilds PS1 keeps the mark at its end.
    __tmuxmcp_marks
    return "$s"
  }

  __tmuxmcp_hooks
  __tmuxmcp_marks
  # The lines that run tmuxmcp's job scripts stay out of history.
  case :${HISTIGNORE-}: in
  *": . '*.run':"*) ;;
  *) HISTIGNORE="${HISTIGNORE:+$HISTIGNORE:} . '*.run'" ;;
  esac
fi
unset __tmuxmcp_rearm
