package runner

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/shell"
	"github.com/tmuxmcp/tmuxmcp/stream"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// escalation is the interrupt schedule: SIGINT (C-c) at once, unless the
// command is ending by itself (interruptFirst), SIGTERM to the foreground
// program 1 s after it, SIGKILL after 2 s; given up after 4 s.
var escalation = []time.Duration{0, time.Second, 2 * time.Second, 4 * time.Second}

// idleAfter is how long a running job's pane must be quiet before tmuxmcp
// first checks whether its shell is back at the prompt without an end mark
// (the command was interrupted, or ended while tmuxmcp was not running);
// the checks then back off to idleMax while the pane stays quiet.
const (
	idleAfter = 400 * time.Millisecond
	idleMax   = 5 * time.Second
)

// noStartAfter is how long after typing a job may go without its start
// mark, the pane quiet, before tmuxmcp looks at what the shell did with it.
const noStartAfter = 3 * time.Second

// noStartMax is when a job that never started is given up.
const noStartMax = 60 * time.Second

// PromptWait bounds how long a job that ended waits for its shell's next
// prompt to be drawn and read before it is reported without it
// (ShellReady false).
const PromptWait = 5 * time.Second

// settleQuiet is how long a shell without integration must be quiet after
// a job's end mark for its prompt to count as drawn.
const settleQuiet = 30 * time.Millisecond

// ending is a job whose end was seen, waiting for the shell's next prompt.
type ending struct {
	status jobs.Status
	code   *int
	signal string
	start  int64 // stream offset of the end mark
	end    int64 // stream offset after the end mark
	at     time.Time
}

