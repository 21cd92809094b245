# A login-only setup that starts its hooks from scratch.
precmd_functions=()
preexec_functions=()
autoload -Uz add-zsh-hook
__zl_precmd() { : }
add-zsh-hook precmd __zl_precmd
