package shell

import (
	"strings"
	"testing"
)

// masked returns which bytes of data InputRegions masks when data arrives
// split at the given points, with tmuxmcp's input sent at offset input
// (none when negative).
func masked(tag string, data []byte, input int, splits ...int) []bool {
	r := NewInputRegions(tag, 0)
	out := make([]bool, len(data))
	mask := func(s, e int64) {
		for i := s; i < e; i++ {
			out[i] = true
		}
	}
	prev := 0
	noted := input < 0
	scan := func(to int) {
		to = min(max(to, prev), len(data))
		r.Scan(data[prev:to], int64(prev), mask)
		prev = to
	}
	for _, at := range append(splits, len(data)) {
		if !noted && input <= at {
			scan(input)
			r.Input(int64(min(max(input, prev), len(data))), true)
			noted = true
		}
		scan(at)
	}
	return out
}

func maskedText(tag, in string, input int) string {
	var text []byte
	for i, m := range masked(tag, []byte(in), input) {
		if m {
			text = append(text, in[i])
		}
	}
	return string(text)
}

func TestInputRegionsMaskWhatTheLineEditorDrawsForTmuxmcpsInput(t *testing.T) {
	prompt := "\x1b]133;A;tmuxmcp=sT\x07$ \x1b]133;B;tmuxmcp=sT\x07"
	in := prompt + "echo hi\x08\x08hi\r\n\x1b]133;C;tmuxmcp=sT\x07hi\r\n\x1b]133;D;0;tmuxmcp=sT\x07"
	if got := maskedText("T", in, len(prompt)); got != "echo hi\x08\x08hi\r\n" {
		t.Fatalf("masked %q", got)
	}
	// Marks of another shell (or untagged, a terminal's own) open nothing.
	for _, other := range []string{"\x1b]133;B;tmuxmcp=sX\x07typed", "\x1b]133;B\x07typed"} {
		if got := maskedText("T", other, strings.Index(other, "typed")); got != "" {
			t.Fatalf("%q: masked %q", other, got)
		}
	}
}

func TestInputRegionsLeaveOutputAtThePromptVisible(t *testing.T) {
	// A background job prints at the prompt, then tmuxmcp types a command.
	prompt := "\x1b]133;A;tmuxmcp=sT\x07$ \x1b]133;B;tmuxmcp=sT\x07"
	bg := "server listening on :8080\r\n"
	in := prompt + bg + "echo hi\r\n\x1b]133;C;tmuxmcp=sT\x07hi\r\n"
	if got := maskedText("T", in, len(prompt+bg)); got != "echo hi\r\n" {
		t.Fatalf("masked %q", got)
	}
	// Nobody typed at all: nothing is masked.
	if got := maskedText("T", prompt+bg, -1); got != "" {
		t.Fatalf("masked %q with no input", got)
	}
	// Input announced and then not sent masks nothing.
	r := NewInputRegions("T", 0)
	r.Scan([]byte(prompt), 0, func(int64, int64) {})
	r.Input(int64(len(prompt)), true)
	r.Input(int64(len(prompt)), false)
	r.Scan([]byte(bg), int64(len(prompt)), func(s, e int64) { t.Fatalf("masked %d-%d after the input was taken back", s, e) })
}

func FuzzInputRegions(f *testing.F) {
	f.Add([]byte("\x1b]133;B;tmuxmcp=sT\x07typed\x1b]133;C;tmuxmcp=sT\x07out"), 5, 20, 19)
	f.Add([]byte("\x1b]133;B;tmuxmcp=sT\x1b\\x\x1b]133;A;tmuxmcp=sT\x07"), 3, 9, 20)
	f.Fuzz(func(t *testing.T, data []byte, a, b, input int) {
		if a < 0 || b < 0 {
			return
		}
		input = min(input, len(data))
		whole := masked("T", data, input)
		split := masked("T", data, input, a, a+b)
		for i := range whole {
			if whole[i] != split[i] {
				t.Fatalf("splitting at %d and %d changes byte %d: %v vs %v", a, a+b, i, whole[i], split[i])
			}
		}
	})
}
