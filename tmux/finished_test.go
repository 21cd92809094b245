package tmux

import (
	"slices"
	"testing"
	"time"
)

func TestOnlyTheSameFinishedPanesAreClosedNeverALaterPaneWithTheirId(t *testing.T) {
	until := time.Unix(1796331377, 0)
	lines := []string{
		"%3 1 1796331377", // the finished pane, as it was kept
		"%4 0 1796331377", // alive: not a finished pane
		"%5 1 1796331999", // kept until another time: another finished pane
		"%6 1 ",           // dead, but never a finished pane
		"%7 1 1796331377", // not asked for
		"garbage",         // not a pane line
	}
	want := map[int]time.Time{3: until, 4: until, 5: until, 6: until}
	if got := stillFinished(lines, want); !slices.Equal(got, []int{3}) {
		t.Fatalf("stillFinished = %v, want [3]", got)
	}
}

func TestAScreenIsReprintedWithoutItsBlankBottomRows(t *testing.T) {
	rows := []string{"$ make", "\x1b[31mfailed\x1b[0m", "$ ", "", "\x1b[0m", "   "}
	if got, want := screenText(rows), "$ make\n\x1b[31mfailed\x1b[0m\n$ \x1b[0m"; got != want {
		t.Fatalf("screenText = %q, want %q", got, want)
	}
}
