package shell

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The integration scripts emit OSC 133 marks: D;<status> and A before every
// prompt, B at the end of the prompt, C when a command starts. tmux 3.3a
// drops unknown OSC sequences from the screen, so a person watching sees
// only their usual prompt and the commands.
const bashrc = `# tmuxmcp shell integration for bash: OSC 133 marks around commands.
if [ -f "$HOME/.bashrc" ]; then . "$HOME/.bashrc"; fi
# A token of this shell's own: marks printed by anything else (a command's
# output, a nested shell) cannot pass for this shell's.
__tmuxmcp_tok=${__tmuxmcp_tok:-$RANDOM$RANDOM$RANDOM}
__tmuxmcp_prompt() {
  local s=$?
  printf '\033]133;D;%s;tmuxmcp=s%s\007\033]133;A;tmuxmcp=s%s\007' "$s" "$__tmuxmcp_tok" "$__tmuxmcp_tok"
  return $s
}
# Runs last, so a PROMPT_COMMAND that rebuilds PS1 keeps the end-of-prompt mark.
__tmuxmcp_ps1() {
  local s=$?
  case "$PS1" in *'133;B'*) ;; *) PS1="${PS1}"'\[\e]133;B;tmuxmcp=s'"$__tmuxmcp_tok"'\a\]' ;; esac
  return $s
}
case ";${PROMPT_COMMAND};" in
  *";__tmuxmcp_prompt;"*) ;;
  *) PROMPT_COMMAND="__tmuxmcp_prompt${PROMPT_COMMAND:+;$PROMPT_COMMAND};__tmuxmcp_ps1" ;;
esac
PS0='\e]133;C;tmuxmcp=s'"$__tmuxmcp_tok"'\a'"${PS0}"
# The lines that run job scripts stay out of history.
HISTIGNORE="${HISTIGNORE:+$HISTIGNORE:} . '*.run'"
`

const zshenv = `# tmuxmcp: read the user's own startup files.
ZDOTDIR="${TMUXMCP_USER_ZDOTDIR:-$HOME}"
if [ -f "$ZDOTDIR/.zshenv" ]; then . "$ZDOTDIR/.zshenv"; fi
TMUXMCP_USER_ZDOTDIR="${ZDOTDIR:-$HOME}"
ZDOTDIR="${TMUXMCP_ZDOTDIR}"
`

const zshrc = `# tmuxmcp shell integration for zsh: OSC 133 marks around commands.
ZDOTDIR="${TMUXMCP_USER_ZDOTDIR:-$HOME}"
if [ -f "$ZDOTDIR/.zshrc" ]; then . "$ZDOTDIR/.zshrc"; fi
__tmuxmcp_tok=${__tmuxmcp_tok:-$RANDOM$RANDOM$RANDOM}
__tmuxmcp_precmd() { local s=$?; printf '\033]133;D;%s;tmuxmcp=s%s\007\033]133;A;tmuxmcp=s%s\007' "$s" "$__tmuxmcp_tok" "$__tmuxmcp_tok"; }
__tmuxmcp_preexec() { printf '\033]133;C;tmuxmcp=s%s\007' "$__tmuxmcp_tok"; }
# Registered after the user's hooks, so a theme that rebuilds PROMPT keeps the mark.
__tmuxmcp_ps1() { case "$PS1" in *'133;B'*) ;; *) PS1="${PS1}%{"$'\e]133;B;tmuxmcp=s'"$__tmuxmcp_tok"$'\a'"%}" ;; esac; }
unsetopt PROMPT_SP  # its end-of-output marker would land inside a command's output
setopt HIST_IGNORE_SPACE  # the lines that run job scripts start with a space
autoload -Uz add-zsh-hook
add-zsh-hook precmd __tmuxmcp_precmd
add-zsh-hook preexec __tmuxmcp_preexec
add-zsh-hook precmd __tmuxmcp_ps1
`

// Integration is the installed integration scripts.
type Integration struct{ dir string }

// Install writes the integration scripts under dir.
func Install(dir string) (*Integration, error) {
	files := map[string]string{
		"bashrc":      bashrc,
		"zsh/.zshenv": zshenv,
		"zsh/.zshrc":  zshrc,
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return nil, fmt.Errorf("install shell integration: %w", err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			return nil, fmt.Errorf("install shell integration: %w", err)
		}
	}
	return &Integration{dir: dir}, nil
}

// Command returns the argv and extra environment that start shellPath
// (bash or zsh) with integration, or ok false for other shells.
func (in *Integration) Command(shellPath string) (argv []string, env map[string]string, ok bool) {
	switch filepath.Base(shellPath) {
	case "bash":
		return []string{shellPath, "--rcfile", filepath.Join(in.dir, "bashrc"), "-i"}, nil, true
	case "zsh":
		zd := filepath.Join(in.dir, "zsh")
		user := os.Getenv("ZDOTDIR")
		return []string{shellPath, "-i"}, map[string]string{"ZDOTDIR": zd, "TMUXMCP_ZDOTDIR": zd, "TMUXMCP_USER_ZDOTDIR": user}, true
	}
	return nil, nil, false
}

// RunScript returns the script sourced to run a job in a shell's own
// context (so cd and export persist): a start mark tagged with tag, the
// command read from cmdFile and evaluated (optionally after cd to dir), an
// end mark with its status, and the status written to rcFile so a restarted
// tmuxmcp can collect it. POSIX sh: bash, zsh, dash and ksh run it. The marks
// exist only once printf expands \033, so nothing a shell echoes can look
// like one.
//
// trapExit (for shells tmuxmcp owns) also records the status when the
// command exits the shell itself (exit 3, set -e).
func RunScript(tag, cmdFile, rcFile, dir string, trapExit bool) string {
	run := `__tmuxmcp_c=$(cat -- ` + Quote(cmdFile) + `) && eval "$__tmuxmcp_c"`
	if dir != "" {
		run = `cd -- ` + Quote(dir) + ` && { ` + run + `; }`
	}
	if trapExit {
		run = `trap 'printf "%s\n" "$?" > ` + strings.ReplaceAll(Quote(rcFile), `'`, `'\''`) + `' EXIT
` + run + `
__tmuxmcp_s=$?; trap - EXIT; (exit $__tmuxmcp_s)`
	}
	return fmt.Sprintf(`printf '\033]133;C;tmuxmcp=%%s\007' %[1]s
%[2]s
__tmuxmcp_s=$?
printf '\033]133;D;%%s;tmuxmcp=%%s\007' "$__tmuxmcp_s" %[1]s
printf '%%s\n' "$__tmuxmcp_s" > %[3]s 2>/dev/null
unset __tmuxmcp_c __tmuxmcp_s
`, Quote(tag), run, Quote(rcFile))
}

// SourceLine is the line typed to run a RunScript file: short, so a person
// watching sees which job runs; a leading space keeps it out of history
// where ignorespace is set.
func SourceLine(runFile string) string { return " . " + Quote(runFile) }

// Quote quotes s for a POSIX shell.
func Quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// SignalName names the signal of a shell exit status above 128, or "".
func SignalName(status int) string {
	if status <= 128 || status > 128+64 {
		return ""
	}
	names := map[int]string{1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 6: "SIGABRT", 8: "SIGFPE", 9: "SIGKILL",
		10: "SIGUSR1", 11: "SIGSEGV", 12: "SIGUSR2", 13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM"}
	if n, ok := names[status-128]; ok {
		return n
	}
	return fmt.Sprintf("SIG%d", status-128)
}
