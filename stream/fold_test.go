package stream

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// foldChunks folds raw fed in the given pieces, as output arrives.
func foldChunks(pieces ...[]byte) (string, int64) {
	var s bufferSink
	f := NewFold(&s)
	p := NewPlain(0)
	for _, c := range pieces {
		p.FeedTerminal(c, f.Text, f.Control)
	}
	p.FlushTerminal(f.Text, f.Control)
	f.Flush()
	return string(s.b), f.Redraws()
}

func TestOutputIsFoldedAsATerminalShowsIt(t *testing.T) {
	bar := "start\r\n"
	for i := 1; i <= 100; i++ {
		bar += fmt.Sprintf("\rprogress %d%%", i)
	}
	bar += "\r\ndone\r\n"
	cases := []struct {
		name, in, want string
		redraws        int64
	}{
		{"a line redrawn with CR shows its last state", "10%\r20%\r30%\n", "30%\n", 2},
		{"a 100-step bar between two log lines is 3 lines", bar, "start\nprogress 100%\ndone\n", 99},
		{"a shorter redraw keeps the tail", "abcdef\rXY\n", "XYcdef\n", 1},
		{"EL erases the tail", "abcdef\rXY\x1b[K\n", "XY\n", 1},
		{"EL 0 explicit", "abcdef\r\x1b[0KXY\n", "XY\n", 1},
		{"EL 2 then CR is a clean line", "abcdef\x1b[2K\rXY\n", "XY\n", 1},
		{"EL 1 blanks up to the cursor", "abcdef\x1b[3D\x1b[1K\n", "    ef\n", 1},
		{"CR LF is an ordinary line end", "one\r\ntwo\r\n", "one\ntwo\n", 0},
		{"CR CR LF is one line end", "one\r\r\ntwo", "one\ntwo", 0},
		{"a CR at a line start is nothing", "\rls\r\n\rout\r\n", "ls\nout\n", 0},
		{"a trailing CR before the line end folds nothing", "50%\r\x1b[0m\n", "50%\n", 0},
		{"cursor to column 1", "abcdef\x1b[1GXY\n", "XYcdef\n", 1},
		{"cursor to column 1 without a count", "abcdef\x1b[GX\n", "Xbcdef\n", 1},
		{"cursor back n", "abcdef\x1b[3DXY\n", "abcXYf\n", 1},
		{"backspace spinner", "work -\b\\\b|\b/\bdone\n", "work done\n", 4},
		{"cursor forward pads", "ab\x1b[3Cc\n", "ab   c\n", 0},
		{"colours stay out", "\x1b[32m10%\x1b[0m\r\x1b[32m20%\x1b[0m\n", "20%\n", 1},
		{"multi-line bar redrawn with cursor up", "a 1\nb 1\n\x1b[2A\x1b[2Ka 2\n\x1b[2Kb 2\nend\n", "a 2\nb 2\nend\n", 2},
		{"cursor up then CR then erase", "l1\nl2\n\x1b[1A\r\x1b[2KL2\n", "l1\nL2\n", 1},
		{"cursor previous line", "x\ny\n\x1b[2Fz\x1b[K\n", "z\ny\n", 1},
		{"cursor up past the top stays at the top", "a\n\x1b[9Ab\n", "b\n", 1},
		{"rich-style clear then redraw", "p 1\nq 1\n\r\x1b[2K\x1b[1A\x1b[2K\x1b[1A\x1b[2Kp 2\nq 2\n", "p 2\nq 2\n", 2},
		{"erase below drops the rows under the cursor", "a\nb\nc\n\x1b[3A\x1b[JA\n", "A\n", 1},
		{"a partial last line is kept", "a\nprompt> ", "a\nprompt> ", 0},
		{"a partial last line redrawn", "a\n1/3\r2/3\r3/3", "a\n3/3", 2},
		{"what a full-screen program draws on the alternate screen is gone when it leaves, as on a terminal", "\x1b[?1049h\x1b[Htop   \r\nrow 2      \x1b[K\r\n\x1b[?1049l", AltScreenLine + "\n", 0},
		{"output before and after a full-screen program stays, its screen between them is one line", "before\r\nhalf\x1b[?1049h\x1b[H~        \x1b[5;1H~   \x1b[?1049lafter\r\n", "before\nhalf\n" + AltScreenLine + "\nafter\n", 0},
		{"a screen cleared and drawn with cursor placement loses its padding", "\x1b[2J\x1b[Htop   \r\nrow 2      \r\n", "top\nrow 2\n", 0},
		{"cursor placing is full-screen", "\x1b[1;1Hhead   \r\n", "head\n", 0},
		{"a blank row a full-screen program leaves before the alternate screen adds no empty line", "\x1b[1;1Hab\r\n   \x1b[?1049hvi\x1b[?1049l", "ab\n" + AltScreenLine + "\n", 0},
		{"ordinary trailing spaces are kept", "keep   \n", "keep   \n", 0},
		{"wide characters overwrite by character", "日本語\rab\n", "ab語\n", 1},
		{"tabs are one column", "a\tb\rX\n", "X\tb\n", 1},
		{"invalid UTF-8", "\xff\xfe\rA\n", "A\uFFFD\n", 1},
	}
	for _, c := range cases {
		got, n := foldChunks([]byte(c.in))
		if got != c.want || n != c.redraws {
			t.Errorf("%s: %q folds to %q (%d redraws), want %q (%d)", c.name, c.in, got, n, c.want, c.redraws)
		}
	}
}

