package tools

import (
	"context"
	"strings"
	"time"

	"github.com/tmuxmcp/tmuxmcp/shell"
	"github.com/tmuxmcp/tmuxmcp/stream"
)

// paneShell is a pane found idle at a shell prompt, and how to run in it.
type paneShell struct {
	pane  int
	pid   int
	tty   string
	shell string // the shell at the prompt, e.g. bash
	// integrated: the shell at the prompt is the pane's own, with
	// tmuxmcp's integration live (its last mark is its prompt).
	integrated bool
	token      string // the integrated shell's mark tag, "s<token>"
	prompt     string // the last line of its prompt, as printed
}

// promptEnds are how prompts end, for the half-typed-line check of shells
// without integration.
var promptEnds = []string{"$", "#", "%", ">", "❯", "➜", "»", "λ", ":"}

// checkReady refuses a pane that is not sitting idle at a shell prompt,
// saying what it is doing. It types nothing.
func (h *Handlers) checkReady(ctx context.Context, pane int) (paneShell, error) {
	id := paneName(pane)
	ps := paneShell{pane: pane}
	info, err := h.paneFacts(ctx, pane)
	if err != nil {
		return ps, err
	}
	ps.pid, ps.tty = atoi(info["pane_pid"]), info["pane_tty"]
	switch {
	case info["pane_dead"] == "1":
		return ps, errorf("paneId %s is dead: its program exited, so nothing was run. Omit paneId to run in a fresh pane", id)
	case info["pane_in_mode"] == "1":
		return ps, errorf("paneId %s is in copy mode (someone is scrolling it), so nothing was typed. Wait for them to leave it, or omit paneId to run in a fresh pane", id)
	case info["alternate_on"] == "1":
		return ps, errorf("paneId %s shows a full-screen program (%s, alternate screen), not a shell prompt, so nothing was typed. Use type_text/send_keys for that program, or omit paneId to run in a fresh pane", id, info["pane_current_command"])
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
	ps.shell = probe.Leader
	if probe.Canonical && (ps.shell == "bash" || ps.shell == "zsh") {
		return ps, errorf("paneId %s: its shell is not at a prompt (the terminal is in line mode: the shell is running a builtin such as read), so nothing was typed. Look with capture_pane", id)
	}
	if s, ok := h.hub.Live(pane); ok && info["@tmuxmcp-integrated"] == "1" && probe.ForegroundPgrp == ps.pid {
		if m, prompt, ok := lastPrompt(s); ok {
			ps.integrated, ps.token, ps.prompt = true, m.Tag, prompt
		}
	}
	if line, ok := h.halfTyped(ctx, pane, ps, info); ok {
		return ps, errorf("paneId %s has a half-typed command line (%q): someone may be typing there, so nothing was typed and their line is untouched. Omit paneId to run in a fresh pane", id, line)
	}
	return ps, nil
}

var paneFactNames = []string{"pane_id", "pane_pid", "pane_tty", "pane_in_mode", "alternate_on", "pane_dead", "pane_current_command", "@tmuxmcp-integrated", "cursor_x", "cursor_y", "history_size", "pane_title"}

// paneFacts reads format values of one pane.
func (h *Handlers) paneFacts(ctx context.Context, pane int) (map[string]string, error) {
	id := paneName(pane)
	format := "#{" + strings.Join(paneFactNames, "}\x1f#{") + "}"
	lines, err := h.fleet.Exec(ctx, "list-panes", "-t", id, "-F", format)
	if err != nil {
		return nil, h.paneError("paneId", pane, err)
	}
	for _, l := range lines {
		if f := strings.Split(l, "\x1f"); len(f) == len(paneFactNames) && f[0] == id {
			m := make(map[string]string, len(f))
			for i, name := range paneFactNames {
				m[name] = f[i]
			}
			return m, nil
		}
	}
	return nil, errorf("paneId %s: tmux did not describe the pane; call list_panes", id)
}

// lastPrompt finds the integration's last mark in the retained output: when
// it is an end-of-prompt mark (B), the shell is at that prompt; it returns
// the mark and the last line of the prompt as printed.
func lastPrompt(s *stream.PaneStream) (shell.Mark, string, bool) {
	start, end := s.Bounds()
	from := max(start, end-64<<10)
	c := s.ReadRaw(from, int(end-from), nil)
	var last shell.Mark
	found := false
	for _, m := range shell.NewMarkScanner(c.From).Feed(c.Data) {
		if strings.HasPrefix(m.Tag, "s") {
			last, found = m, true
		}
	}
	if !found || last.Kind != 'B' {
		return last, "", false
	}
	// The prompt's last line: plain text from the last line end up to B.
	var line []byte
	dec := stream.NewPlain(c.From)
	dec.Feed(c.Data[:last.Start-c.From], func(t []byte, _, _ int64) {
		if t[0] == '\n' {
			line = line[:0]
			return
		}
		line = append(line, t...)
	})
	return last, string(line), true
}

// halfTyped reports the cursor line when someone has typed text at the
// prompt. An integrated shell's prompt is known exactly; otherwise the line
// before the cursor must end like a prompt. A line that looks half-typed is
// looked at again once the pane has been quiet for a moment, so a prompt
// still being drawn is not mistaken for typing.
func (h *Handlers) halfTyped(ctx context.Context, pane int, ps paneShell, info map[string]string) (string, bool) {
	for attempt := 0; ; attempt++ {
		line, typed := h.cursorLineTyped(ctx, pane, ps, info)
		if !typed || attempt == 1 {
			return line, typed
		}
		if s, ok := h.hub.Live(pane); ok {
			wctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			s.Quiet(wctx, 150*time.Millisecond)
			cancel()
		}
		fresh, err := h.paneFacts(ctx, pane)
		if err != nil {
			return line, typed
		}
		info = fresh
	}
}

func (h *Handlers) cursorLineTyped(ctx context.Context, pane int, ps paneShell, info map[string]string) (string, bool) {
	cy := info["cursor_y"]
	cur, err := h.fleet.Exec(ctx, "capture-pane", "-p", "-t", paneName(pane), "-S", cy, "-E", cy)
	if err != nil || len(cur) == 0 {
		return "", false
	}
	line := []rune(cur[0])
	cx := min(atoi(info["cursor_x"]), len(line))
	before, after := strings.TrimRight(string(line[:cx]), " "), string(line[cx:])
	// Text right at the cursor was typed (the cursor moved back into it);
	// text after a gap is a right-hand prompt.
	if after != "" && !strings.HasPrefix(after, " ") {
		return strings.TrimSpace(cur[0]), true
	}
	if ps.integrated {
		return strings.TrimSpace(cur[0]), before != strings.TrimRight(ps.prompt, " ")
	}
	for _, e := range promptEnds {
		if strings.HasSuffix(before, e) {
			return "", false
		}
	}
	return strings.TrimSpace(cur[0]), before != ""
}
