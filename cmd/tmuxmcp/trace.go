package main

import (
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/tmuxmcp/tmuxmcp/tools"
)

// latencyTrace writes, for each wait_for_text that matched, one line of
// unix-nanosecond times to a file ($TMUXMCP_LATENCY_TRACE): when the
// matching output was appended to the pane's stream, when the wait
// matched, when its result was encoded, and when the answer was written
// to stdout. The benchmark suite reads it for its latency breakdown.
// Times are exact for calls answered one at a time (the benchmark's).
type latencyTrace struct {
	mu      sync.Mutex
	f       *os.File
	pending *tools.WaitTrace
}

// openLatencyTrace opens path for the trace; an empty path is no trace.
func openLatencyTrace(path string) (*latencyTrace, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("$TMUXMCP_LATENCY_TRACE: %w", err)
	}
	return &latencyTrace{f: f}, nil
}

// wait holds a matched wait's times until its answer is written.
func (t *latencyTrace) wait(w tools.WaitTrace) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pending = &w
}

// written completes the pending record with the time of a stdout write.
func (t *latencyTrace) written() {
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	if w := t.pending; w != nil {
		t.pending = nil
		_, _ = fmt.Fprintf(t.f, "%d %d %d %d\n", w.Appended.UnixNano(), w.Matched.UnixNano(), w.Encoded.UnixNano(), now.UnixNano())
	}
}

func (t *latencyTrace) close() {
	if t != nil {
		_ = t.f.Close()
	}
}
