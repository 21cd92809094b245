package stream

import (
	"testing"
	"time"
)

// A listing applied out of order (an older one saying the pane is dead)
// does not end the live stream of a pane respawned since.
func TestAStaleListingDoesNotEndARespawnedPanesStream(t *testing.T) {
	h := NewHub(1 << 20)
	h.Adopt(1)
	t1 := time.Now()
	h.Sync([]PaneState{{Pane: 1, Dead: true}}, t1) // pane died
	t2 := time.Now()
	h.Sync([]PaneState{{Pane: 1}}, t2) // listing B (newer): respawned
	s2, _ := h.Live(1)
	h.Sync([]PaneState{{Pane: 1, Dead: true}}, t1) // listing A (older) applied late
	if ended, _, _ := s2.Ended(); ended {
		t.Fatal("respawned pane's live stream ended by a stale listing")
	}
}
