package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

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
	once   sync.Once
}

// paneShell is what a pane must be for a command to run in its shell.
type paneShell struct {
	pane       int
	pid        int
	tty        string
	command    string
	integrated bool
}

// promptEnds are how prompts end, for the half-typed-line check.
var promptEnds = []string{"$ ", "# ", "% ", "> ", "❯ ", "➜ ", "» ", "λ "}

// checkReady refuses a pane that is not sitting idle at a shell prompt,
// saying what it is doing. It types nothing.
func (h *Handlers) checkReady(ctx context.Context, pane int) (paneShell, error) {
	id := paneName(pane)
	lines, err := h.fleet.Exec(ctx, "list-panes", "-t", id, "-F",
		"#{pane_id}\x1f#{pane_pid}\x1f#{pane_tty}\x1f#{pane_in_mode}\x1f#{alternate_on}\x1f#{pane_dead}\x1f#{pane_current_command}\x1f#{@tmuxmcp-integrated}\x1f#{cursor_x}\x1f#{cursor_y}")
	if err != nil {
		return paneShell{}, h.paneError("paneId", pane, err)
	}
	var f []string
	for _, l := range lines {
		if g := strings.Split(l, "\x1f"); len(g) == 10 && g[0] == id {
			f = g
		}
	}
	if f == nil {
		return paneShell{}, errorf("paneId %s: tmux did not describe the pane; call list_panes", id)
	}
	ps := paneShell{pane: pane, pid: atoi(f[1]), tty: f[2], command: f[6], integrated: f[7] == "1"}
	switch {
	case f[5] == "1":
		return ps, errorf("paneId %s is dead: its program exited, so nothing was run. Omit paneId to run in a fresh pane", id)
	case f[3] == "1":
		return ps, errorf("paneId %s is in copy mode (someone is scrolling it), so nothing was typed. Wait for them to leave it, or omit paneId to run in a fresh pane", id)
	case f[4] == "1":
		return ps, errorf("paneId %s shows a full-screen program (%s, alternate screen), not a shell prompt, so nothing was typed. Use type_text/send_keys for that program, or omit paneId to run in a fresh pane", id, f[6])
	}
	h.mu.Lock()
	for _, r := range h.runs {
		if j, ok := h.jobs.Get(r.id); ok && j.PaneID == id && !j.Done() {
			h.mu.Unlock()
			return ps, errorf("paneId %s is still running job %s (%q), so nothing was typed. await_command_result or cancel_command it first, or omit paneId to run in a fresh pane", id, j.ID, truncate(j.Command, 60))
		}
	}
	h.mu.Unlock()
	probe, err := shell.ProbePane(ps.pid, ps.tty)
	if err != nil {
		return ps, errorf("paneId %s: cannot tell whether its shell is ready (%v), so nothing was typed", id, err)
	}
	if busy := probe.Busy(); busy != "" {
		return ps, errorf("paneId %s is busy: %s is running in it (it owns the terminal), so nothing was typed. Wait for it to finish (wait_for_text), interrupt it (send_keys C-c), or omit paneId to run in a fresh pane; for a REPL or other program use type_text", id, busy)
	}
	if probe.Canonical && (probe.Leader == "bash" || probe.Leader == "zsh") {
		return ps, errorf("paneId %s: its shell is not at a prompt (the terminal is in line mode: the shell is running a builtin such as read), so nothing was typed. Look with capture_pane", id)
	}
	// A half-typed line: someone is typing at the prompt.
	cx, cy := atoi(f[8]), f[9]
	cur, err := h.fleet.Exec(ctx, "capture-pane", "-p", "-t", id, "-S", cy, "-E", cy)
	if err == nil && len(cur) > 0 {
		line := []rune(cur[0])
		before, after := string(line[:min(cx, len(line))]), ""
		if cx < len(line) {
			after = string(line[cx:])
		}
		typed := strings.TrimSpace(after) != ""
		if !typed {
			typed = true
			for _, e := range promptEnds {
				if strings.HasSuffix(before, e) || strings.HasSuffix(before, strings.TrimSpace(e)) {
					typed = false
				}
			}
		}
		if typed {
			return ps, errorf("paneId %s has a half-typed command line (%q): someone may be typing there, so nothing was typed and their line is untouched. Omit paneId to run in a fresh pane", id, strings.TrimSpace(cur[0]))
		}
	}
	return ps, nil
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// startJob types the command into a ready pane and starts its watcher.
func (h *Handlers) startJob(ctx context.Context, ps paneShell, j *jobs.Job) error {
	id := paneName(ps.pane)
	s, ok := h.hub.Live(ps.pane)
	if !ok {
		s = h.hub.Adopt(ps.pane)
	}
	direct := ps.integrated && !strings.ContainsAny(j.Command, "\n\r")
	typed := j.Command
	if !direct {
		file := h.jobs.Path(j.ID, ".sh")
		if err := os.WriteFile(file, []byte(j.Command+"\n"), 0o600); err != nil {
			return fmt.Errorf("write job script: %w", err)
		}
		typed = shell.Wrapper(j.ID, file)
	}
	mode := "wrapper"
	if direct {
		mode = "integrated"
	}
	var in stream.Input
	mark := func() { in = s.Typed(typed, time.Now()) }
	if _, err := h.fleet.ExecPane(ctx, ps.pane, mark, "display-message", "-p", "-t", id, "#{pane_id}"); err != nil {
		s.Untype(in)
		return h.paneError("paneId", ps.pane, err)
	}
	at := in.At
	if _, err := h.jobs.Update(j.ID, func(x *jobs.Job) {
		x.Mode, x.Stream, x.StartOffset, x.Started, x.PaneID = mode, s.ID().String(), at, time.Now().UTC(), id
	}); err != nil {
		s.Untype(in)
		return err
	}
	if j.Description != "" && !j.FreshPane {
		// Show people watching what runs. select-pane -T only sets the
		// title; it does not change the selected pane.
		_, _ = h.fleet.Exec(ctx, "select-pane", "-t", id, "-T", j.Description)
	}
	if _, err := h.fleet.Exec(ctx, "send-keys", "-t", id, "-l", "--", typed); err != nil {
		s.Untype(in)
		return h.paneError("paneId", ps.pane, err)
	}
	if _, err := h.fleet.Exec(ctx, "send-keys", "-t", id, "Enter"); err != nil {
		return h.paneError("paneId", ps.pane, err)
	}
	s.Submitted(time.Now())
	h.watch(j.ID, s, at, false)
	return nil
}

// watch starts the watcher goroutine of a job reading s from offset from;
// inOutput says the command already started (a job resumed after restart).
func (h *Handlers) watch(id string, s *stream.PaneStream, from int64, inOutput bool) *jobRun {
	r := &jobRun{id: id, done: make(chan struct{}), cancel: make(chan jobs.Status, 1)}
	h.mu.Lock()
	h.runs[id] = r
	h.mu.Unlock()
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		h.watchJob(r, s, from, inOutput)
		h.mu.Lock()
		delete(h.runs, id)
		h.mu.Unlock()
		close(r.done)
	}()
	return r
}

