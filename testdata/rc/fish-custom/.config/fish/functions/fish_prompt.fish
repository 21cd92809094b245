function fish_prompt
    set -l s $status
    set_color blue
    echo -n (prompt_pwd)
    set_color normal
    if test $s -ne 0
        set_color red
        echo -n " [$s]"
        set_color normal
    end
    echo
    echo -n '⋊> '
end
