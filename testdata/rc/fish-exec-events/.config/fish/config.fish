# Show when each command started (a snippet from a fish dotfiles repo).
function __started --on-event fish_preexec
    set_color brblack; echo "▶ "(date +%T); set_color normal
end
