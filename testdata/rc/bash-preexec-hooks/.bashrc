# Hooks in the way bash-preexec installs them (atuin, iTerm2's integration
# and many prompt tools use it): the rc adds an install string to
# PROMPT_COMMAND; at the first prompt it removes itself from the string,
# puts its own entries first and last around whatever PROMPT_COMMAND holds
# then, and sets a DEBUG trap that runs preexec_functions before each
# command. PROMPT_COMMAND then runs precmd_functions.
precmd_functions=()
preexec_functions=()
__bp_inside_precmd=0
__bp_set_ret_value() { return ${1:-}; }
__bp_precmd_invoke_cmd() {
  __bp_last_ret_value=$?
  if (( __bp_inside_precmd > 0 )); then return; fi
  local __bp_inside_precmd=1 f
  for f in "${precmd_functions[@]}"; do __bp_set_ret_value "$__bp_last_ret_value"; "$f"; done
  __bp_preexec_interactive_mode=on
  return $__bp_last_ret_value
}
__bp_interactive_mode() { __bp_preexec_interactive_mode=on; }
__bp_preexec_invoke_exec() {
  [ -n "${COMP_LINE-}" ] && return
  [ "${__bp_preexec_interactive_mode-}" = on ] || return
  __bp_preexec_interactive_mode=
  local this_command
  this_command=$(HISTTIMEFORMAT= builtin history 1 | sed '1 s/^ *[0-9][0-9]*[* ] //')
  local f
  for f in "${preexec_functions[@]}"; do "$f" "$this_command"; done
}
__bp_install() {
  # Exit if we already have this installed.
  if [[ "${PROMPT_COMMAND[*]:-}" == *"__bp_precmd_invoke_cmd"* ]]; then
    return 1
  fi
  trap '__bp_preexec_invoke_exec "$_"' DEBUG
  local existing_prompt_command="${PROMPT_COMMAND:-}"
  existing_prompt_command="${existing_prompt_command//$__bp_install_string[;$'\n']}"
  existing_prompt_command="${existing_prompt_command//$__bp_install_string}"
  PROMPT_COMMAND=$'__bp_precmd_invoke_cmd\n'
  if [[ -n "$existing_prompt_command" ]]; then
    PROMPT_COMMAND+=${existing_prompt_command}$'\n'
  fi
  PROMPT_COMMAND+='__bp_interactive_mode'
}
__bp_install_string=$'__bp_trap_string="$(trap -p DEBUG)"\ntrap - DEBUG\n__bp_install'
if [[ -z "${PROMPT_COMMAND-}" ]]; then
  PROMPT_COMMAND="$__bp_install_string"
else
  PROMPT_COMMAND="${PROMPT_COMMAND}"$'\n'"$__bp_install_string"
fi
# An atuin-like history recorder and a command timer.
__hist_file=$HOME/.command-log
__rec_start() { echo "start $1" >> "$__hist_file"; __t0=$SECONDS; }
__rec_end() { local s=$?; echo "end $s $((SECONDS - ${__t0:-SECONDS}))" >> "$__hist_file"; }
preexec_functions+=(__rec_start)
precmd_functions+=(__rec_end)
PS1='hooks \W> '
