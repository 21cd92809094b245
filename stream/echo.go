package stream

import (
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// EchoWindow is how long after submission typed text is still expected to
// echo, and so masked from matching.
const EchoWindow = 10 * time.Second

// maxEchoMisses is how many unexpected runes may pass before an entry whose
// echo never comes (a program that does not echo) is given up.
const maxEchoMisses = 4096

type echoEntry struct {
	want      []rune
	pos       int
	start     int64     // stream offset when the text was typed
	submitted time.Time // zero while unsubmitted
	misses    int
	// redraw: a shell may draw a multi-line paste twice (bash 5.2 redraws
	// it without highlighting when the line is accepted), so such an entry
	// is matched a second time before it is done.
	redraw bool
}

// accept offers rune r to the entry: true when r is the next typed rune.
// Typed whitespace and controls may echo differently (a pasted newline, a
// TAB completion), so they are skipped when r is something else.
func (e *echoEntry) accept(r rune) bool {
	for e.pos < len(e.want) {
		w := e.want[e.pos]
		if r == w {
			e.pos++
			return true
		}
		if !unicode.IsSpace(w) && !unicode.IsControl(w) {
			return false
		}
		if r == '\n' || unicode.IsSpace(r) {
			return false // let the next expected rune try this one again
		}
		e.pos++
	}
	return false
}

// done reports whether the entry has seen all its echo; a multi-line entry
// then re-arms once for the shell's redraw.
func (e *echoEntry) done() bool {
	if e.pos < len(e.want) {
		return false
	}
	if e.redraw {
		e.redraw, e.pos, e.misses = false, 0, 0
		return false
	}
	return true
}

// echoLedger remembers text tmuxmcp typed into a pane and finds its echo
// positionally: scanning the plain view from where the text was typed, the
// runes that match the typed text in order are its echo. Output that merely
// contains the same characters elsewhere is not masked.
type echoLedger struct {
	entries []*echoEntry
	dec     *Plain // scans appended bytes while entries are pending
}

func (l *echoLedger) add(text string, at int64) *echoEntry {
	want := []rune(text)
	if len(want) == 0 {
		return nil
	}
	if len(l.entries) == 0 || l.dec == nil {
		l.dec = NewPlain(at)
	}
	e := &echoEntry{want: want, start: at, redraw: strings.ContainsAny(text, "\n\r")}
	l.entries = append(l.entries, e)
	return e
}

func (l *echoLedger) remove(e *echoEntry) {
	if i := slices.Index(l.entries, e); i >= 0 && e.pos == 0 {
		l.entries = slices.Delete(l.entries, i, i+1)
	}
}

func (l *echoLedger) submit(now time.Time) {
	for _, e := range l.entries {
		if e.submitted.IsZero() {
			e.submitted = now
		}
	}
}

// scan feeds appended bytes (starting at offset at) and calls mask for each
// raw range that is echo of typed text.
func (l *echoLedger) scan(data []byte, at int64, now time.Time, mask func(start, end int64)) {
	l.expire(now)
	if len(l.entries) == 0 {
		l.dec = nil
		return
	}
	if l.dec.Offset() != at {
		l.dec = NewPlain(at) // bytes were evicted or skipped: resync
	}
	l.dec.Feed(data, func(text []byte, s, e int64) {
		r, _ := utf8.DecodeRune(text)
		for i, ent := range l.entries {
			if s < ent.start {
				break // later entries were typed later still
			}
			if !ent.accept(r) {
				continue
			}
			mask(s, e)
			// Echo of a later entry means the earlier ones will never
			// echo (a key a full-screen program swallowed): drop them.
			drop := i
			if ent.done() {
				drop = i + 1
			}
			l.entries = slices.Delete(l.entries, 0, drop)
			return
		}
		if len(l.entries) > 0 && r != '\n' {
			head := l.entries[0]
			if head.misses++; head.misses > maxEchoMisses {
				l.entries = l.entries[1:]
			}
		}
	})
	l.expire(now)
}

func (l *echoLedger) expire(now time.Time) {
	l.entries = slices.DeleteFunc(l.entries, func(e *echoEntry) bool {
		return !e.submitted.IsZero() && now.Sub(e.submitted) > EchoWindow
	})
}
