# Two lines on the left, the time on the right; no PROMPT_SP marker.
setopt prompt_subst
PROMPT=$'%F{blue}%~%f %F{yellow}$(date +%H:%M)%f\n%F{green}❯%f '
RPROMPT='%(?..%F{red}[%?]%f)'
PROMPT_EOL_MARK=''
