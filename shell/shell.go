// Package shell knows the shells tmuxmcp runs commands in: which shells
// they are (Kind), the integration scripts tmuxmcp installs in the shells it
// starts (OSC 133 marks tagged with each shell's own tag, composed with the
// user's own startup files, hooks and themes), how a command may reach a
// shell (typed as is, or sourced from a job script), the marks in a pane's
// raw output and the line editor's input regions between them, how a prompt
// that is not a command prompt looks (continuation, correction), and what
// the kernel says about a pane's terminal (Probe). It knows nothing of MCP,
// tmux (its protocol) or streams (the stream hub).
package shell

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Kind is a family of shells that tmuxmcp runs commands in the same way.
type Kind string

// The shell kinds.
const (
	Bash  Kind = "bash"
	Zsh   Kind = "zsh"
	Fish  Kind = "fish"
	POSIX Kind = "sh" // sh, dash, ksh, mksh, ash, yash, posh: run through the wrapper
)

// KindOf names the kind of a shell by its program name ("bash", "-zsh",
// "/usr/bin/fish"), or ok false for a program that is not a known shell.
func KindOf(program string) (Kind, bool) {
	name := strings.TrimPrefix(filepath.Base(program), "-")
	switch {
	case name == "bash" || strings.HasPrefix(name, "bash5") || strings.HasPrefix(name, "bash4"):
		return Bash, true
	case name == "zsh" || strings.HasPrefix(name, "zsh5"):
		return Zsh, true
	case name == "fish":
		return Fish, true
	}
	switch name {
	case "sh", "dash", "ksh", "ksh93", "mksh", "lksh", "oksh", "ash", "yash", "posh":
		return POSIX, true
	}
	return "", false
}

// Supported names the shells tmuxmcp runs commands in, for messages that
// tell a person which to switch to.
const Supported = "bash, zsh and fish (integrated), or sh, dash, ksh, mksh and yash (each command from a job script)"

// Unsupported reports whether program is a shell tmuxmcp knows it cannot
// run commands in: its syntax is neither POSIX's nor fish's (the csh
// family, nushell, elvish, xonsh, PowerShell, rc), so neither an
// integration nor a job script can drive it.
func Unsupported(program string) bool {
	switch strings.TrimPrefix(filepath.Base(program), "-") {
	case "csh", "tcsh", "bsd-csh", "nu", "elvish", "xonsh", "pwsh", "powershell", "rc", "es":
		return true
	}
	return false
}

// Integrated reports whether tmuxmcp has an integration for the kind: its
// shells print their own marks, so tmuxmcp knows exactly when a command
// starts and ends and when the next prompt is drawn.
func (k Kind) Integrated() bool { return k == Bash || k == Zsh || k == Fish }

// LineEditor reports whether the kind's shells read commands with a line
// editor (readline, zle, fish's reader), which turns the terminal's
// canonical mode off while it waits: then canonical mode at the prompt means
// the shell is doing something else (a builtin such as read, its startup).
func (k Kind) LineEditor() bool { return k == Bash || k == Zsh || k == Fish }

// Quote quotes s as one word for a shell of kind k.
func (k Kind) Quote(s string) string {
	if k == Fish {
		// In fish single quotes, \\ and \' are escapes.
		return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
	}
	return Quote(s)
}

// Quote quotes s for a POSIX shell (and bash, zsh).
func Quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// QuoteAll is each of args quoted for a POSIX shell, space-separated: a
// command line, or the words of a set --.
func QuoteAll(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = Quote(a)
	}
	return strings.Join(q, " ")
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

// NoPagerEnv is the environment that keeps programs from opening a pager
// in panes tmuxmcp starts: `git log`, `man`, `journalctl`, `systemctl
// status`, `psql`, `gh` and `aws` print their whole output and exit
// instead of waiting in less for a key nobody will press. man gets col -b
// rather than cat: it writes bold and underline as overstrikes (N BS N),
// which read as doubled letters anywhere but on a terminal's screen. A
// user's shell configuration that sets these variables itself still wins.
func NoPagerEnv() map[string]string {
	return map[string]string{
		"PAGER":         "cat",
		"GIT_PAGER":     "cat",
		"MANPAGER":      "sh -c 'col -bx 2>/dev/null || cat'",
		"SYSTEMD_PAGER": "",
		"PSQL_PAGER":    "cat",
		"GH_PAGER":      "cat",
		"AWS_PAGER":     "",
	}
}
