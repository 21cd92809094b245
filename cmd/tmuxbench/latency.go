package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// emit prints "LAT<tag> <seq> <unix nanos>" lines, the timestamp taken just
// before the write, with the given spacing.
func emit(args []string) {
	fs := flag.NewFlagSet("emit", flag.ExitOnError)
	n := fs.Int("n", 200, "lines")
	every := fs.Duration("every", 20*time.Millisecond, "spacing")
	tag := fs.String("tag", "A", "phase tag printed after LAT")
	from := fs.Int("from", 0, "first sequence number")
	_ = fs.Parse(args)
	time.Sleep(300 * time.Millisecond) // let the shell finish echoing the command
	for i := *from; i < *from+*n; i++ {
		fmt.Fprintf(os.Stdout, "LAT%s %d %d\n", *tag, i, time.Now().UnixNano())
		time.Sleep(*every)
	}
}

var latLine = regexp.MustCompile(`^LAT([A-Z]) (\d+) (\d+)$`)

// startEmitter types the emit command into pane; each observer uses its
// own tag so no observer counts another's lines.
func (w *world) startEmitter(ctx context.Context, pane, tag string, n int, every time.Duration) error {
	return w.startEmitterFrom(ctx, pane, tag, 0, n, every)
}

// startEmitterFrom is startEmitter numbering its lines from from, so the
// blocks of one observer interleaved with others' never repeat a line.
func (w *world) startEmitterFrom(ctx context.Context, pane, tag string, from, n int, every time.Duration) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	return w.typeLine(ctx, pane, fmt.Sprintf("%s emit -n %d -every %s -tag %s -from %d", exe, n, every, tag, from))
}

// measureFloor: a bare control client reads the pane's %output itself.
func (w *world) measureFloor(ctx context.Context, pane string, n int, every time.Duration) (sample, error) {
	return w.measureFloorFrom(ctx, pane, "F", 0, n, every)
}

// measureFloorFrom is measureFloor for the lines from..from+n of tag.
func (w *world) measureFloorFrom(ctx context.Context, pane, tag string, from, n int, every time.Duration) (sample, error) {
	r, err := w.attachReader(ctx, pane)
	if err != nil {
		return sample{}, err
	}
	defer r.close()
	if err := w.startEmitterFrom(ctx, pane, tag, from, n, every); err != nil {
		return sample{}, err
	}
	s := sample{name: "bare `tmux -C` reader"}
	err = r.lines(func(line []byte, at time.Time) bool {
		if m := latLine.FindSubmatch(line); m != nil && string(m[1]) == tag {
			ts, _ := strconv.ParseInt(string(m[3]), 10, 64)
			s.d = append(s.d, at.Sub(time.Unix(0, ts)))
		}
		return len(s.d) < n
	})
	return s, err
}

// timeline is one sample's ends: when the emitter printed the line and
// when the client had tmuxmcp's answer.
type timeline struct{ printed, answered time.Time }

// measureWait: one wait_for_text call per line through tmuxmcp over stdio,
// each opened right after the previous one returned.
func (w *world) measureWait(ctx context.Context, c *client, pane, tag string, n int, every time.Duration) (sample, []timeline, error) {
	cur, err := c.cursor(ctx, pane)
	if err != nil {
		return sample{}, nil, err
	}
	s, ends, _, err := w.measureWaitFrom(ctx, c, pane, cur, tag, 0, n, every)
	return s, ends, err
}

