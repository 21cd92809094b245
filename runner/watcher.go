package runner

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/shell"
	"github.com/tmuxmcp/tmuxmcp/stream"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// watcher follows one started job to its end (Watch): what it has read of
// the pane's stream, the job's output, its timers, and the state of a stop.
// Watch reads and waits; each event is one method here, and a method that
// returns true has ended the watch.
type watcher struct {
	r    *Runner
	run  *Run
	j    *jobs.Job
	s    *stream.PaneStream
	pane int

	scanner *shell.MarkScanner
	dec     *stream.Plain // the output's decoder, at the output's end
	out     *jobOutput
	// sp spools every byte from the watch's start as it is ingested (nil
	// when it could not be made); untap ends that.
	sp       *spool
	untap    func()
	spoolBuf []byte
	buf      []byte
	pos      int64 // the stream offset read up to
	started  bool  // the command's start mark came (or was lost): its output is being read
	// shellMarks follows the integrated shell's own marks, for real
	// prompts.
	shellMarks shell.PromptState

	timeoutT *time.Timer // the job's timeout, or nil
	timeout  <-chan time.Time
	idle     *time.Timer
	idleGap  time.Duration
	stepT    *time.Timer // the stop's next step
	promptT  *time.Timer // PromptWait after the end
	recheckT *time.Timer // looks again at a prompt drawn but not read yet
	settleT  *time.Timer // a shell without integration quiet after its end
	recheck  time.Duration

	stopping   jobs.Status // interrupted or timed_out once asked to stop
	step       int
	lastSignal string
	stopAt     int64     // the stream's end when the stop was asked
	stopAsked  time.Time // when it was asked
	// sentAt is the stream offset just before the first interrupt went
	// out (-1 until one did): an end mark before it is the command's
	// own end. typed: it was C-c typed into the terminal; caught: what
	// it went to catches SIGINT (see interruptFirst).
	sentAt int64
	typed  bool
	caught bool

	end       *ending    // the job's end was seen: waiting for the prompt
	launchErr string     // why a job that never started did not
	seen      promptLook // what the last look at the prompt saw, for the prompt to remember
	// known is the prompt this (non-integrated) shell drew last time;
	// after holds the text since the end mark, to find it in.
	known string
	after []byte
}

// newWatcher sets up the watch of a started job: its output file, the
// spool, the timers. It reports false when the job has no record.
func (r *Runner) newWatcher(run *Run, st *Started) (*watcher, bool) {
	j, ok := r.jobs.Get(run.ID)
	if !ok {
		return nil, false
	}
	s, from, resumed := st.Stream, st.From, st.Resumed
	pane, _ := parsePane(j.PaneID)
	w := &watcher{r: r, run: run, j: j, s: s, pane: pane, pos: from, sentAt: -1, recheck: 5 * time.Millisecond}
	w.scanner = shell.NewMarkScanner(from)
	w.dec = stream.NewPlain(from)
	w.out = newJobOutput(r.jobs.Path(run.ID, ".out"), j.OutputLimit, resumed)
	w.out.log = func(err error) { r.log.Error("job output file is not whole", "job", run.ID, "err", err) }
	r.mu.Lock()
	if r.outputs == nil {
		r.outputs = map[string]*jobOutput{}
	}
	r.outputs[run.ID] = w.out
	r.mu.Unlock()
	// Every byte from here on is also spooled as it is ingested, so the
	// output file never depends on how far behind this loop falls.
	sp, err := newSpool(r.jobs.Path(run.ID, ".raw"))
	if err == nil {
		from, untap := s.Tap(sp.write)
		sp.start(from)
		w.sp, w.untap = sp, untap
	} else {
		r.log.Warn("job spool", "job", run.ID, "err", err)
	}
	w.started = resumed
	if resumed {
		w.out.begin(from)
		run.markBegun()
	}
	if j.TimeoutMs > 0 {
		w.timeoutT = time.NewTimer(time.Until(j.Started.Add(time.Duration(j.TimeoutMs) * time.Millisecond)))
		w.timeout = w.timeoutT.C
	}
	w.idleGap = noStartAfter
	w.idle = time.NewTimer(w.idleGap)
	if resumed {
		w.idle.Reset(0)
	}
	w.stepT, w.promptT, w.recheckT, w.settleT = stoppedTimer(), stoppedTimer(), stoppedTimer(), stoppedTimer()
	w.known, _ = r.knownPrompt(pane, s, tmux.PaneInfo{}, shell.Probe{ForegroundPgrp: -1})
	return w, true
}

// close stops the timers, the spool and the output file.
func (w *watcher) close() {
	for _, t := range []*time.Timer{w.stepT, w.promptT, w.recheckT, w.settleT} {
		t.Stop()
	}
	w.idle.Stop()
	if w.timeoutT != nil {
		w.timeoutT.Stop()
	}
	if w.sp != nil {
		w.sp.remove()
		w.untap()
	}
	w.r.mu.Lock()
	delete(w.r.outputs, w.run.ID)
	w.r.mu.Unlock()
	w.out.close()
}

