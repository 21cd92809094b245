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
	"strings"
	"syscall"
	"time"

	"github.com/tmuxmcp/tmuxmcp/tmux"
)

const endMark = "INGEST-END-OF-FILE"

// writeFile writes about size bytes of ordinary output lines and an end
// mark line.
func writeFile(path string, size int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	for i, n := 0, 0; n < size; i++ {
		k, _ := fmt.Fprintf(bw, "%08d some ordinary program output, compiler warnings and test names\n", i)
		n += k
	}
	fmt.Fprintln(bw, endMark)
	if err := bw.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// catOnce types `cat path; tmux wait-for -S sig` and returns when both the
// cat has finished and seen() has returned (the observer has the end mark).
func (w *world) catOnce(ctx context.Context, pane, path string, seq int, seen func() error) (time.Duration, error) {
	return w.typeOnce(ctx, pane, "cat "+path, seq, seen)
}

// typeOnce types `command; tmux wait-for -S sig` and returns when both the
// command has finished and seen() has returned.
func (w *world) typeOnce(ctx context.Context, pane, command string, seq int, seen func() error) (time.Duration, error) {
	sig := fmt.Sprintf("ingest-%d", seq)
	done := w.target.Command(ctx, "wait-for", sig)
	if err := done.Start(); err != nil {
		return 0, err
	}
	if _, err := w.target.Run(ctx, "send-keys", "-t", pane, "-l", "--", fmt.Sprintf("%s; tmux -L %s wait-for -S %s", command, w.target.SocketName, sig)); err != nil {
		return 0, err
	}
	errc := make(chan error, 1)
	start := time.Now()
	if _, err := w.target.Run(ctx, "send-keys", "-t", pane, "Enter"); err != nil {
		return 0, err
	}
	if seen != nil {
		go func() { errc <- seen() }()
	} else {
		errc <- nil
	}
	if err := done.Wait(); err != nil {
		return 0, fmt.Errorf("wait-for %s: %w", sig, err)
	}
	if err := <-errc; err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

// catPiped is catOnce watched by a bare `pipe-pane -O` reader: `cat`
// into a FIFO this process reads until the end mark, the raw path tmuxmcp
// reads a pane through, without tmuxmcp. The pipe is closed after.
func (w *world) catPiped(ctx context.Context, pane, path string, seq int) (time.Duration, error) {
	fifo := filepath.Join(w.tmp, fmt.Sprintf("ingest-%d.fifo", seq))
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		return 0, err
	}
	defer os.Remove(fifo)
	f, err := os.OpenFile(fifo, os.O_RDWR, 0) // read-write: opening never waits for the writer
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if _, err := w.target.Run(ctx, "pipe-pane", "-O", "-t", pane, "exec cat > "+fifo); err != nil {
		return 0, err
	}
	defer func() { _, _ = w.target.Run(context.WithoutCancel(ctx), "pipe-pane", "-t", pane) }()
	_ = f.SetReadDeadline(time.Now().Add(5 * time.Minute))
	return w.catOnce(ctx, pane, path, seq, func() error {
		br := bufio.NewReaderSize(f, 256<<10)
		for {
			line, err := br.ReadSlice('\n')
			if err != nil && err != bufio.ErrBufferFull {
				return err
			}
			if bytes.HasPrefix(line, []byte(endMark)) {
				return nil
			}
		}
	})
}

// sectionIngest is section 3: wall time of cat of a large file in a pane
// with no control client, with a bare reader, and with tmuxmcp holding 10
// open waits on the pane.
func sectionIngest(ctx context.Context, cfg config, rep *report) error {
	w, err := newWorld(ctx, cfg)
	if err != nil {
		return err
	}
	defer w.close()
	path := filepath.Join(w.tmp, "ingest.txt")
	if err := writeFile(path, cfg.ingestMB<<20); err != nil {
		return err
	}
	pane, err := w.shellPane(ctx)
	if err != nil {
		return err
	}
	// Warm the page cache and the pane once.
	if _, err := w.catOnce(ctx, pane, path, 0, nil); err != nil {
		return err
	}
	none := sample{name: "no control client"}
	bare := sample{name: "bare `tmux -C` reader"}
	piped := sample{name: "bare `pipe-pane -O` reader (cat into a FIFO)"}
	mcpS := sample{name: "tmuxmcp, 10 open waits on the pane"}
	seq := 1
	for run := 0; run < cfg.ingestRuns; run++ {
		d, err := w.catOnce(ctx, pane, path, seq, nil)
		if err != nil {
			return err
		}
		none.d = append(none.d, d)
		seq++

		r, err := w.attachReader(ctx, pane)
		if err != nil {
			return err
		}
		d, err = w.catOnce(ctx, pane, path, seq, func() error {
			return r.lines(func(line []byte, _ time.Time) bool { return string(line) != endMark })
		})
		r.close()
		if err != nil {
			return fmt.Errorf("bare reader: %w", err)
		}
		bare.d = append(bare.d, d)
		seq++

		d, err = w.catPiped(ctx, pane, path, seq)
		if err != nil {
			return fmt.Errorf("bare pipe reader: %w", err)
		}
		piped.d = append(piped.d, d)
		seq++

		c, err := w.startMCP(ctx, nil)
		if err != nil {
			return err
		}
		cur, err := c.cursor(ctx, pane)
		if err != nil {
			c.close()
			return err
		}
		// Ten waits that never match: five literal, five regex, open
		// before the cat starts.
		stop, err := c.park(ctx, 10, []string{pane}, 2*time.Minute, 200*time.Millisecond, func(i int) map[string]any {
			return map[string]any{"cursor": cur, "patterns": []string{fmt.Sprintf(`^never-%d (\d+)$`, i)}, "regex": i%2 == 1}
		})
		if err != nil {
			c.close()
			return err
		}
		d, err = w.catOnce(ctx, pane, path, seq, func() error {
			r, err := c.call(ctx, "wait_for_text", map[string]any{"paneId": pane, "cursor": cur, "patterns": []string{endMark}, "timeoutMs": 120000})
			if err == nil && r["outcome"] != "matched" {
				err = fmt.Errorf("end mark wait: outcome %v", r["outcome"])
			}
			if mb, _ := r["missedBytes"].(float64); mb > 0 {
				rep.note(fmt.Sprintf("ingest run %d: the end-mark wait reported missedBytes %.0f (it fell behind the 1 MiB retained window)", run+1, mb))
			}
			return err
		})
		stop()
		c.close()
		if err != nil {
			return fmt.Errorf("tmuxmcp: %w", err)
		}
		mcpS.d = append(mcpS.d, d)
		seq++
	}
	ingestRows(rep, cfg, none, bare, piped, mcpS)
	return seqThroughRun(ctx, cfg, w, pane, seq, rep)
}

// ingestRows are section 3's rows for the cat runs: each against no
// client, and tmuxmcp's ratio against the bare readers'.
func ingestRows(rep *report, cfg config, none, bare, piped, mcpS sample) {
	rep.ingest = []sample{none, bare, piped, mcpS}
	const sec = "3 ingest"
	base := none.p(0.5)
	mbps := func(d time.Duration) string {
		return fmt.Sprintf("%.1f MB/s", float64(cfg.ingestMB<<20)/1e6/d.Seconds())
	}
	for _, s := range rep.ingest {
		rep.add(row{sec, fmt.Sprintf("cat %d MiB: %s", cfg.ingestMB, s.name), fmt.Sprintf("median %.2f s of %d (%s)", s.p(0.5).Seconds(), len(s.d), mbps(s.p(0.5))), fmt.Sprintf("no client %.2f s", base.Seconds()), fmt.Sprintf("%.3f", ratio(s.p(0.5), base)), "", ""})
	}
	rb, rm := ratio(bare.p(0.5), base), ratio(mcpS.p(0.5), base)
	rep.add(row{sec, "tmuxmcp ratio ÷ bare `pipe-pane` reader ratio", fmt.Sprintf("%.3f", rm/ratio(piped.p(0.5), base)), "", "", "", ""})
	rep.add(row{sec, "tmuxmcp ratio ÷ bare reader ratio", fmt.Sprintf("%.3f", rm/rb), "", "", "≤ 1.10", verdict(rm/rb <= 1.10)})
	rep.add(row{sec, fmt.Sprintf("cat %d MiB watched by tmuxmcp ÷ unwatched", cfg.ingestMB), fmt.Sprintf("%.2f×", rm), fmt.Sprintf("no client %.2f s", base.Seconds()), fmt.Sprintf("%.3f", rm), "≤ 1.25×", verdict(rm <= 1.25)})
}

// seqLines is how many lines the run_shell_command ingest row prints.
const seqLines = 3000000

// seqThroughRun compares `seq 1 3000000` run by run_shell_command (to its
// end and its output file, checked line by line) with the same command
// watched by a bare `tmux -C` reader, on the same server.
func seqThroughRun(ctx context.Context, cfg config, w *world, pane string, seq int, rep *report) error {
	runs := min(3, cfg.ingestRuns)
	command := fmt.Sprintf("seq 1 %d; echo %s", seqLines, endMark)
	bare := sample{name: fmt.Sprintf("seq 1 %d: bare `tmux -C` reader", seqLines)}
	viaRun := sample{name: fmt.Sprintf("seq 1 %d: run_shell_command, outputFile checked", seqLines)}
	// The bare reader first, alone on the server; then tmuxmcp alone.
	for i := 0; i < runs; i++ {
		r, err := w.attachReader(ctx, pane)
		if err != nil {
			return err
		}
		d, err := w.typeOnce(ctx, pane, command, seq+100+i, func() error {
			return r.lines(func(line []byte, _ time.Time) bool { return string(line) != endMark })
		})
		r.close()
		if err != nil {
			return fmt.Errorf("seq, bare reader: %w", err)
		}
		bare.d = append(bare.d, d)
	}
	c, err := w.startMCP(ctx, nil)
	if err != nil {
		return err
	}
	defer c.close()
	jobPane, err := c.newShell(ctx)
	if err != nil {
		return err
	}
	for i := 0; i < runs; i++ {
		start := time.Now()
		res, err := c.call(ctx, "run_shell_command", map[string]any{"paneId": jobPane, "command": command, "waitMs": 90000, "outputLimit": 1024})
		for err == nil && res["status"] == "running" {
			res, err = c.call(ctx, "await_command_result", map[string]any{"jobId": res["jobId"], "waitMs": 90000, "outputLimit": 1024})
		}
		if err != nil {
			return fmt.Errorf("seq, run_shell_command: %w", err)
		}
		viaRun.d = append(viaRun.d, time.Since(start))
		file, _ := res["outputFile"].(string)
		n, bad, err := checkSeq(file)
		if err != nil || bad != "" || n != seqLines {
			return fmt.Errorf("seq through run_shell_command: outputFile %s has %d lines (%s, %v), want %d", file, n, bad, err, seqLines)
		}
		_ = os.Remove(file)
	}
	const sec = "3 ingest"
	rep.add(row{sec, bare.name, fmt.Sprintf("median %.2f s of %d", bare.p(0.5).Seconds(), len(bare.d)), "—", "1.000", "", ""})
	rv := ratio(viaRun.p(0.5), bare.p(0.5))
	rep.add(row{sec, viaRun.name, fmt.Sprintf("median %.2f s of %d; %d of %d lines, in order", viaRun.p(0.5).Seconds(), len(viaRun.d), seqLines, seqLines), fmt.Sprintf("bare reader %.2f s", bare.p(0.5).Seconds()), fmt.Sprintf("%.3f", rv), "≤ 1.25", verdict(rv <= 1.25)})
	return nil
}

// checkSeq counts the lines of a seq output file and says where it first
// differs from 1, 2, 3, ... (the end mark line is allowed last).
func checkSeq(path string) (int, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if line == endMark {
			break
		}
		n++
		if line != fmt.Sprint(n) {
			return n, fmt.Sprintf("line %d is %q", n, line), nil
		}
	}
	return n, "", sc.Err()
}

