package stream

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/internal/leaktest"
)

func TestMain(m *testing.M) { leaktest.Main(m) }

func mustMatcher(t *testing.T, regex bool, p ...string) *Matcher {
	t.Helper()
	m, err := NewMatcher(p, regex, 0)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// waitOn waits on s from offset from for m, for up to to.
func waitOn(t *testing.T, s *PaneStream, from int64, m *Matcher, to time.Duration) WaitResult {
	t.Helper()
	r, err := s.Wait(context.Background(), WaitSpec{From: from, Matcher: m, Timeout: to})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCaptureChainedPagesReadEverythingOnce(t *testing.T) {
	h := NewHub(1 << 20)
	var want strings.Builder
	for i := 1; i <= 2000; i++ {
		fmt.Fprintf(&want, "%d\n", i)
		// Split lines across appends at odd places, with CR LF and colour.
		h.Output(1, []byte(fmt.Sprintf("\x1b[3%dm%d\x1b[0m\r", i%8, i)))
		h.Output(1, []byte("\n"))
	}
	s, _ := h.Live(1)
	for _, pageBytes := range []int{1, 7, 100, 4096} {
		var got strings.Builder
		pos := int64(0)
		for n := 0; ; n++ {
			r := s.Capture(CaptureSpec{From: pos, MaxBytes: pageBytes})
			got.WriteString(r.Output)
			if r.Cursor < pos {
				t.Fatalf("cursor went back")
			}
			pos = r.Cursor
			if r.Remaining == 0 {
				break
			}
			if n > 1e6 {
				t.Fatal("no progress")
			}
		}
		if got.String() != want.String() {
			t.Fatalf("pages of %d bytes: output differs (got %d bytes want %d)", pageBytes, got.Len(), want.Len())
		}
	}
}

func TestWaitMatchesAcrossChunksAndColours(t *testing.T) {
	h := NewHub(1 << 20)
	s := h.Adopt(1)
	from := s.End()
	done := make(chan WaitResult)
	go func() {
		r, err := s.Wait(context.Background(), WaitSpec{From: from, Matcher: mustMatcher(t, false, "ERROR"), Timeout: 10 * time.Second})
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	h.Output(1, []byte("ok\r\nE"))
	h.Output(1, []byte("R\x1b[0mR"))
	h.Output(1, []byte("OR tail\r\n"))
	r := <-done
	if r.Outcome != Matched || r.Match.Text != "ERROR" {
		t.Fatalf("got %+v", r)
	}
	if r.Output != "ok\nERROR" {
		t.Fatalf("output %q", r.Output)
	}
	if r.Cursor != int64(len("ok\r\nER\x1b[0mROR")) {
		t.Fatalf("cursor %d", r.Cursor)
	}
	if r.MatchOffset != 4 {
		t.Fatalf("match offset %d", r.MatchOffset)
	}
}

func TestEchoOfTypedTextIsMasked(t *testing.T) {
	h := NewHub(1 << 20)
	s := h.Adopt(1)
	h.Output(1, []byte("$ "))
	now := time.Now()
	from := s.Typed("echo MARK", now).At
	h.Output(1, []byte("echo MA"))
	h.Output(1, []byte("RK"))
	ctx := context.Background()
	r, _ := s.Wait(ctx, WaitSpec{From: from, Matcher: mustMatcher(t, false, "MARK"), Timeout: 50 * time.Millisecond})
	if r.Outcome != TimedOut {
		t.Fatalf("echo matched: %+v", r)
	}
	s.Submitted(now)
	h.Output(1, []byte("\r\nMARK\r\n$ "))
	r, _ = s.Wait(ctx, WaitSpec{From: from, Matcher: mustMatcher(t, false, "MARK"), Timeout: time.Second})
	if r.Outcome != Matched || r.Output != "echo MARK\nMARK" {
		t.Fatalf("got %+v", r)
	}
}

func TestRegexAnchoredAtLineEndWaitsForTheLineToSettle(t *testing.T) {
	h := NewHub(1 << 20)
	s := h.Adopt(1)
	done := make(chan WaitResult)
	go func() {
		r, _ := s.Wait(context.Background(), WaitSpec{From: 0, Matcher: mustMatcher(t, true, `^300$`), Timeout: 5 * time.Second})
		done <- r
	}()
	h.Output(1, []byte("300"))
	h.Output(1, []byte("0000\r\n300\r\n"))
	r := <-done
	if r.Outcome != Matched || r.MatchOffset != int64(len("3000000\r\n")) {
		t.Fatalf("got %+v", r)
	}
	// A prompt without newline still matches once it settles.
	from := s.End()
	go func() {
		r, _ := s.Wait(context.Background(), WaitSpec{From: from, Matcher: mustMatcher(t, true, `\$ $`), Timeout: 5 * time.Second})
		done <- r
	}()
	h.Output(1, []byte("user@host:~$ "))
	if r := <-done; r.Outcome != Matched {
		t.Fatalf("prompt: %+v", r)
	}
}

func TestCatastrophicRegexEndsWithError(t *testing.T) {
	h := NewHub(1 << 20)
	s := h.Adopt(1)
	h.Output(1, []byte(strings.Repeat("a", 40)+"!\r\n"))
	start := time.Now()
	_, err := s.Wait(context.Background(), WaitSpec{From: 0, Matcher: mustMatcher(t, true, `^(a+)+$`), Timeout: 10 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "patterns[0]") {
		t.Fatalf("err = %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("took %v", time.Since(start))
	}
}

func TestWaitOutcomes(t *testing.T) {
	ctx := context.Background()
	h := NewHub(1 << 20)
	s := h.Adopt(1)
	h.Output(1, []byte("before\r\n"))
	from := s.End()
	h.Dropped(1)
	h.Output(1, []byte("after\r\n"))
	r, _ := s.Wait(ctx, WaitSpec{From: from, Matcher: mustMatcher(t, false, "nothing"), Timeout: time.Second})
	if r.Outcome != OutputLost || r.Failure != EventsDropped || r.Cursor != from+1 {
		t.Fatalf("gap: %+v", r)
	}
	r2, _ := s.Wait(ctx, WaitSpec{From: r.Cursor, Matcher: mustMatcher(t, false, "after"), Timeout: time.Second})
	if r2.Outcome != Matched {
		t.Fatalf("from the cursor after the gap: %+v", r2)
	}
	if c := s.Capture(CaptureSpec{From: from, MaxBytes: 100, Raw: true}); c.Failure != EventsDropped || c.Output != "after\r\n" {
		t.Fatalf("raw capture across the gap: %+v", c)
	}
	h.Sync(nil, time.Now().Add(time.Second))
	r, _ = s.Wait(ctx, WaitSpec{From: r.Cursor, Matcher: mustMatcher(t, false, "nothing"), Timeout: time.Second})
	if r.Outcome != PaneDied || r.Output != "after\n" {
		t.Fatalf("died: %+v", r)
	}
	s2 := h.Adopt(2)
	h.Lost()
	r, _ = s2.Wait(ctx, WaitSpec{From: 0, Matcher: mustMatcher(t, false, "x"), Timeout: time.Second})
	if r.Outcome != StreamLost || r.Failure != ConnectionLost || r.Cursor != -1 {
		t.Fatalf("lost: %+v", r)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	s3 := NewHub(0).Adopt(3)
	r, _ = s3.Wait(cctx, WaitSpec{From: 0, Matcher: mustMatcher(t, false, "x"), Timeout: time.Second})
	if r.Outcome != Cancelled {
		t.Fatalf("cancel: %+v", r)
	}
}

func TestEvictedBytesAreReportedMissed(t *testing.T) {
	h := NewHub(1000)
	s := h.Adopt(1)
	for i := 0; i < 100; i++ {
		h.Output(1, []byte(strings.Repeat("x", 99)+"\n"))
	}
	r := s.Capture(CaptureSpec{From: 0, MaxBytes: 10000})
	if r.Missed != 9000 || len(r.Output) != 1000 {
		t.Fatalf("missed %d output %d", r.Missed, len(r.Output))
	}
}

func TestRetainTotalEvictsLeastRecentlyWrittenPanesFirst(t *testing.T) {
	h := NewHub(4096)
	h.SetRetainTotal(6000)
	old := h.Adopt(1)
	h.Output(1, []byte(strings.Repeat("a", 4000)))
	time.Sleep(time.Millisecond) // distinct append times
	h.Output(2, []byte(strings.Repeat("b", 4000)))
	s2, _ := h.Live(2)
	if r := old.Capture(CaptureSpec{From: 0, MaxBytes: 10000}); r.Missed != 2000 {
		t.Fatalf("older pane missed %d, want 2000", r.Missed)
	}
	if r := s2.Capture(CaptureSpec{From: 0, MaxBytes: 10000}); r.Missed != 0 || len(r.Output) != 4000 {
		t.Fatalf("newer pane: missed %d, %d bytes", r.Missed, len(r.Output))
	}
}

func TestManyLiteralsFindTheEarliestEndingMatch(t *testing.T) {
	var pats []string
	for i := 0; i < 10; i++ {
		pats = append(pats, fmt.Sprintf("pattern-%d", i))
	}
	pats = append(pats, "x", "long pattern that ends late", "ends")
	m := mustMatcher(t, false, pats...)
	for _, c := range []struct {
		line  string
		index int
		text  string
	}{
		{"no match here", -1, ""},
		{"a pattern-7 b", 7, "pattern-7"},
		{"long pattern that ends late", 12, "ends"},
		{"pattern-3 then x", 3, "pattern-3"},
		{"xpattern-1", 10, "x"},
	} {
		got, ok, _ := m.Find([]byte(c.line), 0)
		if c.index < 0 {
			if ok {
				t.Errorf("%q matched %+v", c.line, got)
			}
			continue
		}
		if !ok || got.Index != c.index || got.Text != c.text {
			t.Errorf("%q: got %+v ok=%v, want %d %q", c.line, got, ok, c.index, c.text)
		}
	}
}

// A prompt, the echo of typed text and the command's output can arrive in
// one piece; the echo inside it is still masked, byte for byte.
func TestEchoInsideOneChunkIsMaskedExactly(t *testing.T) {
	h := NewHub(1 << 20)
	s := h.Adopt(1)
	now := time.Now()
	from := s.End()
	s.Typed("echo MARK", now)
	s.Submitted(now)
	chunk := "$ echo MARK\r\nxMARKy\r\n$ "
	h.Output(1, []byte(chunk))
	r, _ := s.Wait(context.Background(), WaitSpec{From: from, Matcher: mustMatcher(t, false, "MARK"), Timeout: time.Second})
	if r.Outcome != Matched || r.Output != "$ echo MARK\nxMARK" {
		t.Fatalf("got %+v", r)
	}
	if want := int64(strings.Index(chunk, "xMARK") + 1); r.MatchOffset != want {
		t.Fatalf("match offset %d, want %d", r.MatchOffset, want)
	}
	if want := int64(strings.Index(chunk, "xMARK") + 5); r.Cursor != want {
		t.Fatalf("cursor %d, want %d", r.Cursor, want)
	}
}

// The total bound is kept with a running count: it holds across many
// panes, and forgotten recordings stop counting.
func TestRetainTotalCountsWhatIsRetained(t *testing.T) {
	h := NewHub(1024)
	h.SetRetainTotal(64 << 10)
	for i := 0; i < 300; i++ {
		h.Output(i, bytes.Repeat([]byte{'x'}, 1000+i))
	}
	var sum int64
	for i := 0; i < 300; i++ {
		s, _ := h.Live(i)
		n, _ := s.retained()
		sum += n
	}
	if sum > 64<<10 || sum != h.retainedAll.Load() {
		t.Fatalf("retained %d, counted %d, bound %d", sum, h.retainedAll.Load(), 64<<10)
	}
	first, _ := h.Live(299)
	h.Lost()
	h.Reconnected()
	if n := h.retainedAll.Load(); n != 0 {
		t.Fatalf("forgotten recordings still count %d bytes", n)
	}
	if n := len(first.ring.buf()); n != 0 {
		t.Fatalf("a forgotten recording still holds a %d-byte buffer", n)
	}
	if r := first.ReadRaw(0, 1<<10, nil); len(r.Data) != 0 {
		t.Fatalf("a forgotten recording still reads %q", r.Data)
	}
}

// Tail reads the last lines of what is retained without a cursor, and its
// cursor continues with what comes next.
func TestTailReadsTheLastLinesAndContinuesAfterThem(t *testing.T) {
	h := NewHub(1 << 20)
	s := h.Adopt(1)
	for i := 1; i <= 5000; i++ {
		h.Output(1, []byte(fmt.Sprintf("\x1b[32mline %d\x1b[0m\r\n", i)))
	}
	h.Output(1, []byte("$ "))
	r := s.Tail(3, 1<<20, false)
	if r.Output != "line 4999\nline 5000\n$ " || r.Cursor != s.End() {
		t.Fatalf("last 3 lines: %q at %d (end %d)", r.Output, r.Cursor, s.End())
	}
	if r := s.Tail(0, 12, false); r.Output != "line 5000\n$ " {
		t.Fatalf("last 12 bytes: %q", r.Output)
	}
	if r := s.Tail(1, 1<<20, true); r.Output != "$ " {
		t.Fatalf("raw last line: %q", r.Output)
	}
	h.Output(1, []byte("next\r\n"))
	if c := s.Capture(CaptureSpec{From: r.Cursor, MaxBytes: 100}); c.Output != "next\n" {
		t.Fatalf("after the tail's cursor: %q", c.Output)
	}
	if r := h.Adopt(2).Tail(5, 100, false); r.Output != "" || r.Cursor != 0 {
		t.Fatalf("nothing retained: %+v", r)
	}
}