// read returns the stream's next piece from pos: from the ring, or what
// the ring evicted before it was read from the spool.
func (w *watcher) read() stream.RawChunk {
	c := w.s.ReadRaw(w.pos, 256<<10, w.buf)
	w.buf = c.Data[:0]
	if c.From > w.pos && w.sp != nil {
		// Evicted from the ring before this loop read it: the spool
		// has it.
		if data := w.sp.readAt(w.pos, int(min(c.From-w.pos, 256<<10)), w.spoolBuf); len(data) > 0 {
			w.spoolBuf = data[:0]
			c = stream.RawChunk{Data: data, From: w.pos, End: c.End, Ended: c.Ended, Died: c.Died, Changed: c.Changed}
		}
	}
	if c.From > w.pos {
		w.lost(c.From)
	}
	return c
}

// lost says the stream before offset to was evicted before it was read
// (and the spool does not have it): if the start mark was among the lost
// bytes, the command has started all the same.
func (w *watcher) lost(to int64) {
	if w.end == nil {
		w.out.missed += to - w.pos
	}
	w.scanner = shell.NewMarkScanner(to)
	w.dec = stream.NewPlain(to)
	w.started = true
	w.out.begin(to)
	w.run.markBegun()
}

// data takes a piece of the stream read at base: its marks, the output up
// to them, and the timers its arrival resets.
func (w *watcher) data(c stream.RawChunk) bool {
	data, base := c.Data, c.From
	for _, m := range w.scanner.Feed(data) {
		if w.mark(m, data, base) {
			return true
		}
	}
	w.feedTo(data, base, base+int64(len(data)))
	w.pos = base + int64(len(data))
	if w.sp != nil {
		w.sp.release(w.pos) // read: the spool need not keep it
	}
	if w.end != nil && w.j.ShellTag == "" && w.pos > w.end.end && w.prompted(data, base) && w.ready() {
		w.done(true)
		return true
	}
	switch {
	case w.end != nil && w.j.ShellTag == "" && w.pos > w.end.end:
		w.settleT.Reset(settleQuiet)
	case w.end == nil && w.started:
		w.idleGap = idleAfter
		w.idle.Reset(w.idleGap)
	case w.end == nil:
		w.idle.Reset(w.idleGap)
	}
	return false
}

// mark takes one mark of the piece data read at base.
func (w *watcher) mark(m shell.Mark, data []byte, base int64) bool {
	j := w.j
	// A job's own marks carry its id (script) or its shell's tag (typed
	// as is); the shell's end mark also ends a script that an interrupt
	// cut short.
	ours := m.Tag == w.run.ID || j.Mode == jobs.Integrated && m.Tag == j.ShellTag && j.ShellTag != ""
	shells := j.ShellTag != "" && m.Tag == j.ShellTag
	if shells && !w.shellMarks.Feed(m) {
		return false // a line editor the command uses, not a prompt
	}
	switch {
	case w.end != nil:
		if shells && m.Kind == 'B' && m.Start >= w.end.end {
			// The next prompt is drawn; its line editor reads input once
			// the terminal left canonical mode.
			if w.ready() {
				w.done(true)
				return true
			}
			w.recheckT.Reset(w.recheck)
		}
	case m.Kind == 'C' && !w.started && ours:
		w.started = true
		w.dec = stream.NewPlain(m.End)
		w.out.begin(m.End)
		w.run.markBegun()
	case m.Kind == 'D' && (ours || shells && w.started):
		// Ours, or an integrated shell's prompt after an interrupted
		// script or a line that ran nothing (a comment): the command is
		// over.
		w.feedTo(data, base, m.Start)
		var code *int
		if m.Status >= 0 {
			code = ptr(m.Status)
		}
		return w.ended(jobs.Completed, code, m.Start, m.End)
	}
	return false
}

// feedTo moves the output decoder up to stream offset to.
func (w *watcher) feedTo(data []byte, base, to int64) {
	if !w.started || w.end != nil {
		return
	}
	if w.dec.Offset() < base {
		w.dec = stream.NewPlain(base)
	}
	lo, hi := w.dec.Offset()-base, min(to, base+int64(len(data)))-base
	if hi <= lo {
		return
	}
	// Where tmux discarded output (flow control), the file says so in
	// place, on a line of its own.
	gaps := w.s.GapsIn(base+lo, base+hi)
	if w.sp != nil {
		// The ring forgets gaps it evicted; the spool keeps them.
		gaps = append(gaps, w.sp.gapsIn(base+lo, base+hi)...)
		slices.Sort(gaps)
		gaps = slices.Compact(gaps)
	}
	for _, g := range gaps {
		if g-base > lo {
			w.out.feed(w.dec, data[lo:g-base])
		}
		w.out.gap()
		lo = g - base + 1
		w.dec = stream.NewPlain(base + lo)
	}
	if hi > lo {
		w.out.feed(w.dec, data[lo:hi])
	}
}