// measureWaitFrom is measureWait for the lines from..from+n of tag, from
// the cursor cur; it returns the cursor after the last line, for the next
// block.
func (w *world) measureWaitFrom(ctx context.Context, c *client, pane, cur, tag string, from, n int, every time.Duration) (sample, []timeline, string, error) {
	var ends []timeline
	if err := w.startEmitterFrom(ctx, pane, tag, from, n, every); err != nil {
		return sample{}, nil, cur, err
	}
	s := sample{name: "tmuxmcp wait_for_text (stdio)"}
	for i := from; i < from+n; i++ {
		r, err := c.call(ctx, "wait_for_text", map[string]any{"paneId": pane, "cursor": cur, "patterns": []string{fmt.Sprintf(`^LAT%s %d (?<ts>\d+)$`, tag, i)}, "regex": true, "timeoutMs": 30000})
		now := time.Now()
		if err != nil {
			return s, ends, cur, err
		}
		if r["outcome"] != "matched" {
			return s, ends, cur, fmt.Errorf("sample %d: outcome %v", i, r["outcome"])
		}
		groups, _ := r["groups"].(map[string]any)
		ts, _ := strconv.ParseInt(fmt.Sprint(groups["ts"]), 10, 64)
		s.d = append(s.d, now.Sub(time.Unix(0, ts)))
		ends = append(ends, timeline{time.Unix(0, ts), now})
		cur, _ = r["cursor"].(string)
	}
	return s, ends, cur, nil
}

// breakdown splits each sample's latency at the times tmuxmcp traced
// ($TMUXMCP_LATENCY_TRACE: appended, matched, encoded, written, one line
// per matched wait, in the order of the samples).
func breakdown(path string, ends []timeline) (written sample, stages []sample, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return written, nil, err
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != len(ends) {
		return written, nil, fmt.Errorf("latency trace has %d records for %d samples", len(lines), len(ends))
	}
	written.name = "tmuxmcp: printed → the answer written on stdout"
	stages = []sample{
		{name: "printed → in tmuxmcp's pane stream (tmux, the control client, the append)"},
		{name: "→ the wait matched (wake-up, decode, match)"},
		{name: "→ the result built and encoded as JSON"},
		{name: "→ written to stdout (the SDK's JSON-RPC answer)"},
		{name: "→ the client has the result (pipe, the client SDK's decoding)"},
	}
	for i, l := range lines {
		var t [4]int64
		if _, err := fmt.Sscan(l, &t[0], &t[1], &t[2], &t[3]); err != nil {
			return written, nil, fmt.Errorf("latency trace line %d: %w", i+1, err)
		}
		at := []time.Time{ends[i].printed, time.Unix(0, t[0]), time.Unix(0, t[1]), time.Unix(0, t[2]), time.Unix(0, t[3]), ends[i].answered}
		for k := range stages {
			stages[k].d = append(stages[k].d, at[k+1].Sub(at[k]))
		}
		written.d = append(written.d, at[4].Sub(at[0]))
	}
	return written, stages, nil
}

// measurePolling runs `tmux capture-pane` every period, as polling servers
// do, and times each line from its print to the capture that showed it.
func (w *world) measurePolling(ctx context.Context, pane, tag string, n int, every, period time.Duration) (sample, error) {
	if err := w.startEmitter(ctx, pane, tag, n, every); err != nil {
		return sample{}, err
	}
	s := sample{name: fmt.Sprintf("capture-pane poll every %v", period)}
	seen := map[string]bool{}
	tick := time.NewTicker(period)
	defer tick.Stop()
	deadline := time.Now().Add(time.Duration(n)*every + 30*time.Second)
	for len(s.d) < n && time.Now().Before(deadline) {
		<-tick.C
		out, err := w.target.Run(ctx, "capture-pane", "-p", "-J", "-S", "-", "-t", pane)
		now := time.Now()
		if err != nil {
			return s, err
		}
		for _, line := range strings.Split(out, "\n") {
			m := latLine.FindStringSubmatch(line)
			if m == nil || m[1] != tag || seen[m[2]] {
				continue
			}
			seen[m[2]] = true
			ts, _ := strconv.ParseInt(m[3], 10, 64)
			s.d = append(s.d, now.Sub(time.Unix(0, ts)))
		}
	}
	if len(s.d) < n {
		return s, fmt.Errorf("polling saw %d of %d lines", len(s.d), n)
	}
	return s, nil
}

