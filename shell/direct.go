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
		if plain(command, "&") {
			return true
		}
		return check(ctx, nil, "zsh", "-f", "-n", "-c", command)
	case Fish:
		if plain(command, "") {
			return true
		}
		// fish -n -c exits 0 whatever it finds; on standard input it does not.
		return check(ctx, []byte(command), "fish", "--no-config", "-n")
	}
	return false
}

// plain reports whether command is plain enough that every shell takes it
// as one complete command, without asking one (a zsh or fish takes a few
// milliseconds to start): only words of letters, digits and - _ . / : , + @,
// none a reserved word of bash, zsh or fish (nor break or continue, which
// fish refuses outside a loop), between spaces and the operators ; and |
// (and the characters of more, such as &), in an order bash parses. No
// quote, expansion, glob, redirection, assignment or comment.
func plain(command, more string) bool {
	for _, r := range command {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', strings.ContainsRune("-_./:,+@ ;|", r), strings.ContainsRune(more, r):
		default:
			return false
		}
	}
	if strings.Contains(command, "||") && !strings.Contains(more, "&") {
		return false // fish before 3.0 has no ||
	}
	for _, w := range strings.FieldsFunc(command, func(r rune) bool { return strings.ContainsRune(" ;|&", r) }) {
		if reserved[w] {
			return false
		}
	}
	_, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	return err == nil
}

// reserved are the words that open, continue or close a block in bash,
// zsh or fish, that fish refuses outside one, or that zsh takes as a
// modifier of a command to follow ("-").
var reserved = map[string]bool{
	"if": true, "then": true, "else": true, "elif": true, "fi": true, "case": true, "esac": true, "for": true,
	"select": true, "while": true, "until": true, "do": true, "done": true, "in": true, "function": true,
	"time": true, "coproc": true, "begin": true, "end": true, "switch": true, "and": true, "or": true,
	"not": true, "repeat": true, "foreach": true, "always": true, "break": true, "continue": true,
	"return": true, "nocorrect": true, "noglob": true, "declare": true, "typeset": true, "local": true,
	"export": true, "readonly": true, "integer": true, "float": true, "-": true,
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
