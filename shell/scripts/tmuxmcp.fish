# tmuxmcp shell integration for fish (3.1 or later), found through
# XDG_DATA_DIRS as a vendor configuration snippet. It adds invisible OSC 133
# marks tagged with this shell's secret tag, which the launcher hands over
# on descriptor 9 (never in the environment, where any process could read
# it) and which lives only in a variable of this shell:
#   D;<status>  a command ended      fish_postexec
#   A           the prompt starts    fish_prompt event
#   B           the prompt is drawn  the end of fish_prompt (wrapped once the
#                                    user's own is known, again if it changes)
#   C           a command starts     fish_preexec
if set -q TMUXMCP_USER_XDG_DATA_DIRS_SET
    if test -n "$TMUXMCP_USER_XDG_DATA_DIRS_SET"
        set -gx XDG_DATA_DIRS $TMUXMCP_USER_XDG_DATA_DIRS
    else
        set -e XDG_DATA_DIRS
    end
    if test -n "$TMUXMCP_USER_ZDOTDIR_SET"
        set -gx ZDOTDIR $TMUXMCP_USER_ZDOTDIR
    else
        set -e ZDOTDIR
    end
    set -e TMUXMCP_USER_XDG_DATA_DIRS TMUXMCP_USER_XDG_DATA_DIRS_SET TMUXMCP_USER_ZDOTDIR TMUXMCP_USER_ZDOTDIR_SET
end
set -g __tmuxmcp_tag
if test "$TMUXMCP_SHELL_TAG_FD" = 9
    # One line: the pipe is left empty.
    # (fish redirects a builtin from a descriptor it did not open itself
    # only through its path)
    read -l t </dev/fd/9 2>/dev/null; and set __tmuxmcp_tag $t
end
set -e TMUXMCP_SHELL_TAG TMUXMCP_SHELL_TAG_FD
if not status is-interactive; or test -z "$__tmuxmcp_tag"
    set -e __tmuxmcp_tag
    return
end

function __tmuxmcp_preexec --on-event fish_preexec
    builtin printf '\e]133;C;tmuxmcp=s%s\a' $__tmuxmcp_tag
end

function __tmuxmcp_postexec --on-event fish_postexec
    set -l s $status
    builtin printf '\e]133;D;%s;tmuxmcp=s%s\a' $s $__tmuxmcp_tag
    return $s
end

function __tmuxmcp_wrap_prompt
    functions -q fish_prompt; or return
    functions -q __tmuxmcp_user_prompt; and functions -e __tmuxmcp_user_prompt
    functions -c fish_prompt __tmuxmcp_user_prompt
    function fish_prompt
        __tmuxmcp_user_prompt
        builtin printf '\e]133;B;tmuxmcp=s%s\a' $__tmuxmcp_tag
    end
end

# __tmuxmcp_order runs once the user's files have run: their fish_postexec
# handlers are defined again so they run after ours, and ours is defined
# again to run last among fish_preexec handlers (fish runs the handlers of
# an event in the order they were defined). What theirs print before or
# after a command is not its output.
function __tmuxmcp_order
    for f in (functions --handlers-type generic | string replace -rf '^fish_postexec (\S+)$' '$1')
        test "$f" = __tmuxmcp_postexec; and continue
        functions -- $f | source
    end
    functions __tmuxmcp_preexec | source
end

function __tmuxmcp_prompt --on-event fish_prompt
    set -l s $status
    if not set -q __tmuxmcp_ordered
        set -g __tmuxmcp_ordered 1
        __tmuxmcp_order
    end
    builtin printf '\e]133;A;tmuxmcp=s%s\a' $__tmuxmcp_tag
    # The user's fish_prompt is defined after this file runs (config.fish,
    # an autoloaded function, a theme): wrap it once it is, and again when
    # it is replaced.
    if not string match -q '*__tmuxmcp_user_prompt*' -- (functions fish_prompt 2>/dev/null)
        __tmuxmcp_wrap_prompt
    end
    return $s
end
