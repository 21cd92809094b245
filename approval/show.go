package approval

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tmuxmcp/tmuxmcp/policy"
)

// Bounds of what a person is shown.
const (
	// ShowWidth is the longest row shown; longer lines are wrapped, each
	// continuation row marked.
	ShowWidth = 100
	// MaxShownRows is the most rows a request may take: a command longer
	// than that cannot be read before answering, so it is refused, never
	// approved blind.
	MaxShownRows = 40
)

// Visible makes s safe to show a person: control characters (other than
// line breaks), invisible and direction-changing Unicode (zero-width
// spaces and joiners, bidi overrides and isolates, the BOM, soft hyphens)
// and invalid bytes are written as escapes, and a run of three or more
// spaces or tabs is written as a count, so nothing in the text can hide
// another part of it.
func Visible(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			fmt.Fprintf(&b, `\x%02x`, s[i])
			i++
			continue
		}
		if r == ' ' || r == '\t' {
			j := i
			for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
				j++
			}
			if run := s[i:j]; len(run) >= 3 {
				fmt.Fprintf(&b, "⟨%d %s⟩", len(run), blankName(run))
				i = j
				continue
			}
			if r == '\t' {
				b.WriteString(`\t`)
			} else {
				b.WriteRune(r)
			}
			i += size
			continue
		}
		switch {
		case r == '\n':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
			fmt.Fprintf(&b, `\x%02x`, r)
		case hidden(r):
			fmt.Fprintf(&b, `\u{%04X}`, r)
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

func blankName(run string) string {
	switch strings.Count(run, "\t") {
	case 0:
		return "spaces"
	case len(run):
		return "tabs"
	}
	return "spaces and tabs"
}

// hidden reports whether r draws nothing or reorders what is drawn.
func hidden(r rune) bool {
	switch {
	case r == 0xad, r == 0x34f, r == 0x61c, r == 0x115f, r == 0x1160, r == 0x180e,
		r >= 0x200b && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2060 && r <= 0x206f,
		r == 0x3164, r == 0xfeff, r == 0xffa0, r == 0x2800, r == 0x1d159, r >= 0x1d173 && r <= 0x1d17a, r == 0x2028, r == 0x2029, r == 0x17b4, r == 0x17b5, r == 0x16fe4, r >= 0x180b && r <= 0x180f,
		r >= 0xfe00 && r <= 0xfe0f, r >= 0xe0100 && r <= 0xe01ef, r >= 0xfff0 && r <= 0xfffb, r >= 0xe0000 && r <= 0xe007f:
		return true
	}
	return unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Co, r) || !unicode.IsPrint(r) && r != ' '
}

// Shown is a request as a person reads it.
type Shown struct {
	// Rows are the command's rows: made visible, wrapped at ShowWidth
	// (continuations start with "↪ "), from its first character.
	Rows []string
	// Bytes is the command's length in bytes.
	Bytes int
	// TooLong says the command needs more than MaxShownRows rows: it
	// cannot be shown whole, so it must not be approved.
	TooLong bool
}

// Show lays out command for a person: rows of at most ShowWidth screen
// columns (a wide character takes two), from the command's first
// character.
func Show(command string) Shown {
	sh := Shown{Bytes: len(command)}
	for _, line := range strings.Split(Visible(command), "\n") {
		var row strings.Builder
		cols, first := 0, true
		flush := func() bool {
			r := row.String()
			if !first {
				r = "↪ " + r
			}
			sh.Rows = append(sh.Rows, r)
			row.Reset()
			cols, first = 0, false
			return len(sh.Rows) <= MaxShownRows
		}
		for _, r := range line {
			w := columns(r)
			if cols+w > ShowWidth && !flush() {
				sh.TooLong, sh.Rows = true, sh.Rows[:MaxShownRows]
				return sh
			}
			row.WriteRune(r)
			cols += w
		}
		if !flush() {
			sh.TooLong, sh.Rows = true, sh.Rows[:MaxShownRows]
			return sh
		}
	}
	return sh
}

// columns is how many screen columns r may take, never too few: every
// character from U+1100 on (CJK, Hangul, emoji, ...) counts as wide.
func columns(r rune) int {
	if r >= 0x1100 {
		return 2
	}
	return 1
}

// oneLine is s made visible on one row: line breaks written as \n, cut
// at max characters with the count left out.
func oneLine(s string, max int) string {
	v := strings.ReplaceAll(Visible(s), "\n", `\n`)
	if r := []rune(v); len(r) > max {
		return string(r[:max]) + fmt.Sprintf("… (%d more characters)", len(r)-max)
	}
	return v
}

// Text is the whole request as a person reads it in a popup or an
// elicitation: the host it runs on when that is not this machine ("host:
// prod"), where it runs, the command from its first row, its size, and
// the agent's reason on one row, labelled as the agent's claim. Every
// part is made visible, so nothing in the host, program, directory or
// reason can hide or fake part of the request.
func Text(req Request) string {
	var b strings.Builder
	if req.Host != "" && req.Host != policy.LocalHost {
		fmt.Fprintf(&b, "\n  host: %s\n", oneLine(req.Host, 60))
	}
	fmt.Fprintf(&b, "\n  The agent asks to run, in %s (%s, %s):\n", oneLine(paneWhere(req.Pane), 40), oneLine(firstNonEmpty(req.Program, "shell"), 60), oneLine(firstNonEmpty(req.CWD, "its start directory"), 200))
	switch {
	case req.Escalate:
		b.WriteString("\n  !! OUTSIDE THE SANDBOX: with your full access, files, network and keys.\n  What it reads from the workspace (.git/config and hooks, Makefile, package.json,\n  .envrc) was writable inside the sandbox and runs with your access too.\n  Approve only if it must run outside the sandbox.\n")
	case req.Sandbox != "":
		fmt.Fprintf(&b, "  sandbox: %s\n", oneLine(req.Sandbox, 20))
	}
	b.WriteString("\n")
	sh := Show(req.Command)
	for _, row := range sh.Rows {
		fmt.Fprintf(&b, "    %s\n", row)
	}
	fmt.Fprintf(&b, "\n  (%d row(s), %d bytes)\n", len(sh.Rows), sh.Bytes)
	if req.Reason != "" {
		fmt.Fprintf(&b, "\n  The agent says why (its claim, not checked): %s\n", oneLine(req.Reason, 300))
	}
	return b.String()
}

// paneWhere names the pane a request is for, or a new one.
func paneWhere(pane string) string {
	if pane == "" {
		return "a new pane"
	}
	return "pane " + pane
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
