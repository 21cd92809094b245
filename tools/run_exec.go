package tools

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"

	"github.com/tmuxmcp/tmuxmcp/audit"
	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/shell"
	"github.com/tmuxmcp/tmuxmcp/stream"
)

// jobRun is a job being watched: its watcher goroutine owns the stream
// reading and the escalation; callers wait on done.
type jobRun struct {
	id     string
	done   chan struct{}
	cancel chan jobs.Status // interrupted or timed_out
}

// startJob types the command into a ready pane. It returns the pane's
// stream and the offset before the input, for the job's watcher.
func (h *Handlers) startJob(ctx context.Context, ps paneShell, j *jobs.Job, cwd string) (*stream.PaneStream, int64, error) {
	id := paneName(ps.pane)
	s, ok := h.hub.Live(ps.pane)
	if !ok {
		s = h.hub.Adopt(ps.pane)
	}
	// Typed as is only where it is safe: an integrated shell at its own
	// prompt, one line without control characters that parses. Everything
	// else is sourced from a script, so it reaches the shell intact and its
	// marks come whatever the text does.
	// ! is left out too: history expansion would rewrite or reject it.
	// A trailing backslash would continue the line at a PS2 prompt.
	direct := ps.integrated && !j.FreshPane && cwd == "" && !strings.ContainsFunc(j.Command, unicode.IsControl) &&
		!strings.Contains(j.Command, "!") && !strings.HasSuffix(strings.TrimRight(j.Command, " "), "\\") &&
		syntaxOK(ps.shell, j.Command)
	typed, mode := j.Command, "integrated"
	if !direct {
		mode = "wrapper"
		cmdFile, runFile := h.jobs.Path(j.ID, ".sh"), h.jobs.Path(j.ID, ".run")
		if err := os.WriteFile(cmdFile, []byte(j.Command+"\n"), 0o600); err != nil {
			return nil, 0, fmt.Errorf("write job script: %w", err)
		}
		if err := os.WriteFile(runFile, []byte(shell.RunScript(j.ID, cmdFile, h.jobs.Path(j.ID, ".rc"), cwd, j.FreshPane)), 0o600); err != nil {
			return nil, 0, fmt.Errorf("write job script: %w", err)
		}
		typed = shell.SourceLine(runFile)
	}
	var in stream.Input
	mark := func() { in = s.Typed(typed, time.Now()) }
	if _, err := h.fleet.ExecPane(ctx, ps.pane, mark, "display-message", "-p", "-t", id, "#{pane_id}"); err != nil {
		s.Untype(in)
		return nil, 0, h.paneError("paneId", ps.pane, err)
	}
	if _, err := h.jobs.Update(j.ID, func(x *jobs.Job) {
		x.Mode, x.ShellTag, x.Stream, x.StartOffset, x.Started, x.PaneID = mode, ps.token, s.ID().String(), in.At, time.Now().UTC(), id
	}); err != nil {
		s.Untype(in)
		return nil, 0, err
	}
	if j.Description != "" && !j.FreshPane {
		// Show people watching what runs. select-pane -T only sets the
		// title; it does not change the selected pane. afterJob puts the
		// old title back.
		if title, err := h.fleet.Exec(ctx, "display-message", "-p", "-t", id, "#{pane_title}"); err == nil {
			_, _ = h.jobs.Update(j.ID, func(x *jobs.Job) { x.PaneTitle = strings.Join(title, "") })
		}
		_, _ = h.fleet.Exec(ctx, "select-pane", "-t", id, "-T", j.Description)
	}
	if _, err := h.fleet.Exec(ctx, "send-keys", "-t", id, "-l", "--", typed); err != nil {
		s.Untype(in)
		return nil, 0, h.paneError("paneId", ps.pane, err)
	}
	if _, err := h.fleet.Exec(ctx, "send-keys", "-t", id, "Enter"); err != nil {
		return nil, 0, h.paneError("paneId", ps.pane, err)
	}
	s.Submitted(time.Now())
	return s, in.At, nil
}