// poll is the idle baseline: what a polling server does, capture-pane on
// every pane each period.
func poll(args []string) {
	fs := flag.NewFlagSet("poll", flag.ExitOnError)
	socket := fs.String("L", "", "tmux socket name")
	panes := fs.String("panes", "", "comma-separated pane ids")
	every := fs.Duration("every", 100*time.Millisecond, "period")
	dur := fs.Duration("for", time.Minute, "how long")
	_ = fs.Parse(args)
	t := tmux.Target{SocketName: *socket}
	tick := time.NewTicker(*every)
	defer tick.Stop()
	end := time.Now().Add(*dur)
	for time.Now().Before(end) {
		<-tick.C
		for _, p := range strings.Split(*panes, ",") {
			_, _ = t.Run(context.Background(), "capture-pane", "-p", "-t", p)
		}
	}
}

// tmuxCounter is a tmux wrapper that records every process started
// through it: put bin first in a server's PATH and every tmux it runs is
// counted, with its arguments.
type tmuxCounter struct {
	bin, log string
}

// countTmux makes a counting wrapper of its own under the world's files.
func (w *world) countTmux(name string) (*tmuxCounter, error) {
	real, err := exec.LookPath("tmux")
	if err != nil {
		return nil, err
	}
	tc := &tmuxCounter{bin: filepath.Join(w.tmp, "bin-"+name), log: filepath.Join(w.tmp, "spawned-"+name)}
	if err := os.Mkdir(tc.bin, 0o755); err != nil {
		return nil, err
	}
	script := fmt.Sprintf("#!/bin/sh\necho \"$*\" >> %s\nexec %s \"$@\"\n", tc.log, real)
	if err := os.WriteFile(filepath.Join(tc.bin, "tmux"), []byte(script), 0o755); err != nil {
		return nil, err
	}
	return tc, nil
}

