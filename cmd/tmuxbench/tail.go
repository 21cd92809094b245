package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// busyLoops starts k CPU burners (`yes > /dev/null`) and returns stop,
// which kills exactly them and reaps them.
func busyLoops(k int) (stop func(), err error) {
	var cmds []*exec.Cmd
	stop = func() {
		for _, c := range cmds {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
	}
	for i := 0; i < k; i++ {
		c := exec.Command("yes") // a nil Stdout is /dev/null
		c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := c.Start(); err != nil {
			stop()
			return nil, fmt.Errorf("start a busy loop: %w", err)
		}
		cmds = append(cmds, c)
	}
	return stop, nil
}

// loadAverage is the 1-minute load average, from /proc/loadavg.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}

// liveReader is a bare `tmux -C` reader attached for a whole section, so
// the server serves the same clients whichever observer's block is being
// measured; each line of tag it sees goes to got with its latency.
type liveReader struct {
	r    *reader
	tag  string
	got  chan time.Duration
	done chan error
}

func (w *world) attachLiveReader(ctx context.Context, pane, tag string, n int) (*liveReader, error) {
	r, err := w.attachReader(ctx, pane)
	if err != nil {
		return nil, err
	}
	lr := &liveReader{r: r, tag: tag, got: make(chan time.Duration, n+16), done: make(chan error, 1)}
	go func() {
		lr.done <- r.lines(func(line []byte, at time.Time) bool {
			if m := latLine.FindSubmatch(line); m != nil && string(m[1]) == tag {
				ts, _ := strconv.ParseInt(string(m[3]), 10, 64)
				select {
				case lr.got <- at.Sub(time.Unix(0, ts)):
				default: // more lines than asked for: not measured
				}
			}
			return true
		})
	}()
	return lr, nil
}

// block has the emitter print n lines of the reader's tag from from and
// appends their latencies to s.
func (lr *liveReader) block(ctx context.Context, w *world, pane string, from, n int, every time.Duration, s *sample) error {
	if err := w.startEmitterFrom(ctx, pane, lr.tag, from, n, every); err != nil {
		return err
	}
	deadline := time.NewTimer(time.Duration(n)*every + 30*time.Second)
	defer deadline.Stop()
	for k := 0; k < n; k++ {
		select {
		case d := <-lr.got:
			s.d = append(s.d, d)
		case err := <-lr.done:
			return fmt.Errorf("the bare reader ended: %v", err)
		case <-deadline.C:
			return fmt.Errorf("the bare reader saw %d of %d lines", k, n)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

func (lr *liveReader) close() { lr.r.close() }

// tailBlocks is how many blocks each observer's samples are measured in,
// the observers taking turns, so a change in the machine's load during the
// section reaches all of them alike.
const tailBlocks = 4

// sectionTail is section 9: wait latency with two busy loops beside the
// bench, tmuxmcp's wait_for_text and the bare reader floor in alternating
// blocks on the same pane, both clients attached throughout.
func sectionTail(ctx context.Context, cfg config, rep *report) error {
	w, pane, err := newShellWorld(ctx, cfg)
	if err != nil {
		return err
	}
	defer w.close()
	tracePath := filepath.Join(w.tmp, "latency.trace")
	c, err := w.startMCP(ctx, []string{"TMUXMCP_LATENCY_TRACE=" + tracePath})
	if err != nil {
		return err
	}
	defer c.close()
	cur, err := c.cursor(ctx, pane)
	if err != nil {
		return err
	}
	lr, err := w.attachLiveReader(ctx, pane, "F", cfg.n)
	if err != nil {
		return err
	}
	defer lr.close()
	stop, err := busyLoops(2)
	if err != nil {
		return err
	}
	defer stop()
	time.Sleep(time.Second) // the load is on before the first sample
	floor := sample{name: "bare `tmux -C` reader (floor), two busy loops"}
	wait := sample{name: "tmuxmcp wait_for_text (stdio), two busy loops"}
	var ends []timeline
	per := max(1, cfg.n/tailBlocks)
	for b := 0; b < tailBlocks; b++ {
		for k := 0; k < 2; k++ {
			if (b+k)%2 == 0 {
				if err := lr.block(ctx, w, pane, b*per, per, cfg.every, &floor); err != nil {
					return fmt.Errorf("floor: %w", err)
				}
				continue
			}
			s, e, next, err := w.measureWaitFrom(ctx, c, pane, cur, "M", b*per, per, cfg.every)
			if err != nil {
				return fmt.Errorf("tmuxmcp: %w", err)
			}
			wait.d, ends, cur = append(wait.d, s.d...), append(ends, e...), next
		}
	}
	load := loadAverage()
	stop()
	written, _, err := breakdown(tracePath, ends)
	if err != nil {
		return fmt.Errorf("tmuxmcp latency breakdown: %w", err)
	}
	written.name = "tmuxmcp: printed → the answer written on stdout, two busy loops"
	const sec = "9 under load"
	rep.add(row{sec, floor.name, floor.summary(), "—", "1.00", "", ""})
	d99 := wait.p(0.99) - floor.p(0.99)
	rep.add(row{sec, wait.name, wait.summary(), "floor p99 " + msf(floor.p(0.99)), fmt.Sprintf("p99 %+.2f ms", ms(d99)),
		"p99 ≤ floor p99 + 1 ms", verdict(d99 <= time.Millisecond)})
	rep.add(row{sec, written.name, written.summary(), "floor p99 " + msf(floor.p(0.99)), fmt.Sprintf("p99 %+.2f ms", ms(written.p(0.99)-floor.p(0.99))), "", ""})
	rep.note(fmt.Sprintf("under load (section 9): two `yes > /dev/null` loops on %d CPUs, the 1-minute load average %s at the end; the floor and tmuxmcp took turns in %d blocks of %d samples, both clients attached throughout", runtime.NumCPU(), load, tailBlocks, per))
	return nil
}
