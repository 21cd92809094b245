package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/oklog/ulid/v2"
	"github.com/tmuxmcp/tmuxmcp/approval"
	"github.com/tmuxmcp/tmuxmcp/input"
	"github.com/tmuxmcp/tmuxmcp/shell"
	"github.com/tmuxmcp/tmuxmcp/stream"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// Limits of the input tools.
const (
	MaxTextBytes = 64 << 10
	MaxKeys      = 64
	MaxKeyLength = 256
)

// InputResult says where input went and the cursor from before it.
type InputResult struct {
	PaneID    string `json:"paneId"`
	Cursor    string `json:"cursor"`
	Submitted bool   `json:"submitted"`
}

// prepareInput checks the pane can take input and records text in the echo
// ledger at the exact stream position before the input.
func (h *Host) prepareInput(ctx context.Context, field, id, text string) (int, *stream.PaneStream, stream.Input, error) {
	var in stream.Input
	pane, s, err := h.paneStream(ctx, field, id)
	if err != nil {
		return 0, nil, in, err
	}
	mark := func() { in = s.Typed(text, time.Now()) }
	p, err := h.fleet.PaneMarked(ctx, pane, mark)
	if err != nil {
		s.Untype(in)
		return 0, nil, in, h.paneError(field, pane, err)
	}
	switch {
	case p.InMode:
		s.Untype(in)
		return 0, nil, in, errorf("%s %s is in copy mode (someone is scrolling it): keys would go to copy mode, not the program, so nothing was sent. Wait for them to leave it (capture_pane shows inCopyMode), or ask them to", field, paneName(pane))
	case p.Dead && !p.FinishedUntil.IsZero():
		s.Untype(in)
		return 0, nil, in, errorf("%s %s is a finished job's window, dead, kept to show its output and exit status until %s (--keep-finished), so nothing was sent. Use create_pane for a shell, or omit paneId in run_shell_command", field, paneName(pane), p.FinishedUntil.Format(time.TimeOnly))
	case p.Dead:
		s.Untype(in)
		return 0, nil, in, errorf("%s %s is dead: its program exited, so nothing was sent. Use create_pane for a new one", field, paneName(pane))
	case p.InputOff:
		s.Untype(in)
		return 0, nil, in, errorf("%s %s has input disabled (select-pane -d), so nothing was sent; someone must enable it with select-pane -e", field, paneName(pane))
	case p.Person != "":
		s.Untype(in)
		return 0, nil, in, errorf("%s %s %s. %s", field, paneName(pane), strings.Replace(personSays(pane, p.Person), "nothing is typed into it", "nothing was sent", 1), personNext)
	}
	return pane, s, in, nil
}

