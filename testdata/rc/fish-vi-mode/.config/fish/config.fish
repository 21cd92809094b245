set -g fish_greeting
fish_vi_key_bindings
function fish_prompt
    echo -n (prompt_pwd)' > '
end
