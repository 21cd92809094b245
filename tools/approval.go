package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/oklog/ulid/v2"
	"github.com/tmuxmcp/tmuxmcp/audit"
	"github.com/tmuxmcp/tmuxmcp/policy"
	"github.com/tmuxmcp/tmuxmcp/shell"
)

// The reasons of an OwnerReviewUnavailable error (SPEC §4).
const (
	ownerSessionUnavailable = "OWNER_SESSION_UNAVAILABLE"
	reviewBusy              = "REVIEW_BUSY"
)

// ownerReviewUnavailable is the tool error for a command that needs a
// person's approval when no person can be asked: nothing ran.
func ownerReviewUnavailable(reason, what string) error {
	return errorf("OwnerReviewUnavailable: reason=%s launchOutcome=NOT_STARTED. %s needs a person's approval under this server's policy, and no person can be asked now, so nothing was typed or run. Report this to the user and wait for them; do not resubmit it automatically or in another form", reason, what)
}

// subject describes what input would be submitted where, for the policy.
func (h *Handlers) subject(ctx context.Context, pane int, command string) policy.Subject {
	s := policy.Subject{Command: command}
	if pane < 0 {
		s.Program = h.run.DefaultShell(ctx)
		return s
	}
	if p, err := h.fleet.Pane(ctx, pane); err == nil {
		s.Program, s.CWD = programName(p.CurrentCommand, p.Program), p.CWD
	}
	return s
}

// judge decides on command about to run in pane (-1: a new pane), in cwd
// when given: the decision for the result and audit log, who decided, and
// the subject it judged. A nil policy allows everything without reading
// the pane.
func (h *Handlers) judge(ctx context.Context, pane int, command, cwd string) (decision, decidedBy string, subj policy.Subject) {
	if h.opts.Policy == nil {
		return "auto-approved", "policy:default", policy.Subject{Command: command, CWD: cwd}
	}
	subj = h.subject(ctx, pane, command)
	if cwd != "" {
		subj.CWD = cwd
	}
	decision, decidedBy = h.decide(subj)
	return decision, decidedBy, subj
}

// decide applies the (non-nil) policy to subj.
func (h *Handlers) decide(subj policy.Subject) (decision, decidedBy string) {
	action, rule := h.opts.Policy.Decide(subj)
	by := "policy:" + rule
	switch action {
	case policy.Deny:
		return "blocked", by
	case policy.Ask:
		h.mu.Lock()
		all := h.allowAll
		h.mu.Unlock()
		if all {
			return "auto-approved", "tmux:allowed for this session"
		}
		return "ask", by
	}
	return "auto-approved", by
}

// startReview claims the one review slot, or says why nobody can be asked.
func (h *Handlers) startReview(ctx context.Context, tool string, pane int, command string) error {
	if len(h.humanClients(ctx)) == 0 {
		h.audit(audit.Event{Event: "decision", Tool: tool, PaneID: paneOrEmpty(pane), Command: command, Decision: "rejected", DecidedBy: "nobody", Refusal: ownerSessionUnavailable})
		return ownerReviewUnavailable(ownerSessionUnavailable, fmt.Sprintf("This input (%s)", truncate(command, 60)))
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.reviewing {
		h.audit(audit.Event{Event: "decision", Tool: tool, PaneID: paneOrEmpty(pane), Command: command, Decision: "rejected", DecidedBy: "nobody", Refusal: reviewBusy})
		return ownerReviewUnavailable(reviewBusy, fmt.Sprintf("This input (%s)", truncate(command, 60)))
	}
	h.reviewing = true
	return nil
}

func paneOrEmpty(pane int) string {
	if pane < 0 {
		return ""
	}
	return paneName(pane)
}

// audit records an event when an audit log is configured.
func (h *Handlers) audit(ev audit.Event) {
	if err := h.opts.Audit.Record(ev); err != nil && h.log != nil {
		h.log.Warn("audit log", "err", err)
	}
}

// visible makes a command safe to show a person: control characters other
// than line breaks and tabs are written as escapes, so text such as a
// carriage return cannot hide part of the command.
func visible(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			fmt.Fprintf(&b, "\\x%02x", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// allowLaunch applies the approval policy to a program create_pane starts:
// its argv, shell-quoted, is the command judged.
func (h *Handlers) allowLaunch(ctx context.Context, argv []string, cwd string) error {
	if h.opts.Policy == nil {
		return nil
	}
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = shell.Quote(a)
	}
	command := strings.Join(quoted, " ")
	decision, by, subj := h.judge(ctx, -1, command, cwd)
	if decision == "ask" {
		if err := h.startReview(ctx, "create_pane", -1, command); err != nil {
			return err
		}
		decision, by = h.askInTmux(ctx, reviewRequest{id: strings.ToLower(ulid.Make().String()), tool: "create_pane", program: subj.Program, cwd: cwd, command: command})
	}
	h.audit(audit.Event{Event: "decision", Tool: "create_pane", Command: command, Decision: decision, DecidedBy: by})
	switch decision {
	case "auto-approved", "approved":
		return nil
	case "blocked":
		return errorf("blocked by this server's policy (%s): the program was not started. Do not retry it in another form; tell the user what you wanted to run and why", by)
	}
	return errorf("%s by the person asked (%s): the program was not started. Do not retry it in another form; ask the user what to do instead", decision, by)
}