// syntaxOK reports whether shell parses command (a line that does not,
// e.g. an unterminated quote, would leave the shell waiting for more).
func syntaxOK(shellName, command string) bool {
	if shellName != "bash" && shellName != "zsh" {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return exec.CommandContext(ctx, shellName, "-n", "-c", command).Run() == nil
}

// watch starts the watcher goroutine of a job reading s from offset from;
// resumed says the command was already running (tmuxmcp restarted).
func (h *Handlers) watch(id string, s *stream.PaneStream, from int64, resumed bool) {
	h.goRun(id, func(r *jobRun) { h.watchJob(r, s, from, resumed) })
}

// goRun registers a run for job id (await and cancel find it) and runs
// body in a goroutine; the run is done when body returns.
func (h *Handlers) goRun(id string, body func(*jobRun)) {
	r := &jobRun{id: id, done: make(chan struct{}), cancel: make(chan jobs.Status, 1)}
	h.mu.Lock()
	select {
	case <-h.closing:
		h.mu.Unlock()
		return // shutting down: the record stays running and is resumed later
	default:
	}
	h.runs[id] = r
	h.wg.Add(1)
	h.mu.Unlock()
	go func() {
		defer h.wg.Done()
		defer func() {
			if p := recover(); p != nil {
				h.log.Error("job watcher failed", "job", id, "panic", p)
			}
			h.mu.Lock()
			delete(h.runs, id)
			h.mu.Unlock()
			close(r.done)
		}()
		body(r)
	}()
}

// escalation is the interrupt schedule: C-c at once, SIGTERM to the
// foreground program after 1 s, SIGKILL after 2 s; given up after 4 s.
var escalation = []time.Duration{0, time.Second, 2 * time.Second, 4 * time.Second}

// idleAfter is how long a running job's pane must be quiet before tmuxmcp
// checks whether its shell is back at the prompt without an end mark (the
// command was interrupted, or ended while tmuxmcp was not running).
const idleAfter = 400 * time.Millisecond

// noStartAfter is how long after typing a job may go without its start
// mark before tmuxmcp checks whether the shell ran it at all.
const noStartAfter = 3 * time.Second

func (h *Handlers) watchJob(r *jobRun, s *stream.PaneStream, from int64, resumed bool) {
	j, _ := h.jobs.Get(r.id)
	scanner := shell.NewMarkScanner(from)
	dec := stream.NewPlain(from)
	out := newJobOutput(h.jobs.Path(r.id, ".out"), j.OutputLimit, resumed)
	defer out.close()
	started := resumed
	var timeout <-chan time.Time
	if j.TimeoutMs > 0 {
		t := time.NewTimer(time.Until(j.Started.Add(time.Duration(j.TimeoutMs) * time.Millisecond)))
		defer t.Stop()
		timeout = t.C
	}
	idle := time.NewTimer(noStartAfter)
	if resumed {
		idle.Reset(0)
	}
	defer idle.Stop()
	var (
		stopping   jobs.Status // interrupted or timed_out once asked to stop
		step       int
		stepTimer  *time.Timer
		stepC      <-chan time.Time
		lastSignal string
		pos        = from
		buf        []byte
	)
	defer func() {
		if stepTimer != nil {
			stepTimer.Stop()
		}
	}()
	finish := func(status jobs.Status, code *int, signal string, end int64) {
		if stopping != "" && status == jobs.Completed {
			status = stopping
		}
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
		final, _ := h.jobs.Update(r.id, func(x *jobs.Job) {
			x.Ended = time.Now().UTC()
			x.Output, x.OutputBytes = out.tail(), out.total
			x.MissedBytes += out.missed
			if out.cut() {
				x.OutputFile = out.path
			}
			x.Status, x.ExitCode, x.EndOffset = status, code, end
			if signal != "" {
				x.Signal = ptr(signal)
			}
		})
		if !out.cut() {
			out.remove()
		}
		if final != nil {
			h.audit(audit.Event{Event: "completed", RequestID: final.RequestID, JobID: final.ID, PaneID: final.PaneID, Status: string(final.Status), ExitCode: final.ExitCode})
		}
		for _, suffix := range []string{".sh", ".run", ".rc"} {
			_ = os.Remove(h.jobs.Path(r.id, suffix))
		}
		h.afterJob(final)
	}
	// feedTo moves the output decoder up to stream offset end.
	feedTo := func(data []byte, base, end int64) {
		if !started {
			return
		}
		if dec.Offset() < base {
			dec = stream.NewPlain(base)
		}
		lo, hi := dec.Offset()-base, min(end, base+int64(len(data)))-base
		if hi > lo {
			out.feed(dec, data[lo:hi])
		}
	}
	for {
		c := s.ReadRaw(pos, 256<<10, buf)
		buf = c.Data[:0]
		if c.From > pos {
			// Evicted before we read it: if the start mark was among the
			// lost bytes, the command has started all the same.
			out.missed += c.From - pos
			scanner = shell.NewMarkScanner(c.From)
			dec = stream.NewPlain(c.From)
			started = true
		}
		if len(c.Data) > 0 {
			data, base := c.Data, c.From
			for _, m := range scanner.Feed(data) {
				// A job's own marks carry its id (script) or its shell's
				// token (typed as is); the shell's end mark also ends a
				// script that an interrupt cut short.
				ours := m.Tag == r.id || j.Mode == "integrated" && m.Tag == j.ShellTag && j.ShellTag != ""
				shells := j.ShellTag != "" && m.Tag == j.ShellTag
				switch {
				case m.Kind == 'C' && !started && ours:
					started = true
					dec = stream.NewPlain(m.End)
				case m.Kind == 'D' && (ours || shells && started):
					// Ours, or an integrated shell's prompt after an
					// interrupted script or a line that ran nothing (a
					// comment): the command is over.
					feedTo(data, base, m.Start)
					var code *int
					if m.Status >= 0 {
						code = ptr(m.Status)
					}
					finish(jobs.Completed, code, "", m.End)
					return
				}
			}
			feedTo(data, base, base+int64(len(data)))
			pos = base + int64(len(data))
			if started {
				idle.Reset(idleAfter)
			}
			if pos < c.End {
				continue
			}
		}
		if c.Ended && pos >= c.End {
			if _, died, f := s.Ended(); !died {
				if f == stream.HubClosed {
					// tmuxmcp is shutting down, not the command: the record
					// stays running and is watched again at the next start.
					return
				}
				// The tmux server is gone, and the pane with it: the
				// command was killed, its status unknown.
				finish(jobs.PaneDied, nil, "", pos)
				return
			}
			// The shell itself may have exited (exit 3 in a fresh pane):
			// its job script's EXIT trap recorded the status.
			var code *int
			if b, err := os.ReadFile(h.jobs.Path(r.id, ".rc")); err == nil {
				if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
					code = &n
				}
			}
			finish(jobs.PaneDied, code, "", pos)
			return
		}
		select {
		case <-c.Changed:
		case <-idle.C:
			if done, code := h.backAtPrompt(j, started); done {
				status := jobs.Completed
				if !started {
					// The shell took the line but never ran it (it may be
					// waiting for more): clear what we typed.
					status = jobs.NotStarted
					ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
					_, _ = h.fleet.Exec(ctx, "send-keys", "-t", j.PaneID, "C-c")
					cancel()
				}
				finish(status, code, "", pos)
				return
			}
			if !started {
				idle.Reset(noStartAfter)
			}
		case <-timeout:
			timeout = nil
			r.requestStop(jobs.TimedOut)
		case st := <-r.cancel:
			if stopping == "" {
				stopping, step = st, 0
				stepTimer = time.NewTimer(0)
				stepC = stepTimer.C
			}
		case <-stepC:
			if step >= len(escalation)-1 {
				// Nothing ended it: report what was done.
				finish(stopping, nil, "", pos)
				return
			}
			if sent := h.escalate(j.PaneID, step); sent != "" {
				lastSignal = sent
			}
			step++
			stepTimer.Reset(escalation[step] - escalation[step-1])
			idle.Reset(idleAfter)
		case <-h.closing:
			return
		}
	}
}