// escalation is the interrupt schedule: C-c at once, SIGTERM to the
// foreground process group after 1 s, SIGKILL after 2 s; given up after 4 s.
var escalation = []time.Duration{0, time.Second, 2 * time.Second, 4 * time.Second}

func (h *Handlers) watchJob(r *jobRun, s *stream.PaneStream, from int64, inOutput bool) {
	j, _ := h.jobs.Get(r.id)
	scanner := shell.NewMarkScanner(from)
	dec := stream.NewPlain(from)
	out := newJobOutput(h.jobs.Path(r.id, ".out"), j.OutputLimit, inOutput)
	defer out.close()
	started := inOutput
	var timeout <-chan time.Time
	if j.TimeoutMs > 0 {
		t := time.NewTimer(time.Until(j.Started.Add(time.Duration(j.TimeoutMs) * time.Millisecond)))
		defer t.Stop()
		timeout = t.C
	}
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
	finish := func(change func(*jobs.Job)) {
		final, _ := h.jobs.Update(r.id, func(x *jobs.Job) {
			x.Ended = time.Now().UTC()
			x.Output, x.OutputBytes = out.tail(), out.total
			x.MissedBytes += out.missed
			if out.cut() {
				x.OutputFile = out.path
			}
			change(x)
		})
		if !out.cut() {
			out.remove()
		}
		_ = os.Remove(h.jobs.Path(r.id, ".sh"))
		if final != nil && final.Description != "" && !final.FreshPane {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_, _ = h.fleet.Exec(ctx, "select-pane", "-t", final.PaneID, "-T", "")
		}
		if final != nil && final.FreshPane && !final.Keep {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if n, err := parsePaneID("paneId", final.PaneID); err == nil {
				_, _ = h.fleet.Exec(ctx, "kill-pane", "-t", paneName(n))
			}
		}
	}
	for {
		c := s.ReadRaw(pos, 256<<10, buf)
		buf = c.Data[:0]
		if c.From > pos {
			out.missed += c.From - pos
			scanner = shell.NewMarkScanner(c.From)
			dec = stream.NewPlain(c.From)
		}
		if len(c.Data) > 0 {
			data := c.Data
			marks := scanner.Feed(data)
			base := c.From
			for _, m := range marks {
				if j.Mode == "wrapper" && m.Tag != r.id {
					continue
				}
				switch {
				case m.Kind == 'C' && !started:
					started = true
					dec = stream.NewPlain(m.End)
				case m.Kind == 'D' && started:
					out.feed(dec, data[max(0, dec.Offset()-base):m.Start-base])
					status := m.Status
					finish(func(x *jobs.Job) {
						x.EndOffset = m.End
						x.Status = jobs.Completed
						if stopping != "" {
							x.Status = stopping
						}
						if status >= 0 {
							x.ExitCode = ptr(status)
						}
						if sig := shell.SignalName(status); sig != "" {
							x.Signal = ptr(sig)
						} else if stopping != "" && lastSignal != "" {
							x.Signal = ptr(lastSignal)
						}
					})
					return
				}
			}
			if started {
				out.feed(dec, data[max(0, dec.Offset()-base):])
			}
			pos = c.From + int64(len(data))
			if pos < c.End {
				continue
			}
		}
		if c.Ended && pos >= c.End {
			finish(func(x *jobs.Job) { x.Status = jobs.PaneDied; x.EndOffset = pos })
			return
		}
		select {
		case <-c.Changed:
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
				finish(func(x *jobs.Job) {
					x.Status, x.EndOffset = stopping, pos
					if lastSignal != "" {
						x.Signal = ptr(lastSignal)
					}
				})
				return
			}
			lastSignal = h.escalate(j.PaneID, step)
			step++
			stepTimer.Reset(escalation[step] - escalation[step-1])
		case <-h.closing:
			return
		}
	}
}

