# The way pure (and other async themes) draw: the prompt is drawn at once,
# the git part is computed in the background and the prompt is rebuilt and
# redrawn with zle reset-prompt when it arrives.
typeset -g _async_fd
_prompt_render() { PROMPT="%F{blue}%1~%f ${_git_part}%F{magenta}❯%f " }
_async_done() {
  local fd=$1 line
  read -r -u $fd line
  zle -F $fd
  exec {fd}<&-
  _git_part="$line "
  _prompt_render
  zle reset-prompt
}
_async_precmd() {
  _git_part=''
  _prompt_render
  exec {_async_fd}< <(sleep 0.2; print 'main*')
  zle -F $_async_fd _async_done
}
autoload -Uz add-zsh-hook
add-zsh-hook precmd _async_precmd