// backAtPrompt reports whether a job's shell is idle at its prompt with no
// end mark seen, and the status the job script recorded, if any.
func (h *Handlers) backAtPrompt(j *jobs.Job, started bool) (bool, *int) {
	var code *int
	if b, err := os.ReadFile(h.jobs.Path(j.ID, ".rc")); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			code = &n
			return true, code
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	lines, err := h.fleet.Exec(ctx, "list-panes", "-t", j.PaneID, "-F", "#{pane_id}\x1f#{pane_pid}\x1f#{pane_tty}")
	if err != nil {
		return false, nil
	}
	for _, l := range lines {
		f := strings.Split(l, "\x1f")
		if len(f) != 3 || f[0] != j.PaneID {
			continue
		}
		probe, err := shell.ProbePane(atoi(f[1]), f[2])
		if err != nil || !probe.AtShellPrompt() {
			return false, nil
		}
		// Only a line editor proves the shell reads a new command: dash
		// and sh keep the terminal in line mode even at their prompt.
		if (probe.Leader == "bash" || probe.Leader == "zsh") && !probe.Canonical {
			return true, nil
		}
	}
	return false, nil
}

// afterJob restores a pane's title and closes a fresh pane.
func (h *Handlers) afterJob(final *jobs.Job) {
	if final == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if final.Description != "" && !final.FreshPane {
		_, _ = h.fleet.Exec(ctx, "select-pane", "-t", final.PaneID, "-T", final.PaneTitle)
	}
	if final.FreshPane && !final.Keep {
		_, _ = h.fleet.Exec(ctx, "kill-pane", "-t", final.PaneID)
	}
}

