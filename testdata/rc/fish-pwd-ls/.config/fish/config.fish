# List the directory whenever it changes.
function __auto_ls --on-variable PWD
    status is-command-substitution; and return
    ls -A
end
