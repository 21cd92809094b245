# The shape of an oh-my-zsh setup: completion, history sharing, auto_cd,
# a PROMPT_SUBST theme like robbyrussell (its prompt ends in the directory
# name and a git segment, not in $ or %), autosuggestions and syntax
# highlighting (Debian's packages of the real plugins).
HISTFILE=~/.zsh_history
HISTSIZE=10000
SAVEHIST=10000
setopt share_history hist_ignore_dups auto_cd extended_glob prompt_subst interactive_comments
autoload -Uz compinit && compinit -u -d ~/.zcompdump
autoload -Uz add-zsh-hook vcs_info
zstyle ':vcs_info:git:*' formats 'git:(%b) '
add-zsh-hook precmd vcs_info
git_prompt_info() { print -n "${vcs_info_msg_0_}"; }
PROMPT='%(?:%{%F{green}%}➜ :%{%F{red}%}➜ ) %{%F{cyan}%}%c%{%f%} $(git_prompt_info)'
export ZSH_AUTOSUGGEST_STRATEGY=(history completion)
source /usr/share/zsh-autosuggestions/zsh-autosuggestions.zsh
source /usr/share/zsh-syntax-highlighting/zsh-syntax-highlighting.zsh
alias ll='ls -lh'
