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
	so := &soak{t: t, e: e, deadline: time.Now().Add(d)}
	so.panes = so.setup()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(so.waiter)
	}
	for range 4 {
		wg.Go(so.agent)
	}
	wg.Go(func() { so.restart(d) })
	wg.Wait()
	e.close()
	runtime.GC()
	time.Sleep(200 * time.Millisecond)
	g1, rss1 := runtime.NumGoroutine(), vmRSS(t)
	so.report(d, g0, g1, rss0, rss1)
}

// soak is one soak run: the panes printing, the counters, the failures.
type soak struct {
	t        *testing.T
	e        *env
	deadline time.Time
	stats    sync.Map // counter name -> *atomic.Int64
	restarts atomic.Int32

	mu    sync.Mutex
	bad   []string
	panes []string
}

func (so *soak) count(name string) {
	v, _ := so.stats.LoadOrStore(name, new(atomic.Int64))
	v.(*atomic.Int64).Add(1)
}

func (so *soak) fail(format string, args ...any) {
	so.mu.Lock()
	defer so.mu.Unlock()
	if len(so.bad) < 20 {
		so.bad = append(so.bad, fmt.Sprintf(format, args...))
	}
}

func (so *soak) current() []string {
	so.mu.Lock()
	defer so.mu.Unlock()
	return append([]string(nil), so.panes...)
}

// setup creates the printing panes on the current server.
func (so *soak) setup() []string {
	var panes []string
	for i := 0; i < 20; i++ {
		r := so.e.call(so.t, "create_pane", map[string]any{"argv": []string{"sh", "-c", fmt.Sprintf("i=0; while :; do i=$((i+1)); echo tick-%d-$i; sleep 0.%d; done", i, 1+i%9)}})
		if r.IsError {
			return panes
		}
		panes = append(panes, r.Str("paneId"))
	}
	if r := so.e.call(so.t, "create_pane", map[string]any{"argv": []string{"sh", "-c", "yes flood-line-of-text"}}); !r.IsError {
		panes = append(panes, r.Str("paneId"))
	}
	return panes
}

// waiter waits for the next tick of random panes.
func (so *soak) waiter() {
	for time.Now().Before(so.deadline) {
		ps := so.current()
		if len(ps) == 0 {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		p := ps[rand.IntN(len(ps))]
		r := so.e.call(so.t, "wait_for_text", map[string]any{"paneId": p, "patterns": []string{"tick-", "flood-line"}, "timeoutMs": 3000})
		if r.IsError {
			so.count("wait-error")
			if so.restarts.Load() == 0 {
				so.fail("wait error before any restart: %s", r.Text)
			}
			continue
		}
		switch o := r.Str("outcome"); o {
		case "matched", "stream_lost", "pane_died", "output_lost":
			so.count("wait-" + o)
		case "timed_out":
			if so.restarts.Load() == 0 && !strings.Contains(r.Str("screen"), "tick-") {
				so.fail("wait on %s timed out with no ticks on screen: %v", p, r)
			}
			so.count("wait-timed_out")
		default:
			so.fail("wait outcome %q: %v", o, r)
		}
	}
}

// agent runs commands whose exit status it knows.
func (so *soak) agent() {
	for time.Now().Before(so.deadline) {
		want := rand.IntN(4)
		r := so.e.call(so.t, "run_shell_command", map[string]any{"command": fmt.Sprintf("echo job-%d; (exit %d)", want, want), "waitMs": 20000})
		if r.IsError {
			so.count("job-error")
			continue
		}
		switch r.Str("status") {
		case "completed":
			if r.Num("exitCode") != int64(want) || r.Str("output") != fmt.Sprintf("job-%d\n", want) {
				so.fail("job exit %d: %v", want, r)
			}
			so.count("job-completed")
		default:
			so.count("job-" + r.Str("status"))
		}
	}
}

// restart kills the tmux server and starts it again twice.
func (so *soak) restart(d time.Duration) {
	for i := 1; i <= 2; i++ {
		time.Sleep(d / 3)
		so.restarts.Add(1)
		tmuxtest.Kill(so.e.target)
		time.Sleep(time.Second)
		// The embedded default restarts it on the next call.
		if r := so.e.call(so.t, "list_panes", map[string]any{}); r.IsError {
			// The fleet may not have noticed yet; the next call will.
			time.Sleep(500 * time.Millisecond)
		}
		ps := so.setup()
		so.mu.Lock()
		so.panes = ps
		so.mu.Unlock()
	}
}

// report logs the counters and fails on what went wrong.
func (so *soak) report(d time.Duration, g0, g1 int, rss0, rss1 int64) {
	t := so.t
	var summary []string
	so.stats.Range(func(k, v any) bool {
		summary = append(summary, fmt.Sprintf("%s=%d", k, v.(*atomic.Int64).Load()))
		return true
	})
	t.Logf("soak %v: %s; goroutines %d -> %d; RSS %.1f -> %.1f MiB", d, strings.Join(summary, " "), g0, g1, float64(rss0)/(1<<20), float64(rss1)/(1<<20))
	for _, b := range so.bad {
		t.Error(b)
	}
	if v, ok := so.stats.Load("job-completed"); !ok || v.(*atomic.Int64).Load() == 0 {
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
	if out, _ := so.e.target.Run(ctx, "list-clients", "-F", "#{client_control_mode} #{client_pid} #{client_session} #{client_created}"); strings.HasPrefix(out, "1") || strings.Contains(out, "\n1") {
		t.Errorf("control clients left behind: %q", out)
	}
}
