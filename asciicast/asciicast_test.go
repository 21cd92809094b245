package asciicast

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func record(t *testing.T, h Header, f func(w *Writer)) (Header, []Event, string) {
	t.Helper()
	var b bytes.Buffer
	w, err := NewWriter(&b, h)
	if err != nil {
		t.Fatal(err)
	}
	f(w)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	gh, ev, err := Read(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatalf("%v in:\n%s", err, b.String())
	}
	return gh, ev, b.String()
}

// A character whose bytes arrive in two writes is written whole, in the
// later event, so every event is valid UTF-8 and the output reads back
// byte for byte.
func TestACharacterSplitAcrossWritesStaysWhole(t *testing.T) {
	text := []byte("héllo → wörld ✓\r\n")
	_, ev, _ := record(t, Header{Width: 80, Height: 24}, func(w *Writer) {
		for i := range text { // one byte at a time: every character split
			_ = w.Output(time.Duration(i)*time.Millisecond, text[i:i+1])
		}
	})
	var got strings.Builder
	for _, e := range ev {
		if e.Code != Output {
			t.Fatalf("event %v: want output only", e)
		}
		got.WriteString(e.Data)
	}
	if got.String() != string(text) {
		t.Fatalf("read back %q, want %q", got.String(), text)
	}
}

// Bytes that are not UTF-8 become U+FFFD, one each, and a character cut
// off by lost output (Cut) or by the end becomes one U+FFFD.
func TestBytesThatAreNotTextBecomeReplacementCharacters(t *testing.T) {
	_, ev, _ := record(t, Header{Width: 80, Height: 24}, func(w *Writer) {
		_ = w.Output(0, []byte("a\xff\xfeb\xe2\x86"))
		_ = w.Cut(time.Second)
		_ = w.Output(2*time.Second, []byte("c\xe2"))
	})
	var got strings.Builder
	for _, e := range ev {
		got.WriteString(e.Data)
	}
	if want := "a\uFFFD\uFFFDb\uFFFDc\uFFFD"; got.String() != want {
		t.Fatalf("read back %q, want %q", got.String(), want)
	}
}

// The header carries the size, start time, title and idle limit; markers
// are "m" events; times never go backwards.
func TestHeaderMarkersAndTimes(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	h, ev, raw := record(t, Header{Width: 120, Height: 40, Timestamp: start, Title: "pane %3 <x>", IdleTimeLimit: 2 * time.Second}, func(w *Writer) {
		_ = w.Output(1500*time.Millisecond, []byte("$ "))
		_ = w.Marker(1500*time.Millisecond, "$ echo hi")
		_ = w.Output(time.Second, []byte("hi\r\n")) // earlier than the last: written at it
	})
	if h.Width != 120 || h.Height != 40 || !h.Timestamp.Equal(start) || h.Title != "pane %3 <x>" || h.IdleTimeLimit != 2*time.Second {
		t.Fatalf("header read back %+v", h)
	}
	if !strings.HasPrefix(raw, `{"version":2,"width":120,"height":40,`) {
		t.Fatalf("header line %q", strings.SplitN(raw, "\n", 2)[0])
	}
	want := []Event{{1.5, Output, "$ "}, {1.5, Marker, "$ echo hi"}, {1.5, Output, "hi\r\n"}}
	if len(ev) != len(want) {
		t.Fatalf("events %v, want %v", ev, want)
	}
	for i := range want {
		if ev[i] != want[i] {
			t.Fatalf("event %d = %v, want %v", i, ev[i], want[i])
		}
	}
}

func TestASizeIsRequired(t *testing.T) {
	if _, err := NewWriter(&bytes.Buffer{}, Header{}); err == nil || !strings.Contains(err.Error(), "width and height") {
		t.Fatalf("NewWriter without a size: %v", err)
	}
}
