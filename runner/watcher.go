package runner

import (
	"context"
	"slices"
	"strconv"
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
	holdT    *time.Timer // holdMax after an end mark that is not proven
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

	end *ending // the job's end was seen: waiting for the prompt
	// conflict holds the different statuses end marks of the end's tag
	// gave (none: they agreed): the status is then unknown.
	conflict []int
	// fast says the end is reported at its end mark (fastEnd), before
	// the shell's next prompt; suspect that an end mark came while a
	// program held the terminal: the end then waits for the full proof.
	fast, suspect bool
	// prompting: the shell's prompt mark (A) came after the command's
	// start; shellEnd: the shell's own end mark came after its job
	// script's.
	prompting, shellEnd bool
	// cand is an end mark let go after holdMax (unheld): the shell's next
	// prompt, read, still makes it the end.
	cand *ending
	// confirmAt is the stream offset up to which the pane's output must be
	// read before the end is reported (0: none asked): everything the
	// pane wrote before its shell was found reading again (confirm).
	confirmAt int64
	confirmOK bool // what confirm was told: the prompt was seen
	// deferred is a stop asked once an end mark had come (see
	// stopRequested).
	deferred jobs.Status
	// died says the pane's program (its shell) ended: tmux keeps the pane
	// for its status (deadend.go) until the job is over.
	died bool
	// pid and tty are the pane's first process and terminal, once read.
	pid       int
	tty       string
	launchErr string     // why a job that never started did not
	note      string     // what the job says of its shell's integration (jobs.Job.Note)
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
	w := &watcher{r: r, run: run, j: j, s: s, pane: pane, pos: from, sentAt: -1, recheck: 5 * time.Millisecond, pid: st.PID, tty: st.TTY}
	w.scanner = shell.NewMarkScanner(from)
	w.dec = stream.NewPlain(from)
	w.out = newJobOutput(r.jobs.Path(run.ID, ".out"), j.OutputLimit, resumed)
	w.out.log = func(err error) { r.log.Error("job output file is not whole", "job", run.ID, "err", err) }
	if resumed {
		w.out.foldedBefore = j.FoldedRedraws
	}
	r.mu.Lock()
	if r.outputs == nil {
		r.outputs = map[string]*jobOutput{}
	}
	r.outputs[run.ID] = w.out
	r.mu.Unlock()
	// Every byte from here on is also spooled as it is ingested, so the
	// output file never depends on how far behind this loop falls.
	// Start made it before it typed the line; a job watched again
	// (resumed) gets one now.
	sp, untap, err := st.spool, st.untap, error(nil)
	if sp == nil {
		sp, untap, err = r.jobSpool(run.ID, s)
	}
	if err == nil {
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
	w.stepT, w.promptT, w.recheckT, w.settleT, w.holdT = stoppedTimer(), stoppedTimer(), stoppedTimer(), stoppedTimer(), stoppedTimer()
	w.known, _ = r.knownPrompt(pane, s, tmux.PaneInfo{}, shell.Probe{ForegroundPgrp: -1})
	return w, true
}

// close stops the timers, the spool and the output file.
func (w *watcher) close() {
	for _, t := range []*time.Timer{w.stepT, w.promptT, w.recheckT, w.settleT, w.holdT} {
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
		// Read: the spool need not keep it. What follows an end not yet
		// confirmed is kept: it is the command's output if a later end
		// mark comes (reopen).
		upTo := w.pos
		if w.end != nil {
			upTo = min(upTo, w.end.start)
		}
		w.sp.release(upTo)
	}
	if w.end != nil && w.confirmAt > 0 && w.pos >= w.confirmAt {
		// Everything written before the barrier is read; what comes
		// after it is not this command's, whatever it says.
		w.done(w.confirmOK)
		return true
	}
	if w.end != nil && w.confirmAt == 0 && w.j.ShellTag == "" && w.pos > w.end.end && w.prompted(data, base) && w.ready() {
		return w.confirm(true)
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
	// A job's own marks carry its script's secret or its shell's tag
	// (typed as is); the shell's end mark also ends a script that an
	// interrupt cut short.
	ours := m.Tag != "" && (m.Tag == w.jobTag() || j.Mode == jobs.Integrated && m.Tag == j.ShellTag)
	shells := j.ShellTag != "" && m.Tag == j.ShellTag
	w.r.log.Debug("job mark", "job", w.run.ID, "kind", string(m.Kind), "status", m.Status, "at", m.Start, "ours", ours, "shells", shells, "started", w.started, "ended", w.end != nil)
	if shells && !w.shellMarks.Feed(m) {
		return false // a line editor the command uses, not a prompt
	}
	if shells && m.Kind == 'A' && w.started {
		w.prompting = true // zsh marks its prompt's start before its end mark
	}
	switch {
	case w.end != nil && m.Kind == 'D' && m.Start >= w.end.end && m.Tag == w.end.tag:
		return w.endAgain(m, data, base)
	case w.end != nil && m.Kind == 'D' && m.Start >= w.end.end && m.Tag == w.jobTag() && m.Tag != "":
		// The job script's own end mark after its shell's (a script cut
		// short reads as a line that ran nothing): the script's carries
		// the command's status. What came between is the command's
		// output.
		w.reopen(m.Start)
		return w.endMark(m, data, base)
	case w.end != nil && shells && m.Kind == 'D' && m.Start >= w.end.end && w.end.tag == w.jobTag():
		// The job script's end, then its shell's own: the shell has the
		// terminal back and is past the command.
		w.shellEnd = true
		return w.tryFast()
	case w.end != nil && shells && m.Kind == 'A' && w.started && w.tryFast():
		// The shell goes on to its prompt (not out: a shell that exits
		// after its end mark tells how it ended, deadend.go).
		return true
	case m.Kind == 'C' && !w.started && ours:
		if w.end != nil {
			// An end mark before the command started was not its end:
			// a program that learnt the tag printed it.
			w.suspected()
			w.reopen(m.Start)
			w.conflict = nil
		}
		w.started = true
		w.dec = stream.NewPlain(m.End)
		w.out.begin(m.End)
		w.run.markBegun()
	case w.end == nil && w.cand != nil && shells && m.Kind == 'B' && m.Start >= w.cand.end:
		// The prompt after an end mark let go (a prompt slower than
		// holdMax): it is the end after all, if the shell reads now.
		w.end, w.cand = w.cand, nil
		w.idle.Stop()
		w.promptT.Reset(PromptWait)
		if w.ready() {
			return w.confirm(true)
		}
		w.recheckT.Reset(w.recheck)
	case w.end != nil && shells && m.Kind == 'C' && w.end.drawn:
		// The shell drew its prompt after the end mark and started a
		// line it read there (typed ahead by a person while the command
		// ran): it read its next command, so the end was the command's,
		// however fast the line took the terminal from it; what follows
		// is that line's.
		w.end.proven = true
		w.holdT.Stop()
		w.done(w.confirmAt > 0 && w.confirmOK)
		return true
	case w.end != nil:
		if shells && m.Kind == 'B' && m.Start >= w.end.end {
			w.end.drawn = true
		}
		if shells && m.Kind == 'B' && m.Start >= w.end.end && w.confirmAt == 0 {
			// The next prompt is drawn; its line editor reads input once
			// the terminal left canonical mode.
			if w.ready() {
				return w.confirm(true)
			}
			w.recheckT.Reset(w.recheck)
		}
	case m.Kind == 'D' && (ours || shells && w.started):
		// Ours, or an integrated shell's prompt after an interrupted
		// script or a line that ran nothing (a comment): the command is
		// over, if its shell has the terminal back.
		return w.endMark(m, data, base)
	}
	return false
}

// jobTag is the tag of the job's script's marks: its secret ("" when it
// was typed as is); a record written before jobs had secrets used its id.
func (w *watcher) jobTag() string {
	if w.j.Secret == "" && w.j.Script == "" && w.j.Mode == jobs.Wrapper {
		return w.run.ID
	}
	return w.j.Secret
}

// endMark takes an end mark of the job. An end counts only once the
// pane's shell reads its next command and every byte the pane wrote
// before that was read (confirm): the shell prints its own end mark last,
// just before it reads; one the command printed (knowing the tag or not)
// is followed by more of the command, and by the shell's own.
//
// The pane's shell has its terminal back, alone, when it prints its end
// mark: it prints it itself, in front, before it starts anything else. A
// mark that comes while a program holds the terminal is the command's
// output, as the bytes it is, once holdMax has gone by without the shell
// reading its next command (its prompt hooks may start programs at once).
func (w *watcher) endMark(m shell.Mark, data []byte, base int64) bool {
	alone, front := w.shellState()
	return w.endMarkSeen(m, data, base, alone, front)
}

// endMarkSeen is endMark with the look at the terminal taken: the shell
// alone in front of it, or at least its process group.
func (w *watcher) endMarkSeen(m shell.Mark, data []byte, base int64, alone, front bool) bool {
	w.feedTo(data, base, m.Start)
	var code *int
	if m.Status >= 0 {
		code = ptr(m.Status)
	}
	w.ended(jobs.Completed, code, m.Start, m.End, m.Tag)
	w.end.proven, w.end.front = alone, front
	if w.j.Mode == jobs.Integrated && w.tryFast() {
		// The shell's own end mark, its process group in front: ended.
		return true
	}
	if !alone {
		w.holdT.Reset(holdMax)
	}
	return false
}

// endAgain takes a second end mark with the tag of the end already seen:
// one of them was printed by a program that learnt the tag (the shell
// prints one a command). Two with different statuses make the status
// unknown (conflict), unless process state tells them apart: the earlier
// came while a program held the terminal, the later with the shell alone.
// The later one is where the command ended (the shell prints its own
// last, just before its prompt; what came between is the command's
// output), except that after a conflict the end stays where it is (a
// flood of marks cannot keep the job running), and the same end again
// after its prompt was drawn is nothing new.
func (w *watcher) endAgain(m shell.Mark, data []byte, base int64) bool {
	w.suspected()
	if len(w.conflict) > 0 {
		w.conflicting(m.Status)
		return false
	}
	if w.end.proven && w.end.drawn && w.end.code != nil && *w.end.code == m.Status {
		return false
	}
	alone, front := w.shellState()
	if w.end.proven || !alone {
		w.conflicting(m.Status)
	}
	w.reopen(m.Start)
	return w.endMarkSeen(m, data, base, alone, front)
}

// suspected records that end marks came that the shell did not print:
// this job's end, and those of the pane's later jobs, wait for the whole
// proof (fastEnd).
func (w *watcher) suspected() {
	w.suspect = true
	w.r.suspectMarks(w.pane, w.s)
}

// conflicting notes a later end mark's status against the end's: two
// different statuses for one command mean one of them was forged (a
// background program that learnt the tag), and neither is reported.
func (w *watcher) conflicting(status int) {
	was := -1
	if w.end.code != nil {
		was = *w.end.code
	}
	if status == was {
		return
	}
	for _, s := range []int{was, status} {
		if !slices.Contains(w.conflict, s) {
			w.conflict = append(w.conflict, s)
		}
	}
}

// fastEnd reports whether the job's end can be reported now, at its end
// mark, without waiting for the shell to read its next command: in a pane
// outside a sandbox (a program there that forges an end mark could as
// well do anything else the agent's command could), for an integrated
// shell (whose marks tell the next call that it is still drawing its
// prompt), with the status in and the shell's process group in front of
// the terminal (no program of the command holds it). A stop in progress,
// a pane where end marks came that the shell did not print (suspected)
// and a sandboxed pane keep the full proof (confirm).
func (w *watcher) fastEnd() bool {
	e := w.end
	if e == nil || w.j.Mode == jobs.Wrapper && w.j.Shell == string(shell.Fish) && !e.proven {
		// fish runs a sourced script's programs in its own process
		// group: there the shell's group in front says nothing, only
		// the shell alone does.
		return false
	}
	return w.r.cfg.Sandbox == nil && w.j.ShellTag != "" && e.front && e.code != nil && w.started && !w.suspect && !w.r.marksSuspect(w.pane, w.s) &&
		w.stopping == "" && w.deferred == "" && w.confirmAt == 0 && (w.j.Mode == jobs.Integrated && e.tag == w.j.ShellTag || w.j.Mode == jobs.Wrapper && e.tag == w.jobTag())
}

// tryFast reports the job's end now when it may be (fastEnd), once the
// shell's own end mark came (a script's is followed by it) and its prompt
// mark after the command's start: the shell is on its way to its prompt.
func (w *watcher) tryFast() bool {
	if w.end == nil || w.confirmAt > 0 || !w.prompting || w.j.Mode == jobs.Wrapper && !w.shellEnd || !w.fastEnd() {
		return false
	}
	return w.barrier(w.fastReady())
}

// fastReady is what a job ended at its end mark says of its shell
// (ShellReady): the pane takes the next command, which waits for the
// prompt being drawn; a fresh pane closes.
func (w *watcher) fastReady() bool {
	w.fast = true
	w.end.proven = true
	w.holdT.Stop()
	return !w.j.FreshPane || w.j.Keep
}

// unheld takes an end mark that came while a program held the terminal
// as output, when the shell has not read its next command since.
func (w *watcher) unheld() {
	if w.end == nil || w.end.proven || w.confirmAt > 0 {
		return
	}
	w.r.log.Warn("an end mark came while the command held the terminal: it is output", "job", w.run.ID)
	end := w.end
	w.reopen(w.pos)
	w.cand = end
	w.suspected()
	w.idle.Reset(idleAfter)
}

// shellState reports whether the job's shell is alone in front of its
// terminal now, and whether its process group is in front.
func (w *watcher) shellState() (alone, front bool) {
	if w.pid == 0 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		p, err := w.r.fleet.Pane(ctx, w.pane)
		cancel()
		if err != nil || p.Dead {
			return false, false
		}
		w.pid, w.tty = p.PID, p.TTY
	}
	probe, err := w.r.machine.Probe(w.pid, w.tty)
	if err != nil {
		return false, false
	}
	return shellAlone(probe, w.j.ShellGroup), shellFront(probe, w.j.ShellGroup)
}

// reopen drops an end that a later end mark (at stream offset at) shows
// was not the command's: the output from it up to at is the command's.
func (w *watcher) reopen(at int64) {
	end := w.end
	w.end, w.confirmAt = nil, 0
	w.promptT.Stop()
	w.recheckT.Stop()
	w.settleT.Stop()
	w.holdT.Stop()
	w.recheck = 5 * time.Millisecond
	for off := end.start; off < at; {
		n := int(min(at-off, 256<<10))
		c := w.s.ReadRaw(off, n, nil)
		if c.From > off && w.sp != nil {
			if b := w.sp.readAt(off, n, nil); len(b) > 0 {
				c = stream.RawChunk{Data: b, From: off}
			}
		}
		if len(c.Data) == 0 || c.From > at {
			break
		}
		if c.From > off {
			w.out.missed += c.From - off
		}
		to := min(at, c.From+int64(len(c.Data)))
		w.feedTo(c.Data[:to-c.From], c.From, to)
		off = to
	}
}

// confirm is the last step before an end is reported, once the shell was
// found reading its next command: every byte the pane wrote before that
// must have been read, for a later end mark among them to count (an end
// mark printed by the command, then the shell's own). tmux answers a
// round trip after the output it read before it (MarkPane).
// ok says the shell's prompt was seen (ShellReady).
func (w *watcher) confirm(ok bool) bool {
	if !shellReads(w.seen.probe, w.j.ShellGroup) {
		// Something reads the terminal, but not the job's shell alone (a
		// shell the command started, a shell that waits for a command of
		// its own): not back.
		w.recheckT.Reset(w.recheck)
		return false
	}
	return w.barrier(ok)
}

// barrier asks tmux for a round trip: every byte the pane wrote before it
// is read before the end is reported (a later end mark among them is the
// command's, or a conflict); marks after it are not the command's.
func (w *watcher) barrier(ok bool) bool {
	at := int64(-1)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	err := w.r.fleet.MarkPane(ctx, w.pane, func() { at = w.s.End() })
	cancel()
	if err != nil || at <= w.pos {
		w.done(ok)
		return true
	}
	w.confirmAt, w.confirmOK = at, ok
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
	_, died, f := w.s.Ended()
	if w.end != nil && !died {
		w.finish(w.end.status, w.end.code, w.end.signal, w.end.end, false, time.Since(w.end.at))
		return
	}
	if w.end != nil {
		// The shell died after an end mark but before it read again: the
		// mark alone does not say the command ended (its own processes
		// may have printed it); how the shell ended does.
		w.died = true
		code, sig := w.r.deadEnd(w.j, w.pane)
		w.finish(jobs.PaneDied, code, sig, w.end.end, false, 0)
		return
	}
	if !died {
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
	// The shell itself exited (exit 3) or was killed (kill -KILL $$):
	// tmux kept its pane to say how.
	w.died = true
	code, sig := w.r.deadEnd(w.j, w.pane)
	w.finish(jobs.PaneDied, code, sig, w.pos, false, 0)
}

// recheckPrompt looks again at a shell that drew its prompt after the
// end but did not read input yet.
func (w *watcher) recheckPrompt() bool {
	if w.confirmAt > 0 {
		return false
	}
	if w.ready() {
		return w.confirm(true)
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
	if w.confirmAt > 0 {
		return false
	}
	if (w.pos > w.end.end || time.Since(w.end.at) > 200*time.Millisecond) && w.ready() {
		return w.confirm(true)
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
		if w.unread() {
			// The screen is ahead of the recording: the shell drew its
			// prompt, and what it printed before (its end mark with the
			// command's status, the last output) is still on its way.
			// It is read first; the pane is looked at again when quiet.
			w.idle.Reset(idleAfter)
			return false
		}
		status := jobs.Completed
		if w.reached(w.pos, code) {
			status = w.stopping
		}
		if j.ShellTag != "" && code == nil && w.stopping == "" {
			// Its integrated shell reads at its prompt, and neither its
			// end mark nor a status came: the command removed the hooks
			// that print them.
			w.hooksLost()
		}
		w.finish(status, code, "", w.pos, true, 0)
		return true
	}
	w.idleGap = min(2*w.idleGap, idleMax)
	w.idle.Reset(w.idleGap)
	return false
}

// unread reports whether the pane wrote output before now that the watch
// has not read yet (tmux answers a round trip after the output it read
// before it, MarkPane). A pane that cannot be asked has none to wait for.
func (w *watcher) unread() bool {
	at := int64(-1)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	err := w.r.fleet.MarkPane(ctx, w.pane, func() { at = w.s.End() })
	cancel()
	return err == nil && at > w.pos
}

// hooksLost records that the job's command removed its shell's
// integration hooks: the job says so, and the pane's next job puts them
// back.
func (w *watcher) hooksLost() {
	if w.pid == 0 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		p, err := w.r.fleet.Pane(ctx, w.pane)
		cancel()
		if err != nil {
			return
		}
		w.pid = p.PID
	}
	w.note = HooksLostNote
	w.out.dropPending() // the prompt the shell drew, not the command's output
	w.r.markLost(w.pane, w.s, w.pid, w.pos)
}

// timedOut is the job's timeout: a stop like cancel_command's.
func (w *watcher) timedOut() {
	w.timeout = nil
	w.run.requestStop(jobs.TimedOut)
}

// stopRequested starts a stop (cancel_command, the timeout).
func (w *watcher) stopRequested(st jobs.Status) {
	if w.end != nil && (w.end.proven || w.ready()) {
		// It ended already, its shell in front: its own status stands
		// once the shell reads again; if it does not within PromptWait,
		// the stop goes on then (promptWaited).
		w.deferred = st
		return
	}
	if w.end != nil {
		// An end mark came while a program held the terminal: stopped
		// all the same.
		w.reopen(w.pos)
		w.idle.Reset(idleAfter)
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
	r.log.Debug("job finish", "job", w.run.ID, "status", status, "code", fmtCode(code), "endAt", endAt, "ready", ready, "fast", w.fast, "started", w.started, "pos", w.pos, "from", w.j.StartOffset)
	conflict := ""
	if len(w.conflict) > 0 {
		// Two end marks with different statuses: one was forged.
		code, conflict = nil, conflictNote(w.conflict)
	}
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
	person := w.personTyped()
	// The pane as it was, before the record lets the next command come.
	r.letGo(w.j, w.died)
	out.mu.Lock()
	at := out.at.saved(endAt, out.total)
	out.mu.Unlock()
	final, _ := r.jobs.Update(w.run.ID, func(x *jobs.Job) {
		x.Ended = time.Now().UTC()
		x.Output, x.OmittedBytes = out.text()
		x.OutputBytes = out.total
		if out.err != nil {
			x.OutputFileError = out.err.Error()
		}
		x.MissedBytes += out.missed
		x.FoldedRedraws = out.redraws()
		x.PersonInput = person
		if out.cut() || out.err != nil {
			x.OutputFile = out.path
		}
		x.Status, x.ExitCode, x.EndOffset = status, code, endAt
		x.OutputAt = at
		x.ShellReady, x.ReadyWaitMs, x.LaunchError = ready, readyWait.Milliseconds(), w.launchErr
		if w.note != "" {
			x.Note = w.note
		}
		if conflict != "" {
			x.Note = strings.TrimPrefix(x.Note+"; "+conflict, "; ")
		}
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
		r.removeScripts(context.Background(), w.j)
	}()
	if final != nil && r.cfg.Ended != nil {
		r.cfg.Ended(final)
	}
	r.afterJob(final)
}

// ended records the job's end (tag: its mark's); it then waits for the
// shell to read its next command, a fresh pane's too: only then is the
// end mark known to be the shell's own.
func (w *watcher) ended(status jobs.Status, code *int, startAt, endAt int64, tag string) bool {
	if status == jobs.Completed && w.reached(startAt, code) {
		status = w.stopping
	}
	w.end, w.cand = &ending{status: status, code: code, start: startAt, end: endAt, at: time.Now(), tag: tag}, nil
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
	switch {
	case w.fast && ok:
		// Its prompt is still to come: learnt when it is drawn.
		w.r.learnLater(w.pane, w.s, w.j.ShellTag, w.j.ShellGroup, end.end)
	case ok && !typedAfter(w.seen.line, w.known):
		w.r.learnPrompt(w.pane, w.s, w.j.ShellTag, w.seen)
	}
}

// typedAfter reports whether line is the known prompt with more after it:
// keys a person typed while the command ran, which the shell's line
// editor drew after its prompt. Learnt as the prompt, they would pass for
// it, and the next command would be typed after them.
func typedAfter(line, known string) bool {
	known = strings.TrimRight(known, " ")
	return known != "" && len(line) > len(known) && strings.HasPrefix(line, known)
}

// promptWaited is PromptWait over, the shell's next prompt not read: the
// end is reported without it (ShellReady false) once the shell reads a
// command (a prompt without its mark); while anything else runs, the end
// mark was not the shell's last word and the watch goes on.
func (w *watcher) promptWaited() bool {
	if w.confirmAt == 0 && w.ready() {
		return w.confirm(false) // read, but no prompt mark came
	}
	if st := w.deferred; st != "" {
		// A stop asked after an end mark, and the shell still does not
		// read: the mark was not its end.
		w.deferred = ""
		w.reopen(w.pos)
		w.stopRequested(st)
		return false
	}
	w.promptT.Reset(PromptWait)
	return false
}

// fmtCode is an exit status for the log: the number, or "none".
func fmtCode(code *int) string {
	if code == nil {
		return "none"
	}
	return strconv.Itoa(*code)
}

// personCheckAfter is how long a job must have run for personTyped to ask
// tmux about people's keys: a shorter one pays no round trip for it.
const personCheckAfter = time.Second

// personTyped reports whether a person's tmux client sent keys to the
// job's pane while it ran: a client showing the pane as its active one
// whose last key came in a later second than the job's start (tmux counts
// whole seconds, and a client's attach counts as a key: keys in the
// second the job started are not counted, so no attach is taken for one).
func (w *watcher) personTyped() bool {
	if w.j.Started.IsZero() || time.Since(w.j.Started) < personCheckAfter {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	clients, err := w.r.fleet.Clients(ctx)
	if err != nil {
		return false
	}
	for _, c := range clients {
		if !c.Control && c.Pane == w.pane && !c.Activity.IsZero() && c.Activity.Unix() > w.j.Started.Unix() {
			return true
		}
	}
	return false
}