// spawned is how many tmux processes went through the wrapper so far.
func (tc *tmuxCounter) spawned() int { return len(tc.calls()) }

// calls are the argument lists of the tmux processes so far, in order.
func (tc *tmuxCounter) calls() []string {
	b, _ := os.ReadFile(tc.log)
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")[:strings.Count(string(b), "\n")]
}

// pathEnv is the environment entry that puts the wrapper first in PATH.
func (tc *tmuxCounter) pathEnv() string { return "PATH=" + tc.bin + ":" + os.Getenv("PATH") }

// sectionIdle is section 4: CPU and tmux processes over cfg.idle with 20
// idle panes and 100 open waits, beside a 100 ms polling loop over the
// same panes run at the same time.
func sectionIdle(ctx context.Context, cfg config, rep *report) error {
	w, err := newWorld(ctx, cfg)
	if err != nil {
		return err
	}
	defer w.close()
	// Every tmux process tmuxmcp starts goes through this wrapper, which
	// counts it.
	tc, err := w.countTmux("tmuxmcp")
	if err != nil {
		return err
	}
	spawned := tc.spawned
	waitMax := cfg.idle + 2*time.Minute
	c, err := w.startMCP(ctx, []string{tc.pathEnv()}, "--wait-max", waitMax.String())
	if err != nil {
		return err
	}
	defer c.close()
	var panes []string
	for i := 0; i < 20; i++ {
		p, err := c.newShell(ctx)
		if err != nil {
			return err
		}
		panes = append(panes, p)
	}
	// 2 s: every wait is open and the panes are quiet.
	stop, err := c.park(ctx, 100, panes, waitMax, 2*time.Second, never)
	if err != nil {
		return err
	}
	setup := spawned()
	if setup == 0 {
		return fmt.Errorf("the tmux wrapper counted nothing during set-up: tmuxmcp does not run tmux from PATH")
	}
	srv, err := w.serverPID(ctx)
	if err != nil {
		return err
	}
	exe, _ := os.Executable()
	poller := exec.CommandContext(ctx, exe, "poll", "-L", w.target.SocketName, "-panes", strings.Join(panes, ","), "-every", "100ms", "-for", cfg.idle.String())
	cpu0, _ := cpuTime(c.pid())
	srv0, _ := cpuTime(srv)
	n0 := spawned()
	if err := poller.Start(); err != nil {
		return err
	}
	if err := poller.Wait(); err != nil {
		return fmt.Errorf("poller: %w", err)
	}
	cpu1, _ := cpuTime(c.pid())
	srv1, _ := cpuTime(srv)
	n1 := spawned()
	early := stop()
	ru := poller.ProcessState.SysUsage().(*syscall.Rusage)
	pollCPU := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	perMin := func(d time.Duration) float64 { return d.Seconds() * float64(time.Minute) / float64(cfg.idle) }
	pollProcs := int(cfg.idle/(100*time.Millisecond)) * len(panes)
	const sec = "4 idle"
	mine := perMin(cpu1 - cpu0)
	rep.add(row{sec, fmt.Sprintf("tmuxmcp CPU, 20 idle panes + 100 open waits, %v", cfg.idle), fmt.Sprintf("%.3f CPU-s/min", mine), fmt.Sprintf("100 ms poll %.2f CPU-s/min", perMin(pollCPU)), fmt.Sprintf("%.4f", mine/max(perMin(pollCPU), 1e-9)), "≤ 0.1 CPU-s/min", verdict(mine <= 0.1)})
	rep.add(row{sec, "tmux processes tmuxmcp spawned meanwhile", fmt.Sprintf("%d (%d during set-up: the counter works)", n1-n0, setup), fmt.Sprintf("100 ms poll ≈ %d", pollProcs), "", "0", verdict(n1 == n0)})
	rep.add(row{sec, "tmux server CPU meanwhile (with the poll running)", fmt.Sprintf("%.3f CPU-s/min", perMin(srv1-srv0)), "", "", "", ""})
	if early > 0 {
		return fmt.Errorf("%d of the 100 idle waits ended before the window did", early)
	}
	return nil
}

