# A terminal's own shell integration (VS Code, WezTerm, Ghostty style):
# untagged OSC 133 marks around prompts and commands.
__term_precmd() {
  local s=$?
  printf '\e]133;D;%s\a\e]133;A\a' "$s"
  return $s
}
PROMPT_COMMAND="__term_precmd${PROMPT_COMMAND:+; $PROMPT_COMMAND}"
PS1='\[\e]133;P;k=i\a\]term \W\$ \[\e]133;B\a\]'
PS0='\[\e]133;C\a\]'
