# tmuxmcp shell integration for zsh: .zshrc. After the user's .zshrc it adds
# invisible OSC 133 marks tagged with this shell's tag:
#   D;<status>  a command ended      PROMPT_EOL_MARK, which zsh prints before
#                                    precmd (so its PROMPT_SP padding stays out
#                                    of the command's output), or our first
#                                    precmd hook when PROMPT_SP is off
#   A           the prompt starts    our first precmd hook
#   B           the prompt is drawn  the end of PS1 (our last precmd hook)
#   C           a command starts     our last preexec hook
# The user's hooks, themes and options are left as they are.
# A job script sources this file again (__tmuxmcp_rearm, the tag given)
# when a command removed our hooks: then only the hooks are set up.
if [[ -z ${__tmuxmcp_rearm-} ]]; then
__tmuxmcp_user
if [[ -r ${ZDOTDIR:-$HOME}/.zshrc ]]; then
  if [[ -n ${TMUXMCP_SHELL_TRACE-} ]]; then
    # tmuxmcp doctor: trace the user's file (to the pane) to name the line
    # at fault.
    setopt xtrace; PS4='+%x:%I: '
    source "${ZDOTDIR:-$HOME}/.zshrc"
    unsetopt xtrace
  else
    source "${ZDOTDIR:-$HOME}/.zshrc"
  fi
fi
fi
if [[ -n ${__tmuxmcp_tag-} ]]; then
  typeset -g __tmuxmcp_b=$'%{\e]133;B;tmuxmcp=s'$__tmuxmcp_tag$'\a%}'
  typeset -g __tmuxmcp_be=$'%{\e]133;B;e;tmuxmcp=s'$__tmuxmcp_tag$'\a%}'
  # With spelling correction on, zsh may stop a typed command line to ask
  # about a word: such a shell gets its commands from job scripts (w).
  typeset -g __tmuxmcp_bw=$'%{\e]133;B;w;tmuxmcp=s'$__tmuxmcp_tag$'\a%}'
  typeset -g __tmuxmcp_eol=$'%{\e]133;D;%?;tmuxmcp=s'$__tmuxmcp_tag$'\a%}'

  __tmuxmcp_precmd() {
    local s=$? sp= e=
    [[ -o promptsp && -o promptcr ]] && sp=1
    [[ -o errexit ]] && e=1
    emulate -L zsh
    [[ -n $sp ]] || builtin printf '\e]133;D;%s;tmuxmcp=s%s\a' $s $__tmuxmcp_tag
    builtin printf '\e]133;A;tmuxmcp=s%s\a' $__tmuxmcp_tag
    [[ -n $e ]] && return 0
    return s
  }

  __tmuxmcp_preexec() {
    emulate -L zsh
    builtin printf '\e]133;C;tmuxmcp=s%s\a' $__tmuxmcp_tag
  }

  # Ours first and last among precmd hooks, ours last among preexec hooks;
  # every other hook stays, in order.
  # With PROMPT_SP off our end mark comes from our first precmd hook, and
  # zsh runs a function named precmd before every hook: the user's precmd
  # function becomes the hook right after ours (what it prints is then not
  # the command's output).
  __tmuxmcp_hooks() {
    local sp=
    [[ -o promptsp && -o promptcr ]] && sp=1
    emulate -L zsh
    if [[ -z $sp ]] && (( $+functions[precmd] )); then
      functions[__tmuxmcp_user_precmd]=$functions[precmd]
      unfunction precmd
      precmd_functions=(${precmd_functions:#__tmuxmcp_user_precmd})
      precmd_functions[1,0]=(__tmuxmcp_user_precmd)
    fi
    precmd_functions=(__tmuxmcp_precmd ${precmd_functions:#(__tmuxmcp_precmd|__tmuxmcp_prompt_end)} __tmuxmcp_prompt_end)
    preexec_functions=(${preexec_functions:#__tmuxmcp_preexec} __tmuxmcp_preexec)
  }

  # __tmuxmcp_mark puts the end-of-prompt mark, in its form for the
  # shell's options, at the end of PS1; it reports whether PS1 changed
  # (callers keep a shell under set -e alive: "|| :").
  __tmuxmcp_mark() {
    local b=$__tmuxmcp_b
    [[ -o correct || -o correctall ]] && b=$__tmuxmcp_bw
    [[ -o errexit ]] && b=$__tmuxmcp_be
    # Without prompt_percent, %{ %} would show: no mark then (commands come
    # in job scripts, which bring their own).
    [[ -o promptpercent ]] || b=
    emulate -L zsh
    # An exported PS1 (old rc files export it) would carry the shell's
    # secret tag into every program's environment: it stays this shell's.
    [[ ${(t)PS1} == *export* ]] && typeset -g +x PS1
    [[ -n $b && $PS1 == *"$b" ]] && return 1
    PS1=${PS1//$__tmuxmcp_b/}
    PS1=${PS1//$__tmuxmcp_bw/}
    PS1=${PS1//$__tmuxmcp_be/}$b
    return 0
  }

  __tmuxmcp_prompt_end() {
    local s=$? e=
    [[ -o errexit ]] && e=1
    if (( $+functions[precmd] )) || [[ ${precmd_functions[1]-} != __tmuxmcp_precmd || ${precmd_functions[-1]-} != __tmuxmcp_prompt_end || ${preexec_functions[-1]-} != __tmuxmcp_preexec ]]; then
      __tmuxmcp_hooks
    fi
    # Last, so a theme that rebuilds PROMPT keeps the mark at its end.
    __tmuxmcp_mark || :
    emulate -L zsh
    local eol=${PROMPT_EOL_MARK-%B%S%#%s%b}
    [[ $eol == $__tmuxmcp_eol* ]] || PROMPT_EOL_MARK=$__tmuxmcp_eol$eol
    [[ ${(t)PROMPT_EOL_MARK} == *export* ]] && typeset -g +x PROMPT_EOL_MARK
    [[ -n $e ]] && return 0
    return s
  }

  # zle reset-prompt draws again a prompt that a theme rebuilt once it was
  # drawn (an async git status: pure, powerlevel10k, spaceship): the mark
  # goes back in first. In every other way zle stays the builtin.
  zle() {
    case ${1-} in reset-prompt | .reset-prompt) __tmuxmcp_mark || : ;; esac
    builtin zle "$@"
  }

  __tmuxmcp_hooks
  [[ ${PROMPT_EOL_MARK-} == $__tmuxmcp_eol* ]] || PROMPT_EOL_MARK=$__tmuxmcp_eol${PROMPT_EOL_MARK-%B%S%#%s%b}
  [[ ${(t)PROMPT_EOL_MARK} == *export* ]] && typeset -g +x PROMPT_EOL_MARK
  # The lines that run tmuxmcp's job scripts start with a space and stay
  # out of history.
  setopt HIST_IGNORE_SPACE
fi
if [[ -n ${__tmuxmcp_rearm-} ]]; then unset __tmuxmcp_rearm
elif [[ -o login ]]; then __tmuxmcp_ours; else __tmuxmcp_done; unset TMUXMCP_SHELL_TRACE; fi
