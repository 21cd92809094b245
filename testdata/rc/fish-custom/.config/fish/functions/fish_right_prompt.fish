function fish_right_prompt
    set_color brblack
    date '+%H:%M'
    set_color normal
end