// allowSubmit applies the approval policy to input that may submit a
// line. It judges, conservatively, every form the submitted line could
// take: the text of this call, the text tmuxmcp typed before it since the
// last Enter, and the pane's cursor line as the screen shows it (which
// also holds what a person typed, or what history recall or completion
// put there). The strictest decision wins.
//
// With secret (the pane reads a password), the typed text is judged as
// usual but never shown or recorded: the audit log and the person asked
// see its length only.
func (h *Host) allowSubmit(ctx context.Context, tool, paneID string, lines []string, secret bool) error {
	pane, err := parsePaneID("paneId", paneID)
	if err != nil {
		return err
	}
	if _, _, err := h.paneStream(ctx, "paneId", paneID); err != nil {
		return err
	}
	text := strings.Join(lines, "\n")
	if secret {
		text = hiddenText(text)
	}
	outside := h.sandbox != nil && h.outside(h.panePID(ctx, pane))
	if h.gate.policy == nil && !outside {
		h.gate.record(verdict{Tool: tool, Pane: paneID, Command: text, Decision: approval.AutoApproved, By: "policy:default"})
		return nil
	}
	st := h.line(pane)
	candidates := slices.Clone(lines)
	typed := len(candidates) // the rest are read from the screen, prompt and all
	screen, region := h.screenLines(ctx, pane, st.Anchor)
	// The screen's rows start with the prompt: the line is what follows it.
	if prompt := strings.TrimSpace(h.run.Prompt(ctx, pane)); prompt != "" {
		screen = strings.TrimSpace(strings.TrimPrefix(screen, prompt))
		region = strings.TrimSpace(strings.TrimPrefix(region, prompt))
	}
	if screen != "" && len(lines) > 0 {
		// The line as the screen shows it may hold more: a person's typing,
		// a recalled history line, a completion.
		candidates = append(candidates, screen, screen+lines[0])
	}
	if region != "" {
		// Every row since tmuxmcp began typing the line: all of a
		// multi-line edit buffer.
		candidates = append(candidates, region)
	}
	shown := strings.Join(slices.Compact(slices.Clone(candidates)), "\n")
	if secret {
		shown = hiddenText(shown)
	}
	decision, by, why := approval.AutoApproved, "", ""
	rank := map[approval.Decision]int{approval.AutoApproved: 0, approval.Ask: 1, approval.Blocked: 2}
	subj := h.subject(ctx, pane, "") // where it runs: the same for every candidate
	for i, c := range candidates {
		subj.Line, subj.Screen, subj.Typed = c, i >= typed, true
		d, b, w := approval.AutoApproved, "policy:default", ""
		if h.gate.policy != nil {
			d, b, w = h.gate.decide(subj)
		}
		if rank[d] > rank[decision] || by == "" {
			decision, by, why = d, b, w
		}
	}
	if outside && decision != approval.Blocked {
		// Input to a pane outside the sandbox is a person's call, as an
		// escalated command is.
		decision, by = approval.Ask, outsideBy
	}
	if decision == approval.Ask {
		if sh := approval.Show(shown); sh.TooLong {
			h.gate.record(verdict{Tool: tool, Pane: paneID, Command: shown, Decision: approval.Rejected, By: "tmuxmcp: too long to show"})
			return tooLongToShow(sh)
		}
		// No job to hand back: wait here for the person's answer.
		if err := h.startReview(ctx, tool, pane, shown); err != nil {
			return err
		}
		decision, by = h.askInTmux(ctx, approval.Request{RequestID: strings.ToLower(ulid.Make().String()), Tool: tool, Pane: paneID, Program: subj.Program, CWD: subj.CWD, Command: shown, Escalate: outside})
	}
	h.gate.record(verdict{Tool: tool, Pane: paneID, Command: shown, Decision: decision, By: by})
	switch {
	case decision.Runs():
		return nil
	case decision == approval.Blocked:
		return errorf("blocked by this server's policy (%s)%s: nothing was typed. Do not retry it in another form; tell the user what you wanted to run and why", by, because(why))
	}
	return errorf("%s by the person asked (%s): nothing was typed. Do not retry it in another form; ask the user what to do instead", decision, by)
}

// screenLines reads, in one batch, the line as the screen shows it: the
// logical line holding the cursor (the cursor row joined with the rows it
// wraps from, so a long line cannot hide its start above the cursor row)
// and, given an anchor, every row from the anchor to the cursor. Both are
// trimmed; "" when tmux cannot say.
func (h *Host) screenLines(ctx context.Context, pane, anchor int) (cursorLine, region string) {
	p, err := h.fleet.Pane(ctx, pane)
	if err != nil {
		return "", ""
	}
	hist, cy := p.HistorySize, p.CursorY
	const maxRows = 500 // a wrapped line longer than this many rows is cut at its start
	capture := func(start int) tmux.Capture { return tmux.Capture{Start: &start, End: &cy} }
	cmds := []tmux.Capture{capture(cy - maxRows)}
	if anchor != 0 {
		// Rows above the screen are negative; tmux clamps a start trimmed
		// from history to the oldest row, which only widens what is judged.
		cmds = append(cmds, capture(min(anchor-1-hist, cy)))
	}
	out, err := h.fleet.CaptureAll(ctx, pane, cmds...)
	if err != nil || len(out) != len(cmds) {
		return "", ""
	}
	if l := out[0]; len(l) > 0 {
		cursorLine = strings.TrimSpace(l[len(l)-1])
	}
	if len(out) > 1 {
		region = strings.TrimSpace(strings.Join(out[1], "\n"))
	}
	return cursorLine, region
}

