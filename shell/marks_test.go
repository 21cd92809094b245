package shell

import (
	"bytes"
	"testing"
)

func TestMarkScannerAcrossPieces(t *testing.T) {
	in := "echo x\r\n\x1b]133;C;tmuxmcp=j1\x07x\r\n\x1b]133;D;3;tmuxmcp=j1\x1b\\\x1b]133;A\x07$ "
	for split := 0; split <= len(in); split++ {
		s := NewMarkScanner(100)
		marks := append(s.Feed([]byte(in[:split])), s.Feed([]byte(in[split:]))...)
		if len(marks) != 3 {
			t.Fatalf("split %d: %d marks %+v", split, len(marks), marks)
		}
		c, d, a := marks[0], marks[1], marks[2]
		if c.Kind != 'C' || c.Tag != "j1" || c.Start != 108 || d.Kind != 'D' || d.Status != 3 || d.Tag != "j1" || a.Kind != 'A' {
			t.Fatalf("split %d: %+v", split, marks)
		}
		if in[c.Start-100:c.End-100] != "\x1b]133;C;tmuxmcp=j1\x07" {
			t.Fatalf("split %d: range %d..%d", split, c.Start, c.End)
		}
	}
}

func TestMarkScannerIgnoresEchoOfWrapper(t *testing.T) {
	// What a shell echoes when the wrapper is typed: backslash escapes, no ESC.
	echo := `printf '\033]133;C;tmuxmcp=%s\007' j1; eval "$(cat f)"`
	if m := NewMarkScanner(0).Feed([]byte(echo)); len(m) != 0 {
		t.Fatalf("echo produced marks: %+v", m)
	}
}

func FuzzMarkScanner(f *testing.F) {
	f.Add([]byte("\x1b]133;D;0\x07"), 3)
	f.Fuzz(func(t *testing.T, b []byte, split int) {
		if split < 0 || split > len(b) {
			split = 0
		}
		one := NewMarkScanner(0).Feed(b)
		s := NewMarkScanner(0)
		two := append(s.Feed(b[:split]), s.Feed(b[split:])...)
		if len(one) != len(two) {
			t.Fatalf("split changes marks: %v vs %v", one, two)
		}
	})
}

// A recording carries no mark tag: each tmuxmcp=<tag> value is blanked in
// place (offsets do not move), and so is a tag's tail cut by eviction.
func TestBlankTagsLeavesNoTagInARecording(t *testing.T) {
	data := []byte("81af\x07$ \x1b]133;B;tmuxmcp=s1e51874771a77c0a\x07ls\r\n\x1b]133;D;0;tmuxmcp=01abc\x1b\\done")
	want := "xxxx\x07$ \x1b]133;B;tmuxmcp=xxxxxxxxxxxxxxxxx\x07ls\r\n\x1b]133;D;0;tmuxmcp=xxxxx\x1b\\done"
	got := bytes.Clone(data)
	BlankTags(got, true)
	if string(got) != want {
		t.Fatalf("blanked %q, want %q", got, want)
	}
	got = bytes.Clone(data)
	BlankTags(got, false)
	if string(got[:4]) != "81af" {
		t.Fatalf("output at the start of an uncut recording was blanked: %q", got)
	}
}
