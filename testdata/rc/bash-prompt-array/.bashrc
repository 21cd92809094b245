# bash 5.1+ PROMPT_COMMAND array; the last entry rebuilds PS1 from scratch.
__last_status() { LAST=$?; }
__title() { printf '\e]2;%s\a' "${PWD##*/}"; }
__build_ps1() {
  local mark='ok'
  [ "$LAST" -ne 0 ] && mark="err:$LAST"
  PS1="[$mark \W]\\$ "
}
PROMPT_COMMAND=(__last_status __title __build_ps1)
