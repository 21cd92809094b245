// Regression tests for findings of the stream review (R1..R11).
package stream

import (
	"context"
	"strings"
	"testing"
	"time"
)

func waitOn(t *testing.T, s *PaneStream, from int64, m *Matcher, to time.Duration) WaitResult {
	t.Helper()
	r, err := s.Wait(context.Background(), WaitSpec{From: from, Matcher: m, Timeout: to})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// R1: an empty-width regex match panics (textEnd[m.End-1] with End==0).
func TestReviewEmptyRegexMatchPanics(t *testing.T) {
	h := NewHub(1 << 20)
	s := h.Adopt(1)
	h.Output(1, []byte("abc\n"))
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("panic: %v", p)
		}
	}()
	waitOn(t, s, 0, mustMatcher(t, true, "x*"), 100*time.Millisecond)
}

// R2: a tentative regex match is dropped when the pane dies / the wait times out.
func TestReviewTentativeLostOnDeath(t *testing.T) {
	h := NewHub(1 << 20)
	s := h.Adopt(1)
	h.Output(1, []byte("user@host:~$ "))
	h.Sync([]PaneState{{Pane: 1, Dead: true}}, time.Now())
	r := waitOn(t, s, 0, mustMatcher(t, true, `\$ $`), time.Second)
	if r.Outcome != Matched {
		t.Fatalf("outcome %s, want matched (prompt was printed)", r.Outcome)
	}
}

func TestReviewTentativeLostOnTimeout(t *testing.T) {
	h := NewHub(1 << 20)
	s := h.Adopt(1)
	go func() {
		for i := 0; i < 30; i++ {
			h.Output(1, []byte("."))
			time.Sleep(10 * time.Millisecond)
		}
	}()
	h.Output(1, []byte("Downloading"))
	r := waitOn(t, s, 0, mustMatcher(t, true, `Downloading.*`), 200*time.Millisecond)
	if r.Outcome != Matched {
		t.Fatalf("outcome %s, want matched ('Downloading' was on the line from the start)", r.Outcome)
	}
}

// R3: a ledger entry whose echo never comes (q to quit less) blocks masking of later echo.
func TestReviewStaleEntryBlocksEcho(t *testing.T) {
	h := NewHub(1 << 20)
	s := h.Adopt(1)
	h.Output(1, []byte("(END)"))
	now := time.Now()
	s.Typed("q", now) // send_keys ["q"]: less does not echo it
	h.Output(1, []byte("\r\x1b[K\x1b[?1049l$ "))
	at := s.Typed("echo MARK", now).At
	s.Submitted(now)
	h.Output(1, []byte("echo MARK\r\nMARK\r\n$ "))
	r := waitOn(t, s, at, mustMatcher(t, false, "MARK"), 100*time.Millisecond)
	if r.Outcome != Matched || r.MatchOffset != at+int64(len("echo MARK\r\n")) {
		t.Fatalf("outcome %s matchOffset %d output %q: matched the echo", r.Outcome, r.MatchOffset, r.Output)
	}
}

// R4: a stream ending in a lone CR: capture_since says remainingBytes=1 forever, no progress.
func TestReviewCaptureTrailingCRNoProgress(t *testing.T) {
	h := NewHub(1 << 20)
	s := h.Adopt(1)
	h.Output(1, []byte("50%\r"))
	r := s.Capture(CaptureSpec{From: 0, MaxBytes: 100})
	r2 := s.Capture(CaptureSpec{From: r.Cursor, MaxBytes: 100})
	if r2.Remaining != 0 && r2.Cursor == r.Cursor {
		t.Fatalf("no progress: cursor %d remaining %d output %q", r2.Cursor, r2.Remaining, r2.Output)
	}
}

// R5: raw pages split a rune: output is not valid UTF-8 (JSON turns it into U+FFFD).
func TestReviewRawPageSplitsRune(t *testing.T) {
	h := NewHub(1 << 20)
	s := h.Adopt(1)
	h.Output(1, []byte(strings.Repeat("a", 15)+"é"))
	r := s.Capture(CaptureSpec{From: 0, MaxBytes: 16, Raw: true})
	if !isValid(r.Output) {
		t.Fatalf("raw page %q is not valid UTF-8", r.Output)
	}
}