// prompted reports whether the text after the end mark ends with the
// prompt this (non-integrated) shell drew last time: then it is drawn
// again, and the shell can be asked at once.
func (w *watcher) prompted(data []byte, base int64) bool {
	if w.known == "" || w.end == nil {
		return false
	}
	lo := max(0, w.end.end-base)
	if lo < int64(len(data)) {
		w.after = append(w.after, data[lo:]...)
		if len(w.after) > 4096 {
			w.after = w.after[len(w.after)-4096:]
		}
	}
	return strings.HasSuffix(strings.TrimRight(promptLine(w.after, 0), " "), strings.TrimRight(w.known, " "))
}

// streamEnded ends the watch when the stream has ended and all of it was
// read.
func (w *watcher) streamEnded() {
	if w.end != nil {
		w.finish(w.end.status, w.end.code, w.end.signal, w.end.end, false, time.Since(w.end.at))
		return
	}
	if _, died, f := w.s.Ended(); !died {
		if f == stream.HubClosed || f == stream.ConnectionLost && w.r.cfg.Remote {
			// tmuxmcp is shutting down, or the link to a remote
			// host dropped, not the command: the record stays
			// running and is watched again at the next start or
			// once the host is back (Resume).
			return
		}
		// The tmux server is gone, and the pane with it: the
		// command was killed, its status unknown.
		w.finish(jobs.PaneDied, nil, "", w.pos, false, 0)
		return
	}
	// The shell itself may have exited (exit 3 in a fresh pane):
	// its job script's EXIT trap recorded the status.
	w.finish(jobs.PaneDied, w.r.statusFile(w.run.ID), "", w.pos, false, 0)
}

// recheckPrompt looks again at a shell that drew its prompt after the
// end but did not read input yet.
func (w *watcher) recheckPrompt() bool {
	if w.ready() {
		w.done(true)
		return true
	}
	w.recheck = min(2*w.recheck, 100*time.Millisecond)
	w.recheckT.Reset(w.recheck)
	return false
}

// settled looks at a shell without integration that has been quiet since
// its job's end mark.
func (w *watcher) settled() bool {
	// A prompt was drawn after the end mark, and the shell is in
	// front again (a shell with an empty prompt draws nothing).
	if (w.pos > w.end.end || time.Since(w.end.at) > 200*time.Millisecond) && w.ready() {
		w.done(true)
		return true
	}
	w.settleT.Reset(settleQuiet)
	return false
}

// idled looks at a job whose pane has been quiet: one that never started,
// or one whose shell may be back at its prompt without an end mark.
func (w *watcher) idled() bool {
	j := w.j
	if !w.started {
		if gone, why := w.r.notStarted(j); gone {
			w.launchErr = why
			w.finish(jobs.NotStarted, nil, "", w.pos, true, 0)
			return true
		}
		if time.Since(j.Started) > noStartMax {
			w.r.interrupt(j.PaneID)
			w.launchErr = "the shell did not start the command within a minute of it being typed; it was cleared with Ctrl-C"
			w.finish(jobs.NotStarted, nil, "", w.pos, false, 0)
			return true
		}
		w.idleGap = min(2*w.idleGap, idleMax)
		w.idle.Reset(w.idleGap)
		return false
	}
	if back, code := w.r.backAtPrompt(j, w.s); back {
		status := jobs.Completed
		if w.reached(w.pos, code) {
			status = w.stopping
		}
		w.finish(status, code, "", w.pos, true, 0)
		return true
	}
	w.idleGap = min(2*w.idleGap, idleMax)
	w.idle.Reset(w.idleGap)
	return false
}

// timedOut is the job's timeout: a stop like cancel_command's.
func (w *watcher) timedOut() {
	w.timeout = nil
	w.run.requestStop(jobs.TimedOut)
}

// stopRequested starts a stop (cancel_command, the timeout).
func (w *watcher) stopRequested(st jobs.Status) {
	if w.end != nil {
		return // it ended already: its own status stands
	}
	if w.stopping == "" {
		w.stopping, w.step = st, 0
		w.stopAt, w.stopAsked = w.s.End(), time.Now()
		w.stepT.Reset(0)
	}
}

