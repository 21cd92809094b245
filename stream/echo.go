package stream

import (
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
}

// echoLedger remembers text tmuxmcp typed into a pane and finds its echo
// positionally: scanning the plain view from where the text was typed, the
// runes that match the typed text in order are its echo. Output that merely
// contains the same characters elsewhere is not masked.
type echoLedger struct {
	entries []*echoEntry
	dec     *Plain // scans appended bytes while entries are pending
}

func (l *echoLedger) add(text string, at int64) {
	want := []rune(text)
	if len(want) == 0 {
		return
	}
	if len(l.entries) == 0 || l.dec == nil {
		l.dec = NewPlain(at)
	}
	l.entries = append(l.entries, &echoEntry{want: want, start: at})
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
		for len(l.entries) > 0 {
			ent := l.entries[0]
			if s < ent.start {
				return
			}
			w := ent.want[ent.pos]
			if r == w {
				mask(s, e)
				ent.pos++
				if ent.pos == len(ent.want) {
					l.entries = l.entries[1:]
				}
				return
			}
			if unicode.IsSpace(w) || unicode.IsControl(w) {
				// Typed whitespace and controls may echo differently (a
				// pasted newline, a TAB completion): skip what we expected.
				ent.pos++
				if ent.pos == len(ent.want) {
					l.entries = l.entries[1:]
				}
				continue
			}
			if r != '\n' {
				ent.misses++
			}
			if ent.misses > maxEchoMisses {
				l.entries = l.entries[1:]
				continue
			}
			return
		}
	})
	l.expire(now)
}

func (l *echoLedger) expire(now time.Time) {
	keep := l.entries[:0]
	for _, e := range l.entries {
		if !e.submitted.IsZero() && now.Sub(e.submitted) > EchoWindow {
			continue
		}
		keep = append(keep, e)
	}
	clear(l.entries[len(keep):])
	l.entries = keep
}