// Watch follows a started job to its end in the calling goroutine (run's):
// output into the job's files, its end mark and exit status, the shell's
// next prompt, stop requests and the job's timeout.
func (r *Runner) Watch(run *Run, st *Started) {
	j, ok := r.jobs.Get(run.ID)
	if !ok {
		return
	}
	s, from, resumed := st.Stream, st.From, st.Resumed
	pane, _ := parsePane(j.PaneID)
	scanner := shell.NewMarkScanner(from)
	dec := stream.NewPlain(from)
	out := newJobOutput(r.jobs.Path(run.ID, ".out"), j.OutputLimit, resumed)
	out.log = func(err error) { r.log.Error("job output file is not whole", "job", run.ID, "err", err) }
	defer out.close()
	r.mu.Lock()
	if r.outputs == nil {
		r.outputs = map[string]*jobOutput{}
	}
	r.outputs[run.ID] = out
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.outputs, run.ID)
		r.mu.Unlock()
	}()
	// Every byte from here on is also spooled as it is ingested, so the
	// output file never depends on how far behind this loop falls.
	sp, err := newSpool(r.jobs.Path(run.ID, ".raw"))
	if err == nil {
		from, untap := s.Tap(sp.write)
		sp.start(from)
		defer untap()
		defer sp.remove()
	} else {
		r.log.Warn("job spool", "job", run.ID, "err", err)
	}
	var spoolBuf []byte
	started := resumed
	if resumed {
		out.begin(from)
		run.markBegun()
	}
	var shellMarks shell.PromptState // the integrated shell's own marks, for real prompts
	var timeout <-chan time.Time
	if j.TimeoutMs > 0 {
		t := time.NewTimer(time.Until(j.Started.Add(time.Duration(j.TimeoutMs) * time.Millisecond)))
		defer t.Stop()
		timeout = t.C
	}
	idleGap := noStartAfter
	idle := time.NewTimer(idleGap)
	if resumed {
		idle.Reset(0)
	}
	defer idle.Stop()
	var (
		stopping   jobs.Status // interrupted or timed_out once asked to stop
		step       int
		lastSignal string
		stopAt     int64     // the stream's end when the stop was asked
		stopAsked  time.Time // when it was asked
		// sentAt is the stream offset just before the first interrupt went
		// out (-1 until one did): an end mark before it is the command's
		// own end. typed: it was C-c typed into the terminal; caught: what
		// it went to catches SIGINT (see interruptFirst).
		sentAt    = int64(-1)
		typed     bool
		caught    bool
		pos       = from
		buf       []byte
		end       *ending // the job's end was seen: waiting for the prompt
		launchErr string  // why a job that never started did not
		recheck   = 5 * time.Millisecond
		stepT     = stoppedTimer()
		promptT   = stoppedTimer()
		recheckT  = stoppedTimer()
		settleT   = stoppedTimer()
	)
	defer func() {
		for _, t := range []*time.Timer{stepT, promptT, recheckT, settleT} {
			t.Stop()
		}
	}()
	// reached reports whether the interrupt reached a command whose end,
	// with status code, was seen at stream offset at: it went out before
	// that, and the status does not show that it missed the command (SIGINT
	// kills a group that does not catch it: a status that is not a
	// signal's says it was exiting already; see interruptFirst).
	reached := func(at int64, code *int) bool {
		if stopping == "" || sentAt < 0 || at < sentAt {
			return false
		}
		return caught || code == nil || shell.SignalName(*code) != ""
	}
	finish := func(status jobs.Status, code *int, signal string, endAt int64, ready bool, readyWait time.Duration) {
		if code != nil {
			if sig := shell.SignalName(*code); sig != "" {
				signal = sig
			}
		}
		if signal == "" && stopping != "" && code == nil {
			// Only when nothing else says how it ended: a command that
			// caught the signal and went on reports its own exit status.
			signal = lastSignal
		}
		out.close() // before the record says whether the file is whole
		final, _ := r.jobs.Update(run.ID, func(x *jobs.Job) {
			x.Ended = time.Now().UTC()
			x.Output, x.OmittedBytes = out.text()
			x.OutputBytes = out.total
			if out.err != nil {
				x.OutputFileError = out.err.Error()
			}
			x.MissedBytes += out.missed
			if out.cut() || out.err != nil {
				x.OutputFile = out.path
			}
			x.Status, x.ExitCode, x.EndOffset = status, code, endAt
			x.ShellReady, x.ReadyWaitMs, x.LaunchError = ready, readyWait.Milliseconds(), launchErr
			if signal != "" {
				x.Signal = ptr(signal)
			}
		})
		if !out.cut() && out.err == nil {
			out.remove()
		}
		// Off the result's path: on a remote host it is a round trip.
		r.wg.Add(1) // this watcher holds the group open, so Add is safe here
		go func() {
			defer r.wg.Done()
			r.removeScripts(context.Background(), run.ID)
		}()
		if final != nil && r.cfg.Ended != nil {
			r.cfg.Ended(final)
		}
		r.afterJob(final)
	}
	// ended records the job's end; with a shell to come back to, it then
	// waits for the prompt, else (a fresh pane about to close) it is done.
	ended := func(status jobs.Status, code *int, startAt, endAt int64) bool {
		if status == jobs.Completed && reached(startAt, code) {
			status = stopping
		}
		end = &ending{status: status, code: code, start: startAt, end: endAt, at: time.Now()}
		if j.FreshPane && !j.Keep {
			finish(status, code, "", endAt, false, 0)
			return true
		}
		promptT.Reset(PromptWait)
		idle.Stop()
		if j.ShellTag == "" {
			settleT.Reset(settleQuiet)
		}
		return false
	}
	// ready reports whether the shell now reads input at its prompt.
	// ready reports whether the shell now reads input at its prompt; it
	// keeps what it saw, for the prompt to remember.
	var seen promptLook
	ready := func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var ok bool
		seen, ok = r.lookAtPrompt(ctx, pane, j.ShellTag == "")
		return ok
	}
	done := func(ok bool) {
		if typed && !reached(end.start, end.code) {
			// C-c went to a shell that had left the command: its prompt
			// redraws after it. Reported once that is over, so the next
			// call finds the shell as it stays.
			ctx, cancel := context.WithTimeout(context.Background(), 2*submitSettle)
			r.awaitReaction(ctx, s)
			cancel()
			ok = ready()
		}
		wait := time.Since(end.at)
		finish(end.status, end.code, end.signal, end.end, ok, wait)
		if ok {
			r.learnPrompt(pane, s, j.ShellTag, seen)
		}
	}
	// prompted reports whether the text after the end mark ends with the
	// prompt this (non-integrated) shell drew last time: then it is drawn
	// again, and the shell can be asked at once.
	known, _ := r.knownPrompt(pane, s, tmux.PaneInfo{}, shell.Probe{ForegroundPgrp: -1})
	var after []byte
	prompted := func(data []byte, base int64) bool {
		if known == "" || end == nil {
			return false
		}
		lo := max(0, end.end-base)
		if lo < int64(len(data)) {
			after = append(after, data[lo:]...)
			if len(after) > 4096 {
				after = after[len(after)-4096:]
			}
		}
		return strings.HasSuffix(strings.TrimRight(promptLine(after, 0), " "), strings.TrimRight(known, " "))
	}
	// feedTo moves the output decoder up to stream offset to.
	feedTo := func(data []byte, base, to int64) {
		if !started || end != nil {
			return
		}
		if dec.Offset() < base {
			dec = stream.NewPlain(base)
		}
		lo, hi := dec.Offset()-base, min(to, base+int64(len(data)))-base
		if hi <= lo {
			return
		}
		// Where tmux discarded output (flow control), the file says so in
		// place, on a line of its own.
		gaps := s.GapsIn(base+lo, base+hi)
		if sp != nil {
			// The ring forgets gaps it evicted; the spool keeps them.
			gaps = append(gaps, sp.gapsIn(base+lo, base+hi)...)
			slices.Sort(gaps)
			gaps = slices.Compact(gaps)
		}
		for _, g := range gaps {
			if g-base > lo {
				out.feed(dec, data[lo:g-base])
			}
			out.gap()
			lo = g - base + 1
			dec = stream.NewPlain(base + lo)
		}
		if hi > lo {
			out.feed(dec, data[lo:hi])
		}
	}
	for {
		select {
		case <-r.closing:
			return // a backlog is not worked through at shutdown: the record stays running, for the next process
		default:
		}
		c := s.ReadRaw(pos, 256<<10, buf)
		buf = c.Data[:0]
		if c.From > pos && sp != nil {
			// Evicted from the ring before this loop read it: the spool
			// has it.
			if data := sp.readAt(pos, int(min(c.From-pos, 256<<10)), spoolBuf); len(data) > 0 {
				spoolBuf = data[:0]
				c = stream.RawChunk{Data: data, From: pos, End: c.End, Ended: c.Ended, Died: c.Died, Changed: c.Changed}
			}
		}
		if c.From > pos {
			// Evicted before we read it: if the start mark was among the
			// lost bytes, the command has started all the same.
			if end == nil {
				out.missed += c.From - pos
			}
			scanner = shell.NewMarkScanner(c.From)
			dec = stream.NewPlain(c.From)
			started = true
			out.begin(c.From)
			run.markBegun()
		}
		if len(c.Data) > 0 {
			data, base := c.Data, c.From
			for _, m := range scanner.Feed(data) {
				// A job's own marks carry its id (script) or its shell's
				// tag (typed as is); the shell's end mark also ends a
				// script that an interrupt cut short.
				ours := m.Tag == run.ID || j.Mode == jobs.Integrated && m.Tag == j.ShellTag && j.ShellTag != ""
				shells := j.ShellTag != "" && m.Tag == j.ShellTag
				if shells && !shellMarks.Feed(m) {
					continue // a line editor the command uses, not a prompt
				}
				switch {
				case end != nil:
					if shells && m.Kind == 'B' && m.Start >= end.end {
						// The next prompt is drawn; its line editor reads
						// input once the terminal left canonical mode.
						if ready() {
							done(true)
							return
						}
						recheckT.Reset(recheck)
					}
				case m.Kind == 'C' && !started && ours:
					started = true
					dec = stream.NewPlain(m.End)
					out.begin(m.End)
					run.markBegun()
				case m.Kind == 'D' && (ours || shells && started):
					// Ours, or an integrated shell's prompt after an
					// interrupted script or a line that ran nothing (a
					// comment): the command is over.
					feedTo(data, base, m.Start)
					var code *int
					if m.Status >= 0 {
						code = ptr(m.Status)
					}
					if ended(jobs.Completed, code, m.Start, m.End) {
						return
					}

				}
			}
			feedTo(data, base, base+int64(len(data)))
			pos = base + int64(len(data))
			if sp != nil {
				sp.release(pos) // read: the spool need not keep it
			}
			if end != nil && j.ShellTag == "" && pos > end.end && prompted(data, base) && ready() {
				done(true)
				return
			}
			switch {
			case end != nil && j.ShellTag == "" && pos > end.end:
				settleT.Reset(settleQuiet)
			case end == nil && started:
				idleGap = idleAfter
				idle.Reset(idleGap)
			case end == nil:
				idle.Reset(idleGap)
			}
			if pos < c.End {
				continue
			}
		}
		if c.Ended && pos >= c.End {
			if end != nil {
				finish(end.status, end.code, end.signal, end.end, false, time.Since(end.at))
				return
			}
			if _, died, f := s.Ended(); !died {
				if f == stream.HubClosed || f == stream.ConnectionLost && r.cfg.Remote {
					// tmuxmcp is shutting down, or the link to a remote
					// host dropped, not the command: the record stays
					// running and is watched again at the next start or
					// once the host is back (Resume).
					return
				}
				// The tmux server is gone, and the pane with it: the
				// command was killed, its status unknown.
				finish(jobs.PaneDied, nil, "", pos, false, 0)
				return
			}
			// The shell itself may have exited (exit 3 in a fresh pane):
			// its job script's EXIT trap recorded the status.
			finish(jobs.PaneDied, r.statusFile(run.ID), "", pos, false, 0)
			return
		}
		select {
		case <-c.Changed:
		case <-promptT.C:
			done(false)
			return
		case <-recheckT.C:
			if ready() {
				done(true)
				return
			}
			recheck = min(2*recheck, 100*time.Millisecond)
			recheckT.Reset(recheck)
		case <-settleT.C:
			// A prompt was drawn after the end mark, and the shell is in
			// front again (a shell with an empty prompt draws nothing).
			if (pos > end.end || time.Since(end.at) > 200*time.Millisecond) && ready() {
				done(true)
				return
			}
			settleT.Reset(settleQuiet)
		case <-idle.C:
			if !started {
				if gone, why := r.notStarted(j); gone {
					launchErr = why
					finish(jobs.NotStarted, nil, "", pos, true, 0)
					return
				}
				if time.Since(j.Started) > noStartMax {
					r.interrupt(j.PaneID)
					launchErr = "the shell did not start the command within a minute of it being typed; it was cleared with Ctrl-C"
					finish(jobs.NotStarted, nil, "", pos, false, 0)
					return
				}
				idleGap = min(2*idleGap, idleMax)
				idle.Reset(idleGap)
				continue
			}
			if back, code := r.backAtPrompt(j, s); back {
				status := jobs.Completed
				if reached(pos, code) {
					status = stopping
				}
				finish(status, code, "", pos, true, 0)
				return
			}
			idleGap = min(2*idleGap, idleMax)
			idle.Reset(idleGap)
		case <-timeout:
			timeout = nil
			run.requestStop(jobs.TimedOut)
		case st := <-run.stop:
			if end != nil {
				continue // it ended already: its own status stands
			}
			if stopping == "" {
				stopping, step = st, 0
				stopAt, stopAsked = s.End(), time.Now()
				stepT.Reset(0)
			}
		case <-stepT.C:
			if end != nil {
				continue // it ended by itself: nothing more is sent
			}
			if step == 0 && sentAt < 0 {
				asked := time.Since(stopAsked)
				if pos < stopAt && asked < catchUpMax {
					// What the pane printed before the stop was asked is
					// read first: the command's own end mark may be in it.
					stepT.Reset(time.Millisecond)
					continue
				}
				sent := r.interruptFirst(j.PaneID, s, j.ShellTag, asked, !started || asked >= escalation[1])
				switch sent.res {
				case interruptLater:
					stepT.Reset(interruptRetry)
					continue
				case interruptSignalled, interruptTyped:
					sentAt, typed, caught, lastSignal = sent.at, sent.res == interruptTyped, sent.caught, "SIGINT"
				}
				step++
				stepT.Reset(escalation[1])
				idleGap = idleAfter
				idle.Reset(idleGap)
				continue
			}
			if step >= len(escalation)-1 {
				// Nothing ended it: report what was done.
				finish(stopping, nil, "", pos, false, 0)
				return
			}
			if sent := r.escalate(j.PaneID, step); sent != "" {
				lastSignal = sent
				if sentAt < 0 {
					sentAt, caught = s.End(), true
				}
			}
			step++
			stepT.Reset(escalation[step] - escalation[step-1])
			idleGap = idleAfter
			idle.Reset(idleGap)
		case <-r.closing:
			return
		}
	}
}

