package stream

import (
	"testing"
	"time"
)

// A regex that matches the empty string ("x*") ends a wait without a
// panic (an empty match once indexed the text before its start).
func TestAnEmptyWidthRegexMatchDoesNotPanicAWait(t *testing.T) {
	h := NewHub(1 << 20)
	s := h.Adopt(1)
	h.Output(1, []byte("abc\n"))
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("panic: %v", p)
		}
	}()
	waitOn(t, s, 0, mustMatcher(t, true, "x*"), 100*time.Millisecond)
}
