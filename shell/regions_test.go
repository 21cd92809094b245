package shell

import (
	"testing"
)

// masked returns which bytes of data InputRegions masks when data arrives
// split at the given points.
func masked(tag string, data []byte, splits ...int) []bool {
	r := NewInputRegions(tag, 0)
	out := make([]bool, len(data))
	mask := func(s, e int64) {
		for i := s; i < e; i++ {
			out[i] = true
		}
	}
	prev := 0
	for _, at := range append(splits, len(data)) {
		at = min(max(at, prev), len(data))
		r.Scan(data[prev:at], int64(prev), mask)
		prev = at
	}
	return out
}

func TestInputRegionsMaskWhatTheLineEditorDraws(t *testing.T) {
	in := "\x1b]133;A;tmuxmcp=sT\x07$ \x1b]133;B;tmuxmcp=sT\x07echo hi\x08\x08hi\r\n\x1b]133;C;tmuxmcp=sT\x07hi\r\n\x1b]133;D;0;tmuxmcp=sT\x07"
	got := masked("T", []byte(in))
	var text []byte
	for i, m := range got {
		if m {
			text = append(text, in[i])
		}
	}
	if string(text) != "echo hi\x08\x08hi\r\n" {
		t.Fatalf("masked %q", text)
	}
	// Marks of another shell (or untagged, a terminal's own) open nothing.
	for _, other := range []string{"\x1b]133;B;tmuxmcp=sX\x07typed", "\x1b]133;B\x07typed"} {
		for _, m := range masked("T", []byte(other)) {
			if m {
				t.Fatalf("%q: masked", other)
			}
		}
	}
}

func FuzzInputRegions(f *testing.F) {
	f.Add([]byte("\x1b]133;B;tmuxmcp=sT\x07typed\x1b]133;C;tmuxmcp=sT\x07out"), 5, 20)
	f.Add([]byte("\x1b]133;B;tmuxmcp=sT\x1b\\x\x1b]133;A;tmuxmcp=sT\x07"), 3, 9)
	f.Fuzz(func(t *testing.T, data []byte, a, b int) {
		if a < 0 || b < 0 {
			return
		}
		whole := masked("T", data)
		split := masked("T", data, a, a+b)
		for i := range whole {
			if whole[i] != split[i] {
				t.Fatalf("splitting at %d and %d changes byte %d: %v vs %v", a, a+b, i, whole[i], split[i])
			}
		}
	})
}