// anchored returns l with its anchor set to the pane's cursor row when it
// has none and a policy is active.
func (h *Host) anchored(ctx context.Context, pane int, l input.Line) input.Line {
	if h.gate.policy == nil || l.Anchor != 0 {
		return l
	}
	if p, err := h.fleet.Pane(ctx, pane); err == nil {
		l.Anchor = p.HistorySize + p.CursorY + 1
	}
	return l
}

// editedError is the tool error for input refused because the line it
// would run cannot be judged.
func (h *Host) editedError(tool, paneID string, err *input.EditedError) error {
	h.gate.record(verdict{Tool: tool, Pane: paneID, Command: err.Key, Decision: approval.Blocked, By: "policy:edited-line"})
	return errorf("%s: %s, so nothing was sent. Send C-c with send_keys to clear the line, then type the whole command with type_text (submit: true) or use run_shell_command", tool, err.Error())
}

// shellReads reports whether a shell's line editor reads pane's input: the
// pane's current program is a shell, or cannot be told (then assume one).
func (h *Host) shellReads(ctx context.Context, pane int) bool {
	if h.gate.policy == nil {
		return false
	}
	p, err := h.fleet.Pane(ctx, pane)
	if err != nil {
		return true
	}
	_, ok := shell.KindOf(programName(p.CurrentCommand, p.Program))
	return ok
}

// secretPrompt reports whether pane's terminal reads a line without
// echoing it (a password prompt: read -s, sudo, ssh).
func (h *Host) secretPrompt(ctx context.Context, pane int) bool {
	if h.gate.policy == nil && h.opts.Audit == nil {
		return false // nothing would record or show the text
	}
	p, err := h.fleet.Pane(ctx, pane)
	if err != nil {
		return false
	}
	probe, err := h.run.Machine().Probe(p.PID, p.TTY)
	return err == nil && probe.Secret()
}

// hiddenText stands for text typed at a password prompt.
func hiddenText(s string) string {
	return fmt.Sprintf("[%d characters typed at a prompt with echo off (a password): not recorded]", utf8.RuneCountInString(s))
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// stillOpen is the line after keys that submitted one: in fish, a line
// that does not parse (an unclosed quote or block) is not run — fish keeps
// it in its editor and Enter only adds a line — so the model keeps it, as
// an open command that C-c discards.
func (h *Host) stillOpen(ctx context.Context, pane int, next input.Line, step input.Step) input.Line {
	if !step.Entered || len(step.Judge) == 0 || next.Text != "" {
		return next
	}
	line := step.Judge[len(step.Judge)-1]
	if strings.TrimSpace(line) == "" {
		return next
	}
	p, err := h.fleet.Pane(ctx, pane)
	if err != nil || programName(p.CurrentCommand, p.Program) != "fish" {
		return next
	}
	if shell.Fish.Parses(ctx, line) {
		return next
	}
	next.Text, next.Open = line+"\n", true // what is typed next continues it
	return next
}

// sentInput records on s what input just sent did to the pane's line: a
// submission, or an Enter that may have run it.
func sentInput(s *stream.PaneStream, typed stream.Input, step input.Step) {
	if step.Submitted {
		s.Submitted(time.Now())
	}
	if step.Ended {
		s.KeysSubmitted(time.Now())
		// An Enter on a line the model holds as empty may have run nothing
		// (fish then starts no command): only a line with text counts.
		// From before the keys: the shell may have run the line, and
		// drawn its next prompt, before tmux answered.
		s.KeysEntered(time.Now(), typed.At, step.Entered && len(step.Judge) > 0 && strings.TrimSpace(step.Judge[len(step.Judge)-1]) != "")
	}
}
