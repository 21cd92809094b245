# A prompt program in the style of starship: PROMPT_COMMAND rebuilds PS1
# from $? and PIPESTATUS every time; PS0 prints when a command starts.
__sl_status() { __sl_s=$?; __sl_p=("${PIPESTATUS[@]}"); }
__sl_prompt() {
  PS1="\[\e[1m\]\W\[\e[0m\] [${__sl_s}|${__sl_p[*]}] ❯ "
}
PROMPT_COMMAND="__sl_status; __sl_prompt"
PS0='\e[2m▶ started \A\e[0m\n'
