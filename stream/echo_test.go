package stream

import (
	"testing"
	"time"
)

// Typed keys a program never echoes (q to quit less) do not keep the echo
// of the next command from being masked.
func TestKeysThatNeverEchoDoNotStopLaterEchoBeingMasked(t *testing.T) {
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

// bash 5.2 redraws a bracketed paste after highlighting it (bytes captured
// with pipe-pane from bash --norc on tmux 3.3a): the redraw is masked as
// echo too, so a wait matches the command's output, not its echo.
func TestBashsRedrawOfABracketedPasteIsMaskedAsEcho(t *testing.T) {
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

// Untyping a call that typed nothing (send_keys ["Enter"] refused in copy
// mode) leaves the echo an earlier call typed masked.
func TestUntypingACallThatTypedNothingKeepsEarlierEchoMasked(t *testing.T) {
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
