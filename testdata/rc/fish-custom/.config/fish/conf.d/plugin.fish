# What a plugin manager's snippet does: its own prompt-time hook.
function __plugin_on_prompt --on-event fish_prompt
    set -g __plugin_prompts (math (count $__plugin_prompts) + 1)
end