func (r *jobRun) requestStop(st jobs.Status) {
	select {
	case r.cancel <- st:
	default:
	}
}

// escalate performs interrupt step n on the pane and names the signal it
// sent, or "". It never signals the shell itself: when the foreground
// group is the shell's own (a command substitution), it signals the other
// members one by one.
func (h *Handlers) escalate(paneID string, n int) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	lines, err := h.fleet.Exec(ctx, "list-panes", "-t", paneID, "-F", "#{pane_id}\x1f#{pane_pid}\x1f#{pane_tty}\x1f#{pane_in_mode}")
	if err != nil {
		return ""
	}
	sig, name := syscall.SIGINT, "SIGINT"
	switch {
	case n == 1:
		sig, name = syscall.SIGTERM, "SIGTERM"
	case n >= 2:
		sig, name = syscall.SIGKILL, "SIGKILL"
	}
	for _, l := range lines {
		f := strings.Split(l, "\x1f")
		if len(f) != 4 || f[0] != paneID {
			continue
		}
		if n == 0 && f[3] != "1" {
			// Ctrl-C as a person would press it (the terminal sends SIGINT
			// to the foreground group) — but never into copy mode, where it
			// would throw the person out of it; then signal directly.
			if _, err := h.fleet.Exec(ctx, "send-keys", "-t", paneID, "C-c"); err != nil {
				return ""
			}
			return name
		}
		probe, err := shell.ProbePane(atoi(f[1]), f[2])
		if err != nil || probe.AtShellPrompt() || probe.ForegroundPgrp <= 1 {
			return ""
		}
		if !probe.LeaderIsShell() {
			if syscall.Kill(-probe.ForegroundPgrp, sig) == nil {
				return name
			}
			return ""
		}
		sent := ""
		for _, pid := range probe.OtherPIDs {
			if syscall.Kill(pid, sig) == nil {
				sent = name
			}
		}
		return sent
	}
	return ""
}

// jobOutput collects a job's plain output: the whole of it in a file, the
// tail in memory.
type jobOutput struct {
	path   string
	f      *os.File
	limit  int
	buf    []byte
	total  int64
	missed int64
}

func newJobOutput(path string, limit int, appendExisting bool) *jobOutput {
	o := &jobOutput{path: path, limit: limit}
	flags := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	if appendExisting {
		flags = os.O_CREATE | os.O_WRONLY | os.O_APPEND
		if b, err := os.ReadFile(path); err == nil {
			o.total = int64(len(b))
			o.buf = b[max(0, len(b)-limit):]
		}
	}
	o.f, _ = os.OpenFile(path, flags, 0o600)
	return o
}

func (o *jobOutput) feed(dec *stream.Plain, raw []byte) {
	dec.FeedRuns(raw, func(text []byte, _, _ int64) {
		o.total += int64(len(text))
		if o.f != nil {
			_, _ = o.f.Write(text)
		}
		o.buf = append(o.buf, text...)
		if len(o.buf) > 2*o.limit+4096 {
			o.buf = append(o.buf[:0], o.buf[len(o.buf)-o.limit:]...)
		}
	})
}

func (o *jobOutput) tail() string {
	b := o.buf
	if len(b) > o.limit {
		b = b[len(b)-o.limit:]
	}
	return strings.ToValidUTF8(string(b), "")
}

func (o *jobOutput) cut() bool { return o.total > int64(o.limit) }

func (o *jobOutput) close() {
	if o.f != nil {
		_ = o.f.Close()
	}
}

func (o *jobOutput) remove() { _ = os.Remove(o.path) }

// DefaultStateDir is where job records and state live without --state-dir.
func DefaultStateDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "tmuxmcp")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "tmuxmcp-state")
	}
	return filepath.Join(home, ".local", "state", "tmuxmcp")
}
