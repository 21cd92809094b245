package audit

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// redacted replaces each secret.
const redacted = "[REDACTED]"

// Redact replaces secrets in a text (a command, typed text, a reason) with
// [REDACTED]. A secret it cannot place (a here-string or here-document
// into a program that reads a secret, in a line that does not parse) costs
// the whole text: it becomes the program's name and a [REDACTED: …] note.
// Redact(Redact(s)) == Redact(s).
func Redact(s string) string {
	out := redactOnce(s)
	// A replacement can join what was apart (two values, a value and what
	// follows): redact again until nothing changes.
	for i := 0; i < 4 && out != s; i++ {
		s, out = out, redactOnce(out)
	}
	if out != s {
		return "[REDACTED: redaction did not settle]"
	}
	return out
}

// span is a secret's place in a text: bytes [from, to).
type span struct{ from, to int }

// redactOnce is one pass: the spans the rules and the shell parse find in
// the text (with line continuations joined), replaced.
func redactOnce(s string) string {
	joined, at := joinContinuations(s)
	lower := asciiLower(joined)
	var spans []span
	for i := range rules {
		spans = append(spans, rules[i].find(joined, lower)...)
	}
	for _, sc := range scanners {
		if len(sc.hints) == 0 || containsAny(lower, sc.hints) {
			spans = append(spans, sc.find(joined)...)
		}
	}
	if needsParse(joined, lower) {
		// The parser's offsets after a continuation are not the text's:
		// it parses the joined text too.
		found, all := shellSpans(joined)
		if all != "" {
			return all
		}
		spans = append(spans, found...)
	}
	for i, sp := range spans {
		spans[i] = span{at(sp.from), at(sp.to-1) + 1}
	}
	return replaceSpans(s, spans)
}

// asciiLower is s with ASCII letters in lower case: the same length as s,
// for finding hints (which are ASCII) at s's offsets.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// joinContinuations removes backslash-newline pairs (a name can be split
// by one: MY_TO\<newline>KEN) and returns the joined text with the map
// from its byte offsets to the original's.
func joinContinuations(s string) (string, func(int) int) {
	if !strings.Contains(s, "\\\n") {
		return s, func(i int) int { return i }
	}
	var b strings.Builder
	orig := make([]int, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && s[i+1] == '\n' {
			i++
			continue
		}
		b.WriteByte(s[i])
		orig = append(orig, i)
	}
	orig = append(orig, len(s))
	return b.String(), func(i int) int { return orig[i] }
}

// replaceSpans replaces each span (merged where they overlap or touch)
// with [REDACTED], widened to whole runes.
func replaceSpans(s string, spans []span) string {
	if len(spans) == 0 {
		return s
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].from < spans[j].from })
	var b strings.Builder
	last := 0
	for i := 0; i < len(spans); {
		from, to := spans[i].from, spans[i].to
		for i++; i < len(spans) && spans[i].from <= to; i++ {
			to = max(to, spans[i].to)
		}
		from, to = max(from, last), min(to, len(s))
		for from > last && !utf8.RuneStart(s[from]) {
			from--
		}
		for to < len(s) && !utf8.RuneStart(s[to]) {
			to++
		}
		if from >= to {
			continue
		}
		b.WriteString(s[last:from])
		b.WriteString(redacted)
		last = to
	}
	b.WriteString(s[last:])
	return b.String()
}

// whole is what replaces a text whose secret cannot be placed: only the
// program's name is kept.
func whole(program, why string) string {
	return program + " [REDACTED: " + why + "]"
}