// The lines given before the cursor comes back up are taken back exactly:
// what the sink holds is at every moment the rows settled so far.
func TestTheSinkHoldsTheSettledRowsAtEveryStep(t *testing.T) {
	var frames strings.Builder
	frames.WriteString("building\n")
	for i := 0; i < 50; i++ {
		if i > 0 {
			frames.WriteString("\x1b[3A")
		}
		for _, l := range []string{"layer a", "layer b", "layer c"} {
			fmt.Fprintf(&frames, "\x1b[2K%s %d/49\n", l, i)
		}
	}
	frames.WriteString("built\n")
	var s bufferSink
	f := NewFold(&s)
	p := NewPlain(0)
	for _, b := range []byte(frames.String()) {
		p.FeedTerminal([]byte{b}, f.Text, f.Control)
		if bytes.Count(s.b, []byte("\n")) > 5 {
			t.Fatalf("the sink holds more rows than the screen: %q", s.b)
		}
	}
	f.Flush()
	want := "building\nlayer a 49/49\nlayer b 49/49\nlayer c 49/49\nbuilt\n"
	if string(s.b) != want || f.Redraws() != 49*3 {
		t.Fatalf("got %q (%d redraws), want %q (%d)", s.b, f.Redraws(), want, 49*3)
	}
}

// Pending shows the rows being drawn as a terminal shows them now.
func TestPendingIsTheLineBeingDrawn(t *testing.T) {
	var s bufferSink
	f := NewFold(&s)
	p := NewPlain(0)
	p.FeedTerminal([]byte("log\r\n10%\r20%"), f.Text, f.Control)
	if string(s.b) != "log\n" || string(f.Pending()) != "20%" {
		t.Fatalf("settled %q, pending %q", s.b, f.Pending())
	}
	p.FeedTerminal([]byte("\r\n"), f.Text, f.Control)
	if string(s.b) != "log\n20%\n" || len(f.Pending()) != 0 {
		t.Fatalf("settled %q, pending %q", s.b, f.Pending())
	}
}

// A line longer than a terminal could hold is given as it grows, so a Fold
// holds a bounded amount whatever a program prints without a line feed,
// and the line stays one line, byte for byte.
func TestAnEndlessLineIsGivenAsItGrowsAndStaysOneLine(t *testing.T) {
	var s bufferSink
	f := NewFold(&s)
	p := NewPlain(0)
	chunk := bytes.Repeat([]byte("x"), 10000)
	for i := 0; i < 100; i++ {
		p.FeedTerminal(chunk, f.Text, f.Control)
	}
	if len(f.Pending()) > foldLine || len(s.b) < 1000000-foldLine {
		t.Fatalf("held %d bytes, gave %d", len(f.Pending()), len(s.b))
	}
	p.FeedTerminal([]byte("\r\n"), f.Text, f.Control)
	f.Flush()
	if want := strings.Repeat("x", 1000000) + "\n"; string(s.b) != want {
		t.Fatalf("the long line came out as %d bytes with %d line feeds", len(s.b), bytes.Count(s.b, []byte("\n")))
	}
}

func FuzzFold(f *testing.F) {
	f.Add([]byte("abcdef\rXY\x1b[K\n"), 3)
	f.Add([]byte("a 1\nb 1\n\x1b[2A\x1b[2Ka 2\n\x1b[2Kb 2\n"), 9)
	f.Add([]byte("\x1b[?1049h\x1b[Htop   \r\n\x1b[5Cx\x1b[1K\x1b[?1049l"), 4)
	f.Add([]byte("日本語\rab\b\b\x1b[3C\xff\n\x1b[9A\x1b[J"), 7)
	f.Fuzz(func(t *testing.T, in []byte, split int) {
		if split < 0 || split > len(in) {
			split = len(in) / 2
		}
		once, n := FoldText(in)
		if two, n2 := foldChunks(in[:split], in[split:]); two != string(once) || n2 != n {
			t.Fatalf("split at %d changes the fold: %q (%d) vs %q (%d)", split, two, n2, once, n)
		}
		again, n3 := FoldText(once)
		if !bytes.Equal(again, once) || n3 != 0 {
			t.Fatalf("folding the fold changes it: %q -> %q (%d redraws)", once, again, n3)
		}
		if !bytes.Equal(once, bytes.ToValidUTF8(once, nil)) || bytes.ContainsAny(once, "\r\x1b") {
			t.Fatalf("fold out has CR, ESC or invalid UTF-8: %q", once)
		}
	})
}