func (r *jobRun) requestStop(st jobs.Status) {
	select {
	case r.cancel <- st:
	default:
	}
}

// escalate performs interrupt step n on the pane and names what it sent.
func (h *Handlers) escalate(paneID string, n int) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if n == 0 {
		_, _ = h.fleet.Exec(ctx, "send-keys", "-t", paneID, "C-c")
		return "SIGINT"
	}
	lines, err := h.fleet.Exec(ctx, "list-panes", "-t", paneID, "-F", "#{pane_id}\x1f#{pane_pid}\x1f#{pane_tty}")
	if err != nil {
		return ""
	}
	for _, l := range lines {
		f := strings.Split(l, "\x1f")
		if len(f) != 3 || f[0] != paneID {
			continue
		}
		probe, err := shell.ProbePane(atoi(f[1]), f[2])
		if err != nil || probe.AtShellPrompt() || probe.ForegroundPgrp <= 1 {
			return "" // never signal the shell itself
		}
		sig, name := syscall.SIGTERM, "SIGTERM"
		if n >= 2 {
			sig, name = syscall.SIGKILL, "SIGKILL"
		}
		if syscall.Kill(-probe.ForegroundPgrp, sig) == nil {
			return name
		}
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
	dec.Feed(raw, func(text []byte, _, _ int64) {
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

// errNoJob is returned for an unknown job id.
var errNoJob = errors.New("no such job")

func stateDirDefault() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "tmuxmcp")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "tmuxmcp-state")
	}
	return filepath.Join(home, ".local", "state", "tmuxmcp")
}
