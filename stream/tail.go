package stream

import (
	"bytes"
	"unicode/utf8"
)

// tail keeps the last limit bytes written to it (cut at a rune boundary)
// and counts what it let go.
type tail struct {
	buf          []byte
	limit        int
	omittedBytes int64
	droppedLines int64 // newlines in the omitted bytes
}

func (t *tail) write(p []byte) {
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*t.limit+4096 {
		t.trim()
	}
}

func (t *tail) trim() {
	if len(t.buf) <= t.limit {
		return
	}
	cut := len(t.buf) - t.limit
	for cut < len(t.buf) && !utf8.RuneStart(t.buf[cut]) {
		cut++
	}
	t.omittedBytes += int64(cut)
	t.droppedLines += int64(bytes.Count(t.buf[:cut], nl))
	t.buf = append(t.buf[:0], t.buf[cut:]...)
}

// result returns the kept text, at most maxLines lines of it from the end
// (maxLines <= 0: no line limit), with everything cut counted.
func (t *tail) result(maxLines int) (text string, omittedBytes, droppedLines int64) {
	t.trim()
	b := t.buf
	if maxLines > 0 {
		// Lines end at "\n"; a trailing partial line counts as one.
		n := 0
		i := len(b)
		if i > 0 && b[i-1] == '\n' {
			i--
		}
		for ; i > 0; i-- {
			if b[i-1] == '\n' {
				n++
				if n == maxLines {
					break
				}
			}
		}
		if i > 0 {
			t.omittedBytes += int64(i)
			t.droppedLines += int64(bytes.Count(b[:i], nl))
			b = b[i:]
		}
	}
	if t.omittedBytes > 0 && len(b) > 0 && t.droppedLines == 0 {
		t.droppedLines = 1 // part of a line was cut
	}
	return string(b), t.omittedBytes, t.droppedLines
}
