package stream

import (
	"strings"
	"testing"
)

// Output ending in a lone CR ("50%\r") does not leave capture_since
// reporting remaining bytes forever without moving its cursor.
func TestCaptureOfOutputEndingInALoneCRMakesProgress(t *testing.T) {
	h := NewHub(1 << 20)
	s := h.Adopt(1)
	h.Output(1, []byte("50%\r"))
	r := s.Capture(CaptureSpec{From: 0, MaxBytes: 100})
	r2 := s.Capture(CaptureSpec{From: r.Cursor, MaxBytes: 100})
	if r2.Remaining != 0 && r2.Cursor == r.Cursor {
		t.Fatalf("no progress: cursor %d remaining %d output %q", r2.Cursor, r2.Remaining, r2.Output)
	}
}

// A raw capture page cut at its byte limit ends on a rune boundary, so
// its output is valid UTF-8 (JSON would turn a split rune into U+FFFD).
func TestRawCapturePagesNeverSplitARune(t *testing.T) {
	h := NewHub(1 << 20)
	s := h.Adopt(1)
	h.Output(1, []byte(strings.Repeat("a", 15)+"é"))
	r := s.Capture(CaptureSpec{From: 0, MaxBytes: 16, Raw: true})
	if !isValid(r.Output) {
		t.Fatalf("raw page %q is not valid UTF-8", r.Output)
	}
}

// isValid says s is valid UTF-8.
func isValid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

// Paging a capture one line at a time gives what one capture gives, even
// when a line break falls inside an escape sequence (a page must not stop
// mid-sequence and decode the rest of its parameters as text).
func TestCapturePagedByLinesEqualsOneCaptureWhenASequenceSpansLines(t *testing.T) {
	h := NewHub(1 << 20)
	s := h.Adopt(1)
	h.Output(1, []byte("x\n\x1b[1\n2my\n"))
	var all strings.Builder
	pos := int64(0)
	for i := 0; i < 10; i++ {
		r := s.Capture(CaptureSpec{From: pos, MaxBytes: 100, MaxLines: 1})
		all.WriteString(r.Output)
		pos = r.Cursor
		if r.Remaining == 0 {
			break
		}
	}
	one := s.Capture(CaptureSpec{From: 0, MaxBytes: 100})
	if all.String() != one.Output {
		t.Fatalf("paged %q != whole %q", all.String(), one.Output)
	}
}