// stepDue takes the stop's next step: the first interrupt, then SIGTERM
// and SIGKILL (escalation), then the report of what was done.
func (w *watcher) stepDue() bool {
	if w.end != nil {
		return false // it ended by itself: nothing more is sent
	}
	if w.step == 0 && w.sentAt < 0 {
		w.interruptFirst()
		return false
	}
	if w.step >= len(escalation)-1 {
		// Nothing ended it: report what was done.
		w.finish(w.stopping, nil, "", w.pos, false, 0)
		return true
	}
	if sent := w.r.escalate(w.j.PaneID, w.step); sent != "" {
		w.lastSignal = sent
		if w.sentAt < 0 {
			w.sentAt, w.caught = w.s.End(), true
		}
	}
	w.step++
	w.stepT.Reset(escalation[w.step] - escalation[w.step-1])
	w.idleGap = idleAfter
	w.idle.Reset(w.idleGap)
	return false
}

// interruptFirst is the stop's first step, once what the pane printed
// before the stop was asked has been read.
func (w *watcher) interruptFirst() {
	asked := time.Since(w.stopAsked)
	if w.pos < w.stopAt && asked < catchUpMax {
		// What the pane printed before the stop was asked is read
		// first: the command's own end mark may be in it.
		w.stepT.Reset(time.Millisecond)
		return
	}
	sent := w.r.interruptFirst(w.j.PaneID, w.s, w.j.ShellTag, asked, !w.started || asked >= escalation[1])
	switch sent.res {
	case interruptLater:
		w.stepT.Reset(interruptRetry)
		return
	case interruptSignalled, interruptTyped:
		w.sentAt, w.typed, w.caught, w.lastSignal = sent.at, sent.res == interruptTyped, sent.caught, "SIGINT"
	}
	w.step++
	w.stepT.Reset(escalation[1])
	w.idleGap = idleAfter
	w.idle.Reset(w.idleGap)
}

// reached reports whether the interrupt reached a command whose end,
// with status code, was seen at stream offset at: it went out before
// that, and the status does not show that it missed the command (SIGINT
// kills a group that does not catch it: a status that is not a
// signal's says it was exiting already; see interruptFirst).
func (w *watcher) reached(at int64, code *int) bool {
	if w.stopping == "" || w.sentAt < 0 || at < w.sentAt {
		return false
	}
	return w.caught || code == nil || shell.SignalName(*code) != ""
}

// finish writes the job's final record, and lets its pane go.
func (w *watcher) finish(status jobs.Status, code *int, signal string, endAt int64, ready bool, readyWait time.Duration) {
	r, out := w.r, w.out
	if code != nil {
		if sig := shell.SignalName(*code); sig != "" {
			signal = sig
		}
	}
	if signal == "" && w.stopping != "" && code == nil {
		// Only when nothing else says how it ended: a command that
		// caught the signal and went on reports its own exit status.
		signal = w.lastSignal
	}
	out.close() // before the record says whether the file is whole
	final, _ := r.jobs.Update(w.run.ID, func(x *jobs.Job) {
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
		x.ShellReady, x.ReadyWaitMs, x.LaunchError = ready, readyWait.Milliseconds(), w.launchErr
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
		r.removeScripts(context.Background(), w.run.ID)
	}()
	if final != nil && r.cfg.Ended != nil {
		r.cfg.Ended(final)
	}
	r.afterJob(final)
}

// ended records the job's end; with a shell to come back to, it then
// waits for the prompt, else (a fresh pane about to close) it is done.
func (w *watcher) ended(status jobs.Status, code *int, startAt, endAt int64) bool {
	if status == jobs.Completed && w.reached(startAt, code) {
		status = w.stopping
	}
	w.end = &ending{status: status, code: code, start: startAt, end: endAt, at: time.Now()}
	if w.j.FreshPane && !w.j.Keep {
		w.finish(status, code, "", endAt, false, 0)
		return true
	}
	w.promptT.Reset(PromptWait)
	w.idle.Stop()
	if w.j.ShellTag == "" {
		w.settleT.Reset(settleQuiet)
	}
	return false
}

// ready reports whether the shell now reads input at its prompt; it
// keeps what it saw, for the prompt to remember.
func (w *watcher) ready() bool {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var ok bool
	w.seen, ok = w.r.lookAtPrompt(ctx, w.pane, w.j.ShellTag == "")
	return ok
}

// done reports the ended job, with whether its shell is back at its
// prompt (ok).
func (w *watcher) done(ok bool) {
	end := w.end
	if w.typed && !w.reached(end.start, end.code) {
		// C-c went to a shell that had left the command: its prompt
		// redraws after it. Reported once that is over, so the next
		// call finds the shell as it stays.
		ctx, cancel := context.WithTimeout(context.Background(), 2*submitSettle)
		w.r.awaitReaction(ctx, w.s)
		cancel()
		ok = w.ready()
	}
	wait := time.Since(end.at)
	w.finish(end.status, end.code, end.signal, end.end, ok, wait)
	if ok {
		w.r.learnPrompt(w.pane, w.s, w.j.ShellTag, w.seen)
	}
}
