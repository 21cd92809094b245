package engine

import (
	"context"

	"github.com/tmuxmcp/tmuxmcp/approval"
)

// Caller is who made a call, as far as the engine needs to know: where a
// long call's progress goes, whether their client can ask its user to
// approve a command, and the answer they bring to such a question asked
// earlier. A nil Caller has none of these.
type Caller interface {
	// Progress reports how far a long call is (done of total, and what it
	// sees); a caller that asked for no progress ignores it.
	Progress(ctx context.Context, done, total float64, message string)
	// WantsProgress reports whether Progress reaches anyone.
	WantsProgress() bool
	// CanAsk reports whether the caller's client can put a question to
	// its user (MCP elicitation).
	CanAsk() bool
	// Answer is the answer the call carries to an earlier ClientAsk: the
	// question's state, and whether the user approved. ok is false for a
	// call that carries none.
	Answer() (state string, approved, ok bool)
}

// ClientAsk is the answer to a call whose command needs the approval of
// the caller's user, asked through their client: the transport puts
// Message to the user and calls again with the answer and State. Nothing
// ran.
type ClientAsk struct {
	// State names the open question; the answer must come back with it.
	State string
	// Message is what the user reads: the command, where it runs, why.
	Message string
}

// Error says the call needs the user's approval.
func (a *ClientAsk) Error() string { return "the caller's user must approve this command" }

// noCaller is a Caller with no client behind it.
type noCaller struct{}

func (noCaller) Progress(context.Context, float64, float64, string) {}
func (noCaller) WantsProgress() bool                                { return false }
func (noCaller) CanAsk() bool                                       { return false }
func (noCaller) Answer() (string, bool, bool)                       { return "", false, false }

// caller is c, or a Caller with nothing behind it when c is nil.
func caller(c Caller) Caller {
	if c == nil {
		return noCaller{}
	}
	return c
}

// elicitation is an approval asked through the caller's client, bound to
// the exact request it is for.
type elicitation = approval.Elicitation

// reviewRoute picks how to ask a person: "tmux" (popups on attached
// clients and the approver program, racing), "elicitation" or "".
func (h *Host) reviewRoute(ctx context.Context, c Caller) string {
	for _, via := range h.opts.ApprovalVia {
		switch via {
		case "exec":
			if h.opts.Approver != "" {
				return "tmux"
			}
		case "tmux":
			if len(h.humanClients(ctx)) > 0 {
				return "tmux"
			}
		case "elicitation":
			if caller(c).CanAsk() {
				return "elicitation"
			}
		}
	}
	return ""
}

// elicitAnswered reports whether the call carries an answer to an earlier
// elicitation.
func elicitAnswered(c Caller) bool {
	_, _, ok := caller(c).Answer()
	return ok
}

// askClient returns the ClientAsk that asks the caller's user to approve e
// on this host, remembering it under a fresh request state.
func (h *Host) askClient(e elicitation, reason string) error {
	e.Host = h.opts.Host
	state := h.gate.elicits.Open(e, h.opts.ReviewTimeout)
	msg := approval.Text(approval.Request{Pane: e.Pane, Host: e.Host, Program: e.Program, CWD: e.CWD, Command: e.Command, Reason: reason, Sandbox: e.Sandbox, Escalate: e.Escalate})
	return &ClientAsk{State: state, Message: msg}
}

// elicitDecision checks the answer the call carries against the request it
// was asked for, on this host, and returns approved or denied.
func (h *Host) elicitDecision(c Caller, want elicitation) (approval.Decision, error) {
	want.Host = h.opts.Host
	state, approved, _ := caller(c).Answer()
	got, ok := h.gate.elicits.Take(state) // an answer is used once
	if !ok {
		h.gate.record(verdict{Tool: "run_shell_command", Pane: want.Pane, Command: want.Command, Decision: approval.DeniedTimeout, By: "elicitation"})
		return "", errorf("denied-timeout: the approval answer came after the review timeout, or belongs to no open request (already used, or from before a restart), so nothing ran. Tell the user; do not resubmit the command automatically")
	}
	if !got.Matches(want) {
		return "", errorf("the approval answer was given for another command (%q), not this one: nothing ran. An approval cannot be moved to another command; call again to ask for this one", truncate(approval.Visible(got.Command), 60))
	}
	if approved {
		return approval.Approved, nil
	}
	return approval.Denied, nil
}