// sectionLatency is section 1: wait latency against the floor and polling.
func sectionLatency(ctx context.Context, cfg config, rep *report) error {
	w, pane, err := newShellWorld(ctx, cfg)
	if err != nil {
		return err
	}
	defer w.close()
	ctl, err := w.measureFloor(ctx, pane, cfg.n, cfg.every)
	if err != nil {
		return fmt.Errorf("floor: %w", err)
	}
	pipe, err := w.measurePipeFloor(ctx, pane, cfg.n, cfg.every)
	if err != nil {
		return fmt.Errorf("pipe floor: %w", err)
	}
	// The floor is the faster bare reader; the other is shown against it.
	floor, other := ctl, pipe
	if pipe.p(0.5) < ctl.p(0.5) {
		floor, other = pipe, ctl
	}
	floor.name += " (floor)"
	tracePath := filepath.Join(w.tmp, "latency.trace")
	c, err := w.startMCP(ctx, []string{"TMUXMCP_LATENCY_TRACE=" + tracePath})
	if err != nil {
		return err
	}
	wait, ends, err := w.measureWait(ctx, c, pane, "M", cfg.n, cfg.every)
	c.close()
	if err != nil {
		return fmt.Errorf("tmuxmcp: %w", err)
	}
	written, stages, err := breakdown(tracePath, ends)
	if err != nil {
		return fmt.Errorf("tmuxmcp latency breakdown: %w", err)
	}
	p100, err := w.measurePolling(ctx, pane, "P", cfg.n, cfg.every, 100*time.Millisecond)
	if err != nil {
		return err
	}
	p50, err := w.measurePolling(ctx, pane, "Q", cfg.n, cfg.every, 50*time.Millisecond)
	if err != nil {
		return err
	}
	rep.latency = []sample{floor, wait, p100, p50}
	const sec = "1 wait latency"
	rep.add(row{sec, floor.name, floor.summary(), "—", "1.00", "", ""})
	rep.add(row{sec, other.name, other.summary(), "floor p50 " + msf(floor.p(0.5)), fmt.Sprintf("p50 +%s ms", msf(other.p(0.5)-floor.p(0.5))), "", ""})
	rep.add(row{sec, wait.name, wait.summary(), "floor p50 " + msf(floor.p(0.5)),
		fmt.Sprintf("p50 +%s ms", msf(wait.p(0.5)-floor.p(0.5))),
		"p50 ≤ floor + 1 ms", verdict(wait.p(0.5)-floor.p(0.5) <= time.Millisecond)})
	// The server's own path, %output to the answer on stdout, against the
	// bare reader (the client's decoding is the last breakdown row).
	rep.add(row{sec, written.name, written.summary(), "floor p50 " + msf(floor.p(0.5)),
		fmt.Sprintf("p50 +%s ms", msf(written.p(0.5)-floor.p(0.5))),
		"p50 ≤ floor + 0.3 ms", verdict(written.p(0.5)-floor.p(0.5) <= 300*time.Microsecond)})
	rep.add(row{sec, written.name, "p99 " + msf(written.p(0.99)) + " ms", "floor p99 " + msf(floor.p(0.99)),
		fmt.Sprintf("p99 +%s ms", msf(written.p(0.99)-floor.p(0.99))),
		"p99 ≤ floor + 1 ms", verdict(written.p(0.99)-floor.p(0.99) <= time.Millisecond)})
	for _, st := range stages {
		rep.add(row{sec, "breakdown: " + st.name, fmt.Sprintf("p50 %s / p99 %s ms", msf(st.p(0.5)), msf(st.p(0.99))), "", "", "", ""})
	}
	rep.add(row{sec, wait.name, "p99 " + msf(wait.p(0.99)) + " ms", "", "", "p99 ≤ 10 ms", verdict(wait.p(0.99) <= 10*time.Millisecond)})
	rep.add(row{sec, wait.name, "p99 " + msf(wait.p(0.99)) + " ms", "poll 100 ms p99 " + msf(p100.p(0.99)),
		fmt.Sprintf("%.0f× better (p99)", float64(p100.p(0.99))/float64(wait.p(0.99))),
		"≥ 10× better than 100 ms poll p99 (p50 and p99)",
		verdict(p100.p(0.99) >= 10*wait.p(0.99) && p100.p(0.99) >= 10*wait.p(0.5))})
	for _, p := range []sample{p100, p50} {
		rep.add(row{sec, p.name, p.summary(), "floor p50 " + msf(floor.p(0.5)), fmt.Sprintf("%.0f× floor (p50)", ratio(p.p(0.5), floor.p(0.5))), "", ""})
	}
	return nil
}

