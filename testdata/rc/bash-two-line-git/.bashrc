# A two-line prompt with the git branch from a command substitution.
__git_branch() {
  local b
  b=$(git symbolic-ref --short HEAD 2>/dev/null) || return 0
  printf ' (%s)' "$b"
}
PS1='\n\[\e[1;34m\]\w\[\e[0m\]$(__git_branch)\n\[\e[32m\]\$\[\e[0m\] '
