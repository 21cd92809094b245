package runner

import (
	"context"
	"testing"
	"time"
)

// While a job runs quiet and no one answers, its pane is looked at after
// 0.5 s of quiet, then after longer spells (1, 2, 4, 8 s) — a handful of
// looks in ten seconds, not one after another once the pane has been
// quiet for 8 s (each look is a round trip to tmux and a read of /proc).
func TestAQuietJobIsLookedAtAFewTimesNotOverAndOver(t *testing.T) {
	b := newBench(t, 0, "bash", false)
	_, run := b.watch(integrated(), 0)
	b.feed(typedLine)
	b.begun(run)
	b.machine.set(running("bash", "sleep", false))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	b.r.Await(ctx, run.ID, 10*time.Second)
	if took := time.Since(start); took < 9*time.Second {
		t.Fatalf("the wait ended after %v: a sleeping program is not waiting for input", took)
	}
	b.tmux.mu.Lock()
	looks := b.tmux.screens
	b.tmux.mu.Unlock()
	if looks > 8 {
		t.Fatalf("the pane was looked at %d times in 10 s of quiet, want at most 8", looks)
	}
	b.r.Cancel(run.ID)
}