// runs times n run_shell_command calls with args, each of which must
// complete.
func (c *client) runs(ctx context.Context, name string, n int, args map[string]any) (sample, error) {
	s := sample{name: name}
	for i := 0; i < n; i++ {
		start := time.Now()
		r, err := c.call(ctx, "run_shell_command", args)
		if err != nil {
			return s, err
		}
		if r["status"] != "completed" {
			return s, fmt.Errorf("%s: status %v", name, r["status"])
		}
		s.d = append(s.d, time.Since(start))
	}
	return s, nil
}

// sectionRun is section 2: run_shell_command round trips against
// spawning `bash -c true` directly.
func sectionRun(ctx context.Context, cfg config, rep *report) error {
	spawn := sample{name: "exec bash -c true (floor)"}
	for i := 0; i < cfg.n; i++ {
		start := time.Now()
		if err := exec.Command("bash", "-c", "true").Run(); err != nil {
			return err
		}
		spawn.d = append(spawn.d, time.Since(start))
	}
	w, err := newWorld(ctx, cfg)
	if err != nil {
		return err
	}
	defer w.close()
	c, err := w.startMCP(ctx, nil)
	if err != nil {
		return err
	}
	defer c.close()
	pane, err := c.newShell(ctx)
	if err != nil {
		return err
	}
	runs := func(name string, n int, args map[string]any) (sample, error) { return c.runs(ctx, name, n, args) }
	existing, err := runs("run_shell_command true, existing pane (bash)", cfg.n, map[string]any{"paneId": pane, "command": "true"})
	if err != nil {
		return err
	}
	fresh, err := runs("run_shell_command true, fresh pane (bash)", max(5, cfg.n/10), map[string]any{"command": "true"})
	if err != nil {
		return err
	}
	// The slow-prompt pane first, while the default shell is still bash.
	plain, slow, err := promptCost(ctx, w, c, max(10, cfg.n/8))
	if err != nil {
		return err
	}
	startup, err := w.shellStartup(ctx, max(5, cfg.n/10))
	if err != nil {
		return err
	}
	// The same round trip in the other shells' panes: zsh and fish with
	// their integration, dash through the job-script wrapper.
	var others []sample
	for _, sh := range otherShells() {
		if _, err := os.Stat(sh.path); err != nil {
			continue
		}
		if _, err := w.target.Run(ctx, "set-option", "-g", "default-shell", sh.path); err != nil {
			return err
		}
		p, err := c.newShell(ctx)
		if err != nil {
			return fmt.Errorf("%s: %w", sh.name, err)
		}
		s, err := runs("run_shell_command true, existing pane ("+sh.name+")", cfg.n, map[string]any{"paneId": p, "command": "true"})
		if err != nil {
			return err
		}
		others = append(others, s)
	}
	rep.runs = append([]sample{spawn, existing, fresh}, others...)
	rep.runs = append(rep.runs, startup, plain, slow)
	runRows(rep, spawn, existing, fresh, others)
	startupRows(rep, fresh, startup)
	promptRows(rep, plain, slow)
	return nil
}

