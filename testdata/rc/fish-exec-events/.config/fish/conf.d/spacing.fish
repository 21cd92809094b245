# A blank line after every command's output, and the time it took.
function __spacing --on-event fish_postexec
    echo
    test $CMD_DURATION -gt 5000; and echo "took $CMD_DURATION ms"
end
