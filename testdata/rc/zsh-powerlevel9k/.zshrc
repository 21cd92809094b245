# powerlevel9k (Debian's package of the real theme), a two-sided prompt.
POWERLEVEL9K_MODE=compatible
POWERLEVEL9K_LEFT_PROMPT_ELEMENTS=(context dir vcs)
POWERLEVEL9K_RIGHT_PROMPT_ELEMENTS=(status root_indicator background_jobs time)
POWERLEVEL9K_PROMPT_ON_NEWLINE=true
source /usr/share/powerlevel9k/powerlevel9k.zsh-theme
