package shell

import (
	"regexp"
	"strings"
)

// correction is zsh's CORRECT prompt: "zsh: correct 'sl' to 'ls' [nyae]? ".
var correction = regexp.MustCompile(`\[nyae\]\? ?$|\[nyae\]\? ?[nyae]?$`)

// IsCorrection reports whether line (the cursor's line, up to the cursor)
// is zsh's spelling-correction prompt, waiting for a key.
func IsCorrection(line string) bool {
	return strings.Contains(line, "correct") && correction.MatchString(line)
}

// zshPS2 is zsh's default continuation prompt, "%_> ": the open constructs,
// e.g. "dquote> ", "for quote> ", "heredoc> ".
var zshPS2 = regexp.MustCompile(`^[a-z]+(?: [a-z]+)*> `)

// IsContinuation reports whether line (the cursor's line, up to the
// cursor) starts with the default continuation prompt of kind k: the shell
// took an unfinished command (an unclosed quote, a heredoc, a trailing |)
// and waits for the rest. fish edits such a command in place instead.
func (k Kind) IsContinuation(line string) bool {
	switch k {
	case Bash, POSIX:
		return strings.HasPrefix(line, "> ") || line == ">"
	case Zsh:
		return zshPS2.MatchString(line + " ")
	}
	return false
}

// promptEnds are how prompts commonly end. They are only a first guess, for
// a shell tmuxmcp has never seen draw a prompt (one it did not start, and
// has not run a command in): tmuxmcp learns the real prompt from then on.
var promptEnds = []string{"$", "#", "%", ">", "❯", "➜", "»", "λ", ":", "→", "]"}

// LooksLikePrompt reports whether text (a line up to the cursor, trailing
// spaces removed) ends like a common prompt.
func LooksLikePrompt(text string) bool {
	for _, e := range promptEnds {
		if strings.HasSuffix(text, e) {
			return true
		}
	}
	return false
}
