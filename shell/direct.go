package shell

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"time"
	"unicode"

	"mvdan.cc/sh/v3/syntax"
)

// MaxDirect is the longest command typed into a shell as is. A line editor
// with syntax highlighting or autosuggestions redraws the whole line for
// each character it reads, so a long line can take it seconds; longer
// commands are sourced from a job script, whose typed line is short.
const MaxDirect = 512

// TypedDirectly reports whether command may be typed as is into an
// integrated shell of kind k at its prompt, so a person watching sees
// exactly the command: one line that the shell reads the way it was
// written, and that is complete. Everything else is sourced from a job
// script (Script), so it reaches the shell intact whatever its text.
//
// Left out: control characters (a TAB completes, a newline submits early),
// '!' and a leading '^' in bash and zsh (history expansion rewrites or
// rejects it), a trailing backslash (the line would continue at a PS2
// prompt), lines over MaxDirect, and lines the shell would not take as one
// complete command.
func (k Kind) TypedDirectly(ctx context.Context, command string) bool {
	if !k.Integrated() || len(command) > MaxDirect || strings.TrimSpace(command) == "" {
		return false
	}
	if strings.ContainsFunc(command, unicode.IsControl) {
		return false
	}
	if k != Fish && (strings.Contains(command, "!") || strings.HasPrefix(strings.TrimLeft(command, " \t"), "^")) {
		return false // history expansion (!-1, ^old^new) would run another line
	}
	if strings.HasSuffix(strings.TrimRight(command, " "), `\`) {
		return false
	}
	return k.Parses(ctx, command)
}

// Parses reports whether a shell of kind k would take command as complete
// (an unclosed quote or block would leave it waiting for more).
func (k Kind) Parses(ctx context.Context, command string) bool {
	switch k {
	case Bash, POSIX:
		lang := syntax.LangBash
		if k == POSIX {
			lang = syntax.LangPOSIX
		}
		_, err := syntax.NewParser(syntax.Variant(lang)).Parse(strings.NewReader(command), "")
		return err == nil
	case Zsh:
		return check(ctx, nil, "zsh", "-f", "-n", "-c", command)
	case Fish:
		// fish -n -c exits 0 whatever it finds; on standard input it does not.
		return check(ctx, []byte(command), "fish", "--no-config", "-n")
	}
	return false
}

func check(ctx context.Context, stdin []byte, name string, args ...string) bool {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	return cmd.Run() == nil
}