// statusFile reads the status a job script recorded, if any.
func (r *Runner) statusFile(id string) *int {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	b, err := r.machine.ReadFile(ctx, r.machine.ScriptPath(id, ".rc"))
	if err != nil {
		return nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return nil
	}
	return &n
}

// backAtPrompt reports whether a started job's shell is idle at its prompt
// with no end mark seen (the pane's own shell in front, its line editor
// reading, the line showing the prompt it showed before), and the status
// the job script recorded, if any.
func (r *Runner) backAtPrompt(j *jobs.Job, s *stream.PaneStream) (bool, *int) {
	if code := r.statusFile(j.ID); code != nil {
		return true, code
	}
	pane, err := parsePane(j.PaneID)
	if err != nil {
		return false, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	p, screen, err := r.fleet.PaneScreen(ctx, pane)
	if err != nil || p.Dead {
		return false, nil
	}
	probe, err := r.machine.Probe(p.PID, p.TTY)
	if err != nil || !probe.ShellGroup || !probe.ReadingCommand() {
		return false, nil
	}
	// Only a line editor proves the shell reads a new command: a shell
	// without one keeps the terminal in line mode at its prompt, and while
	// it runs a builtin too.
	if k, _ := shell.KindOf(probe.Leader); !k.LineEditor() {
		return false, nil
	}
	// A builtin that reads with the line editor (fish's read) looks the
	// same from outside: the line must show the shell's own prompt, when
	// tmuxmcp knows it.
	prompt, known := r.knownPrompt(pane, s, p, probe)
	if !known {
		// An integrated shell's own marks will say when it is back; for a
		// shell without them, the line editor is the best sign there is.
		return j.ShellTag == "", nil
	}
	if p.CursorY >= len(screen) {
		return false, nil
	}
	runes := []rune(screen[p.CursorY])
	before := strings.TrimRight(string(runes[:min(p.CursorX, len(runes))]), " ")
	return before == strings.TrimRight(prompt, " "), nil
}

// notStarted looks at a job whose start mark has not come, its pane quiet:
// the shell may have taken the line as unfinished (a continuation prompt:
// cleared with Ctrl-C), or dropped it. It reports whether the job is over,
// and why.
func (r *Runner) notStarted(j *jobs.Job) (bool, string) {
	pane, err := parsePane(j.PaneID)
	if err != nil {
		return false, ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	p, screen, err := r.fleet.PaneScreen(ctx, pane)
	if err != nil || p.Dead || p.CursorY >= len(screen) {
		return false, ""
	}
	probe, err := r.machine.Probe(p.PID, p.TTY)
	if err != nil || !probe.ReadingCommand() {
		return false, ""
	}
	k, _ := shell.KindOf(probe.Leader)
	runes := []rune(screen[p.CursorY])
	before := strings.TrimRight(string(runes[:min(p.CursorX, len(runes))]), " ")
	if shell.IsCorrection(before) {
		// zsh asks whether to correct a word of the line tmuxmcp typed:
		// the command runs as it was written.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, _ = r.fleet.Exec(ctx, "send-keys", "-t", j.PaneID, "n")
		return false, ""
	}
	if k.IsContinuation(before) {
		r.interrupt(j.PaneID)
		return true, "the shell took the command as unfinished and waited for more at a continuation prompt (" + strings.TrimSpace(before) + "); it was cleared with Ctrl-C and nothing ran"
	}
	return false, ""
}

func (r *Runner) interrupt(paneID string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _ = r.fleet.Exec(ctx, "send-keys", "-t", paneID, "C-c")
}

// promptLook is what lookAtPrompt saw of a pane whose shell reads input.
type promptLook struct {
	probe shell.Probe
	line  string // the cursor's line up to the cursor (shells without integration)
}

// lookAtPrompt reports whether the pane's shell reads a command now, and
// what it saw. withLine also reads the screen's cursor line.
func (r *Runner) lookAtPrompt(ctx context.Context, pane int, withLine bool) (promptLook, bool) {
	var p tmux.PaneInfo
	var screen []string
	var err error
	if withLine {
		p, screen, err = r.fleet.PaneScreen(ctx, pane)
	} else {
		p, err = r.fleet.Pane(ctx, pane)
	}
	if err != nil || p.Dead {
		return promptLook{}, false
	}
	probe, err := r.machine.Probe(p.PID, p.TTY)
	if err != nil || !probe.ReadingCommand() {
		return promptLook{}, false
	}
	look := promptLook{probe: probe}
	if p.CursorY < len(screen) {
		runes := []rune(screen[p.CursorY])
		look.line = strings.TrimRight(string(runes[:min(p.CursorX, len(runes))]), " ")
	}
	return look, true
}

// learnPrompt remembers the prompt a job's shell came back to: from its
// end-of-prompt mark (integrated, tagged), or from the screen (a shell
// without integration, right after it drew the prompt).
func (r *Runner) learnPrompt(pane int, s *stream.PaneStream, tag string, seen promptLook) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if tag != "" {
		if mi := lastMarks(s, strings.TrimPrefix(tag, "s")); mi.prompted && mi.last == 'B' && seen.probe.ShellGroup {
			r.rememberPrompt(ctx, pane, s, seen.probe.ForegroundPgrp, mi.prompt, true)
		}
		return
	}
	r.rememberPrompt(ctx, pane, s, seen.probe.ForegroundPgrp, seen.line, false)
}

// afterJob restores a pane's title and closes a fresh pane.
func (r *Runner) afterJob(final *jobs.Job) {
	if final == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if final.Description != "" && !final.FreshPane {
		_, _ = r.fleet.Exec(ctx, "select-pane", "-t", final.PaneID, "-T", final.PaneTitle)
	}
	if final.FreshPane && !final.Keep {
		_, _ = r.fleet.Exec(ctx, "kill-pane", "-t", final.PaneID)
	}
}

// escalate performs interrupt step n (1: SIGTERM, 2 on: SIGKILL; the
// first, SIGINT, is interruptFirst's) and names the signal it sent, or "".
// It never signals the shell itself: when the foreground group is the
// shell's own (a command substitution), it signals the other members one
// by one.
func (r *Runner) escalate(paneID string, n int) string {
	pane, err := parsePane(paneID)
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	p, err := r.fleet.Pane(ctx, pane)
	if err != nil {
		return ""
	}
	sig, name := syscall.SIGTERM, "SIGTERM"
	if n >= 2 {
		sig, name = syscall.SIGKILL, "SIGKILL"
	}
	probe, err := r.machine.Probe(p.PID, p.TTY)
	if err != nil || probe.AtShellPrompt() || probe.ForegroundPgrp <= 1 {
		return ""
	}
	if !probe.LeaderIsShell() {
		if r.machine.Signal(-probe.ForegroundPgrp, sig) == nil {
			return name
		}
		return ""
	}
	sent := ""
	for _, pid := range probe.OtherPIDs {
		if r.machine.Signal(pid, sig) == nil {
			sent = name
		}
	}
	return sent
}

// removeScripts deletes job id's script files on the pane's machine.
func (r *Runner) removeScripts(ctx context.Context, id string) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	r.machine.Remove(ctx, r.machine.ScriptPath(id, ".sh"), r.machine.ScriptPath(id, ".run"), r.machine.ScriptPath(id, ".rc"))
}

func parsePane(id string) (int, error) {
	return strconv.Atoi(strings.TrimPrefix(id, "%"))
}

// stoppedTimer returns a timer that has not started.
func stoppedTimer() *time.Timer {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return t
}