func isValid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

// R6: OSC title with non-ASCII leaks into plain text.
func TestReviewOSCTitleUTF8(t *testing.T) {
	var got []byte
	p := NewPlain(0)
	p.Feed([]byte("\x1b]0;café ✔ done\x07X\n"), func(b []byte, s, e int64) { got = append(got, b...) })
	if string(got) != "X\n" {
		t.Fatalf("plain = %q", got)
	}
}

// R7: CR CR LF (ONLCR of a program's CRLF) gives two newlines.
func TestReviewCRCRLF(t *testing.T) {
	var got []byte
	p := NewPlain(0)
	p.Feed([]byte("a\r\r\nb\r\r\n"), func(b []byte, s, e int64) { got = append(got, b...) })
	if string(got) != "a\nb\n" {
		t.Fatalf("plain = %q", got)
	}
}

// R8: bash 5.2 redraws a bracketed paste after highlighting it (bytes captured with pipe-pane
// from bash --norc on tmux 3.3a): the redraw is not masked, so the wait matches the echo.
func TestReviewBracketedPasteRedraw(t *testing.T) {
	h := NewHub(1 << 20)
	s := h.Adopt(1)
	h.Output(1, []byte("\x1b[?2004h$ "))
	at := s.Typed("echo one\necho two", time.Now()).At
	s.Submitted(time.Now())
	h.Output(1, []byte("\x1b[3mecho one\x1b[23m\r\n\r\x1b[3mecho two\x1b[23m\x1bM\r$ echo one\r\n\recho two\r\n\x1b[?2004l\rone\r\ntwo\r\n"))
	r := waitOn(t, s, at, mustMatcher(t, false, "two"), 100*time.Millisecond)
	if r.Match == nil || r.MatchOffset != int64(len("\x1b[3mecho one\x1b[23m\r\n\r\x1b[3mecho two\x1b[23m\x1bM\r$ echo one\r\n\recho two\r\n\x1b[?2004l\r"))+at+int64(len("one\r\n")) {
		t.Fatalf("matched %+v at %d: the redrawn echo", r.Match, r.MatchOffset)
	}
}

// R9: Untype removes an earlier call's entry when this call typed nothing.
func TestReviewUntypeRemovesOtherEntry(t *testing.T) {
	h := NewHub(1 << 20)
	s := h.Adopt(1)
	at := s.Typed("echo MARK", time.Now()).At
	empty := s.Typed("", time.Now()) // send_keys ["Enter"] -> refused (copy mode) -> Untype
	s.Untype(empty)
	s.Submitted(time.Now())
	h.Output(1, []byte("echo MARK\r\nMARK\r\n"))
	r := waitOn(t, s, at, mustMatcher(t, false, "MARK"), 100*time.Millisecond)
	if r.MatchOffset != at+int64(len("echo MARK\r\n")) {
		t.Fatalf("matched echo at %d", r.MatchOffset)
	}
}

// R10: out-of-order listings: a stale "dead" listing ends the respawned pane's new stream.
func TestReviewStaleListingEndsRespawned(t *testing.T) {
	h := NewHub(1 << 20)
	h.Adopt(1)
	t1 := time.Now()
	h.Sync([]PaneState{{Pane: 1, Dead: true}}, t1) // pane died
	t2 := time.Now()
	h.Sync([]PaneState{{Pane: 1}}, t2) // listing B (newer): respawned
	s2, _ := h.Live(1)
	h.Sync([]PaneState{{Pane: 1, Dead: true}}, t1) // listing A (older) applied late
	if ended, _, _ := s2.Ended(); ended {
		t.Fatal("respawned pane's live stream ended by a stale listing")
	}
}

// R11: a lone-CR within a CSI: capture stops mid-sequence, next page decodes parameters as text.
func TestReviewCaptureStopInsideCSI(t *testing.T) {
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