// otherShell is a shell besides bash whose existing-pane round trip
// section 2 measures, with the bound on its ratio to `bash -c true`.
type otherShell struct {
	name, path string
	bound      float64
}

func otherShells() []otherShell {
	return []otherShell{{"zsh", "/usr/bin/zsh", 4}, {"fish", "/usr/bin/fish", 6}, {"dash", "/bin/dash", 4}}
}

// runRows are section 2's rows: each round trip against `bash -c true`,
// the existing-pane ones with their bound on that ratio.
func runRows(rep *report, spawn, existing, fresh sample, others []sample) {
	const sec = "2 run round trip"
	floor := "floor p50 " + msf(spawn.p(0.5))
	times := func(s sample) string { return fmt.Sprintf("%.1f× floor (p50)", ratio(s.p(0.5), spawn.p(0.5))) }
	rep.add(row{sec, spawn.name, spawn.summary(), "—", "1.00", "", ""})
	rep.add(row{sec, existing.name, existing.summary(), floor, times(existing), "p50 ≤ 15 ms", verdict(existing.p(0.5) <= 15*time.Millisecond)})
	rep.add(row{sec, existing.name, "p50 " + msf(existing.p(0.5)) + " ms", floor, times(existing), "p50 ≤ 3× floor", verdict(ratio(existing.p(0.5), spawn.p(0.5)) <= 3)})
	rep.add(row{sec, fresh.name, fresh.summary(), floor, times(fresh), "", ""})
	for _, s := range others {
		bound := 0.0
		for _, sh := range otherShells() {
			if strings.HasSuffix(s.name, "("+sh.name+")") {
				bound = sh.bound
			}
		}
		rep.add(row{sec, s.name, s.summary(), floor, times(s), fmt.Sprintf("p50 ≤ %.0f× floor", bound), verdict(ratio(s.p(0.5), spawn.p(0.5)) <= bound)})
	}
}

// measurePipeFloor: a bare `pipe-pane -O` reader, `cat` into a FIFO the
// bench reads, the raw path tmuxmcp itself reads a pane through. It runs
// before tmuxmcp attaches (a pane has one pipe) and closes the pipe after.
func (w *world) measurePipeFloor(ctx context.Context, pane string, n int, every time.Duration) (sample, error) {
	fifo := filepath.Join(w.tmp, "pipe-floor.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		return sample{}, err
	}
	// Read-write, so opening never waits for the writer.
	f, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		return sample{}, err
	}
	defer f.Close()
	if _, err := w.target.Run(ctx, "pipe-pane", "-O", "-t", pane, "exec cat > "+fifo); err != nil {
		return sample{}, err
	}
	defer func() { _, _ = w.target.Run(context.WithoutCancel(ctx), "pipe-pane", "-t", pane) }()
	if err := w.startEmitterFrom(ctx, pane, "R", 0, n, every); err != nil {
		return sample{}, err
	}
	s := sample{name: "bare `pipe-pane -O` reader (cat into a FIFO)"}
	br := bufio.NewReaderSize(f, 64<<10)
	deadline := time.Now().Add(time.Duration(n)*every + 30*time.Second)
	_ = f.SetReadDeadline(deadline)
	for len(s.d) < n {
		line, err := br.ReadSlice('\n')
		at := time.Now()
		if err != nil && err != bufio.ErrBufferFull {
			return s, fmt.Errorf("pipe reader saw %d of %d lines: %w", len(s.d), n, err)
		}
		line = bytes.TrimRight(line, "\r\n")
		if i := bytes.Index(line, []byte("LAT")); i > 0 {
			line = line[i:] // after the terminal modes the shell sets before the program runs
		}
		if m := latLine.FindSubmatch(line); m != nil && string(m[1]) == "R" {
			ts, _ := strconv.ParseInt(string(m[3]), 10, 64)
			s.d = append(s.d, at.Sub(time.Unix(0, ts)))
		}
	}
	return s, nil
}
