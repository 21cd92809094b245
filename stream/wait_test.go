package stream

import (
	"testing"
	"time"
)

// A regex match at the end of a line that has not settled (a prompt) is
// still reported matched when the pane dies before the line settles.
func TestARegexMatchStillSettlingWhenThePaneDiesIsMatched(t *testing.T) {
	h := NewHub(1 << 20)
	s := h.Adopt(1)
	h.Output(1, []byte("user@host:~$ "))
	h.Sync([]PaneState{{Pane: 1, Dead: true}}, time.Now())
	r := waitOn(t, s, 0, mustMatcher(t, true, `\$ $`), time.Second)
	if r.Outcome != Matched {
		t.Fatalf("outcome %s, want matched (prompt was printed)", r.Outcome)
	}
}

// A regex match on a line that keeps growing (a progress bar) is reported
// matched, not timed out, when the wait times out before the line settles.
func TestARegexMatchStillSettlingWhenTheWaitTimesOutIsMatched(t *testing.T) {
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
