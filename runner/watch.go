package runner

import (
	"context"
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
	tag    string // the end mark's tag: a later mark with it replaces this one
	// proven says the pane's shell was alone in front of its terminal
	// when the mark came; an end that is not is let go after holdMax
	// unless the shell reads its next command by then (see endMark).
	proven bool
	// drawn says the shell's prompt mark came after it: a start mark of
	// the shell's after that is a line it read (see mark).
	drawn bool
	// front says the job's shell held the terminal (its process group in
	// front) when the mark came: no program of the command did.
	front bool
}

// holdMax is how long an end mark that came while the command held the
// terminal waits for the shell to read its next command (its prompt hooks
// may have started a program of their own at once, and a slow prompt
// takes time to draw) before what follows it is taken as the command's
// output.
const holdMax = PromptWait

// Watch follows a started job to its end in the calling goroutine (run's):
// output into the job's files, its end mark and exit status, the shell's
// next prompt, stop requests and the job's timeout. It reads the stream and
// hands each event to the job's watcher.
func (r *Runner) Watch(run *Run, st *Started) {
	w, ok := r.newWatcher(run, st)
	if !ok {
		return
	}
	defer w.close()
	for {
		select {
		case <-r.closing:
			return // a backlog is not worked through at shutdown: the record stays running, for the next process
		default:
		}
		c := w.read()
		if len(c.Data) > 0 {
			if w.data(c) {
				return
			}
			if w.pos < c.End {
				// Behind the pane's output (a flood on a starved machine):
				// a stop, its next step and the job's timeout are still
				// acted on between chunks, or a runaway would never be
				// interrupted.
				select {
				case st := <-run.stop:
					w.stopRequested(st)
				case <-w.stepT.C:
					if w.stepDue() {
						return
					}
				case <-w.timeout:
					w.timedOut()
				default:
				}
				continue
			}
		}
		if c.Ended && w.pos >= c.End {
			w.streamEnded()
			return
		}
		select {
		case <-c.Changed:
		case <-w.promptT.C:
			if w.promptWaited() {
				return
			}
		case <-w.recheckT.C:
			if w.recheckPrompt() {
				return
			}
		case <-w.settleT.C:
			if w.settled() {
				return
			}
		case <-w.holdT.C:
			w.unheld()
		case <-w.idle.C:
			if w.idled() {
				return
			}
		case <-w.timeout:
			w.timedOut()
		case st := <-run.stop:
			w.stopRequested(st)
		case <-w.stepT.C:
			if w.stepDue() {
				return
			}
		case <-r.closing:
			return
		}
	}
}

// scriptName is the name of job j's script files.
func scriptName(j *jobs.Job) string {
	if j.Script != "" {
		return j.Script
	}
	return j.ID
}

// scriptTag names where job j's script files are (Job.ScriptTag; a record
// from before it, ShellTag).
func scriptTag(j *jobs.Job) string {
	if j.ScriptTag != "" {
		return j.ScriptTag
	}
	return j.ShellTag
}

// statusFile reads the status job j's script recorded, if any.
func (r *Runner) statusFile(j *jobs.Job) *int {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	b, err := r.machine.ReadFile(ctx, r.scriptPath(scriptName(j), scriptTag(j), ".rc"))
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
// the job script recorded, if any. A recorded status counts only with the
// pane's shell alone in front: the command may have written the file
// itself while it runs.
func (r *Runner) backAtPrompt(j *jobs.Job, s *stream.PaneStream) (bool, *int) {
	if code := r.statusFile(j); code != nil && r.shellInFront(j) {
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
		_ = r.fleet.SendKeys(ctx, pane, "n")
		return false, ""
	}
	if k.IsContinuation(before) {
		r.interrupt(j.PaneID)
		return true, "the shell took the command as unfinished and waited for more at a continuation prompt (" + strings.TrimSpace(before) + "); it was cleared with Ctrl-C and nothing ran"
	}
	return false, ""
}

// interrupt types C-c into pane paneID.
func (r *Runner) interrupt(paneID string) {
	pane, err := parsePane(paneID)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = r.fleet.SendKeys(ctx, pane, "C-c")
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

// learnLater remembers the prompt the integrated shell (tag, its process
// group shellGroup; the pane's own shell, as an integrated shell a job
// runs in is) of a job that ended at its end mark (at stream offset
// at) draws next, once it is drawn (within PromptWait): a job reported
// before its prompt leaves it to be learnt in the background.
func (r *Runner) learnLater(pane int, s *stream.PaneStream, tag string, shellGroup int, at int64) {
	r.mu.Lock()
	ok := r.addWorkerLocked()
	r.mu.Unlock()
	if !ok {
		return
	}
	go func() {
		defer r.wg.Done()
		t := time.NewTimer(PromptWait)
		defer t.Stop()
		bare := strings.TrimPrefix(tag, "s")
		for {
			changed := s.ReadRaw(s.End(), 0, nil).Changed
			if mi := lastMarks(s, bare); mi.prompted && mi.promptAt > at {
				if mi.last == 'B' {
					r.learnPrompt(pane, s, tag, promptLook{probe: shell.Probe{ShellGroup: true, ForegroundPgrp: shellGroup}})
				}
				return
			}
			select {
			case <-changed:
			case <-t.C:
				return
			case <-r.closing:
				return
			}
		}
	}()
}

// afterJob restores a pane's title and closes a fresh pane, or leaves it
// to show its job's end (finishFresh).
func (r *Runner) afterJob(final *jobs.Job) {
	if final == nil {
		return
	}
	pane, err := parsePane(final.PaneID)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if final.Description != "" && !final.FreshPane {
		_ = r.fleet.SetPaneTitle(ctx, pane, final.PaneTitle)
	}
	switch {
	case !final.FreshPane || final.Keep:
	case r.cfg.KeepFinished > 0:
		r.finishFresh(final, pane)
	default:
		_ = r.fleet.KillPane(ctx, pane)
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

// removeScripts deletes job j's script files on the pane's machine.
func (r *Runner) removeScripts(ctx context.Context, j *jobs.Job) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	n, p := scriptName(j), func(name, suffix string) string { return r.scriptPath(name, scriptTag(j), suffix) }
	r.machine.Remove(ctx, p(n, ".sh"), p(n, ".run"), p(n, ".rc"), p(n, ".key"), p(n, ".tag"))
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
