package tmux

import "testing"

// Held output of a pane is handed on once it is full, or once nothing
// already read from tmux completes another line (the next line is still to
// come, so holding it would add latency).
func TestHeldOutputIsHandedOnWhenFullOrNoLineIsBuffered(t *testing.T) {
	for _, tc := range []struct {
		name     string
		held     int
		buffered string
		want     bool
	}{
		{"nothing buffered", 10, "", true},
		{"a partial line buffered", 10, "%output %1 ab", true},
		{"a whole line buffered", 10, "%output %1 ab\n", false},
		{"a line and a partial one", 10, "%output %1 a\n%out", false},
		{"full with a line buffered", maxCoalesce, "%output %1 ab\n", true},
		{"just under full", maxCoalesce - 1, "%output %1 ab\n", false},
		{"over full", maxCoalesce + 1, "\n", true},
	} {
		if got := coalesceEnds(tc.held, []byte(tc.buffered)); got != tc.want {
			t.Errorf("%s: coalesceEnds(%d, %q) = %v, want %v", tc.name, tc.held, tc.buffered, got, tc.want)
		}
	}
}

// Only the %end or %error with the %begin's time and number closes a block:
// a guard-looking line of another block, or another %begin, is body.
func TestOnlyTheMatchingEndOrErrorClosesABlock(t *testing.T) {
	begin := guard{"begin", 1796037597, 270, 1}
	for _, tc := range []struct {
		name string
		g    guard
		want bool
	}{
		{"its end", guard{"end", 1796037597, 270, 1}, true},
		{"its error", guard{"error", 1796037597, 270, 1}, true},
		{"its end with other flags", guard{"end", 1796037597, 270, 0}, true},
		{"another number", guard{"end", 1796037597, 271, 1}, false},
		{"another time", guard{"end", 1796037598, 270, 1}, false},
		{"the same begin again", begin, false},
	} {
		if got := tc.g.closes(begin); got != tc.want {
			t.Errorf("%s: %+v closes %+v = %v, want %v", tc.name, tc.g, begin, got, tc.want)
		}
	}
}
