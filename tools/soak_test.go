package tools

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/internal/tmuxtest"
)

// TestSoak runs for $TMUXMCP_SOAK (e.g. 60s; `make soak` runs 10m): 20
// panes printing at mixed rates, one flooding at full speed, agents
// waiting and running commands, the tmux server killed and started again
// twice. At the end every completed job's exit status is right, every wait
// ended with a truthful outcome, memory and goroutines are flat, and no
// tmux client of ours is left.
func TestSoak(t *testing.T) {
	// Not parallel: it compares the process's goroutines and RSS before and
	// after.
	d, err := time.ParseDuration(os.Getenv("TMUXMCP_SOAK"))
	if err != nil || d <= 0 {
		t.Skip("set TMUXMCP_SOAK=60s to run")
	}
	e := newEnv(t, envOptions{restart: true, waitMax: 10 * time.Second})
	runtime.GC()
	g0, rss0 := runtime.NumGoroutine(), vmRSS(t)

	var (
		stats    sync.Map // counter name -> *atomic.Int64
		badMu    sync.Mutex
		bad      []string
		deadline = time.Now().Add(d)
		restarts atomic.Int32
	)
	count := func(name string) { v, _ := stats.LoadOrStore(name, new(atomic.Int64)); v.(*atomic.Int64).Add(1) }
	fail := func(format string, args ...any) {
		badMu.Lock()
		defer badMu.Unlock()
		if len(bad) < 20 {
			bad = append(bad, fmt.Sprintf(format, args...))
		}
	}
	// setup creates the printing panes on the current server.
	setup := func() []string {
		var panes []string
		for i := 0; i < 20; i++ {
			r := e.call(t, "create_pane", map[string]any{"argv": []string{"sh", "-c", fmt.Sprintf("i=0; while :; do i=$((i+1)); echo tick-%d-$i; sleep 0.%d; done", i, 1+i%9)}})
			if r.IsError {
				return panes
			}
			panes = append(panes, r.Str("paneId"))
		}
		if r := e.call(t, "create_pane", map[string]any{"argv": []string{"sh", "-c", "yes flood-line-of-text"}}); !r.IsError {
			panes = append(panes, r.Str("paneId"))
		}
		return panes
	}
	var panesMu sync.Mutex
	panes := setup()
	current := func() []string { panesMu.Lock(); defer panesMu.Unlock(); return append([]string(nil), panes...) }

	var wg sync.WaitGroup
	// Waiters: wait for the next tick of random panes.
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				ps := current()
				if len(ps) == 0 {
					time.Sleep(100 * time.Millisecond)
					continue
				}
				p := ps[rand.IntN(len(ps))]
				r := e.call(t, "wait_for_text", map[string]any{"paneId": p, "patterns": []string{"tick-", "flood-line"}, "timeoutMs": 3000})
				if r.IsError {
					count("wait-error")
					if restarts.Load() == 0 {
						fail("wait error before any restart: %s", r.Text)
					}
					continue
				}
				switch o := r.Str("outcome"); o {
				case "matched", "stream_lost", "pane_died", "output_lost":
					count("wait-" + o)
				case "timed_out":
					if restarts.Load() == 0 && !strings.Contains(r.Str("screen"), "tick-") {
						fail("wait on %s timed out with no ticks on screen: %v", p, r)
					}
					count("wait-timed_out")
				default:
					fail("wait outcome %q: %v", o, r)
				}
			}
		}()
	}
	// Agents running commands whose exit status they know.
	for a := 0; a < 4; a++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				want := rand.IntN(4)
				r := e.call(t, "run_shell_command", map[string]any{"command": fmt.Sprintf("echo job-%d; (exit %d)", want, want), "waitMs": 20000})
				if r.IsError {
					count("job-error")
					continue
				}
				switch r.Str("status") {
				case "completed":
					if r.Num("exitCode") != int64(want) || r.Str("output") != fmt.Sprintf("job-%d\n", want) {
						fail("job exit %d: %v", want, r)
					}
					count("job-completed")
				default:
					count("job-" + r.Str("status"))
				}
			}
		}()
	}
	// The tmux server killed and started again twice.
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 1; i <= 2; i++ {
			time.Sleep(d / 3)
			restarts.Add(1)
			tmuxtest.Kill(e.target)
			time.Sleep(time.Second)
			// The embedded default restarts it on the next call.
			r := e.call(t, "list_panes", map[string]any{})
			if r.IsError {
				// The fleet may not have noticed yet; the next call will.
				time.Sleep(500 * time.Millisecond)
			}
			ps := setup()
			panesMu.Lock()
			panes = ps
			panesMu.Unlock()
		}
	}()
	wg.Wait()
	e.h.Close()
	runtime.GC()
	time.Sleep(200 * time.Millisecond)
	g1, rss1 := runtime.NumGoroutine(), vmRSS(t)
	var summary []string
	stats.Range(func(k, v any) bool {
		summary = append(summary, fmt.Sprintf("%s=%d", k, v.(*atomic.Int64).Load()))
		return true
	})
	t.Logf("soak %v: %s; goroutines %d -> %d; RSS %.1f -> %.1f MiB", d, strings.Join(summary, " "), g0, g1, float64(rss0)/(1<<20), float64(rss1)/(1<<20))
	for _, b := range bad {
		t.Error(b)
	}
	if v, ok := stats.Load("job-completed"); !ok || v.(*atomic.Int64).Load() == 0 {
		t.Error("no job completed")
	}
	if g1 > g0+20 {
		t.Errorf("goroutines grew from %d to %d", g0, g1)
	}
	if rss1 > 200<<20 {
		t.Errorf("RSS %d MiB", rss1>>20)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if out, _ := e.target.Run(ctx, "list-clients", "-F", "#{client_control_mode} #{client_pid} #{client_session} #{client_created}"); strings.HasPrefix(out, "1") || strings.Contains(out, "\n1") {
		t.Errorf("control clients left behind: %q", out)
	}
}