// sectionMemory is section 5: RSS with 100 panes whose buffers are full.
func sectionMemory(ctx context.Context, cfg config, rep *report) error {
	w, err := newWorld(ctx, cfg)
	if err != nil {
		return err
	}
	defer w.close()
	const retain = 1 << 20
	path := filepath.Join(w.tmp, "fill.txt")
	if err := writeFile(path, retain+retain/4); err != nil {
		return err
	}
	c, err := w.startMCP(ctx, nil, "--retain", fmt.Sprint(retain))
	if err != nil {
		return err
	}
	defer c.close()
	if _, err := c.call(ctx, "list_panes", map[string]any{}); err != nil {
		return err
	}
	time.Sleep(time.Second)
	base, err := rss(c.pid())
	if err != nil {
		return err
	}
	var panes, curs []string
	for i := 0; i < cfg.panes; i++ {
		p, err := w.shellPane(ctx)
		if err != nil {
			return err
		}
		panes = append(panes, p)
	}
	for _, p := range panes {
		cur, err := c.cursor(ctx, p)
		if err != nil {
			return err
		}
		curs = append(curs, cur)
		if err := w.typeLine(ctx, p, "cat "+path); err != nil {
			return err
		}
	}
	for i, p := range panes {
		r, err := c.call(ctx, "wait_for_text", map[string]any{"paneId": p, "cursor": curs[i], "patterns": []string{"^" + endMark + "$"}, "regex": true, "timeoutMs": 120000})
		if err != nil {
			return err
		}
		if r["outcome"] != "matched" {
			return fmt.Errorf("pane %s: outcome %v", p, r["outcome"])
		}
	}
	lp, err := c.call(ctx, "list_panes", map[string]any{})
	if err != nil {
		return err
	}
	var retained int64
	list, _ := lp["panes"].([]any)
	for _, x := range list {
		m, _ := x.(map[string]any)
		if cur, ok := m["cursor"].(string); ok {
			retained += min(retain, offset(cur))
		}
	}
	time.Sleep(2 * time.Second)
	full, err := rss(c.pid())
	if err != nil {
		return err
	}
	per := float64(full-base-retained) / float64(len(list))
	const sec = "5 memory"
	rep.add(row{sec, fmt.Sprintf("RSS, %d panes with full 1 MiB buffers", len(list)), mib(full), "process at start " + mib(base), fmt.Sprintf("%.2f× retained", float64(full)/float64(retained)), "", ""})
	rep.add(row{sec, "retained bytes", mib(retained), "", "", "", ""})
	rep.add(row{sec, "overhead per pane beyond its retained bytes", fmt.Sprintf("%.1f KiB", per/1024), "(RSS − start − retained) ÷ panes", "", "≤ 64 KiB", verdict(per <= 64<<10)})
	return nil
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
