package engine

import (
	"context"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/tmuxmcp/tmuxmcp/stream"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// MaxPersonMessage bounds ask_person's message, in characters: one status
// line's worth.
const MaxPersonMessage = 200

// DefaultPersonWait is how long ask_person waits by default.
const DefaultPersonWait = 5 * time.Minute

// AskPersonRequest hands a pane to a person and waits for it back.
type AskPersonRequest struct {
	On
	PaneID    string `json:"paneId"`
	Message   string `json:"message,omitempty"`
	TimeoutMs *int64 `json:"timeoutMs,omitempty"`
	// Withdraw takes the pane back without a person: the request lapses.
	Withdraw bool `json:"withdraw,omitempty"`
}

// Check checks the arguments, naming the field, the value and the fix.
func (in *AskPersonRequest) Check() error {
	if _, err := parsePaneID("paneId", in.PaneID); err != nil {
		return err
	}
	if n := utf8.RuneCountInString(in.Message); n > MaxPersonMessage {
		return errorf("message has %d characters: at most %d (it is shown in the status line); say what the person should do in a sentence", n, MaxPersonMessage)
	}
	if in.Message == "" && !in.Withdraw {
		return errorf("message is empty: say what the person should do in the pane, e.g. \"type the sudo password, then press prefix T\"")
	}
	if in.TimeoutMs != nil && *in.TimeoutMs < 1 {
		return errorf("timeoutMs %d: must be at least 1; omit it for the default of %d", *in.TimeoutMs, DefaultPersonWait.Milliseconds())
	}
	return nil
}

// AskPersonResult says how the wait for a person ended and what the pane
// printed meanwhile.
type AskPersonResult struct {
	PaneID string `json:"paneId"`
	// Outcome: given_back, timeout (the person still has the pane: call
	// again to wait on), withdrawn, or pane_gone.
	Outcome string `json:"outcome"`
	// ShownTo is how many people's terminals showed the message.
	ShownTo int `json:"shownTo"`
	// Output is what the pane printed since the request (plain text);
	// what a person typed with echo off (a password) is never in it.
	Output         string  `json:"output"`
	Cursor         *string `json:"cursor"`
	MissedBytes    int64   `json:"missedBytes"`
	RemainingBytes int64   `json:"remainingBytes"`
	StreamFailure  *string `json:"streamFailure"`
}

// AskPerson asks for a person in a pane: the pane is theirs (tools that
// type into it refuse) until they give it back with the hand-off key; it
// waits up to timeoutMs for that. Called again on a pane already asked
// for, it waits on (the message shown again if it changed).
func (h *Host) AskPerson(ctx context.Context, c Caller, in *AskPersonRequest) (*AskPersonResult, error) {
	pane, s, err := h.paneStream(ctx, "paneId", in.PaneID)
	if err != nil {
		return nil, err
	}
	out := &AskPersonResult{PaneID: paneName(pane)}
	p, err := h.fleet.Pane(ctx, pane)
	if err != nil {
		return nil, h.paneError("paneId", pane, err)
	}
	if in.Withdraw {
		if p.Person != tmux.PersonAsked {
			return nil, errorf("withdraw: pane %s was not asked for (person: %q): only a request of ask_person can be withdrawn; a person who took the pane gives it back with prefix %s", paneName(pane), p.Person, tmux.HandOffKey)
		}
		if err := h.fleet.SetPerson(ctx, pane, ""); err != nil {
			return nil, h.paneError("paneId", pane, err)
		}
		_, _ = h.fleet.ShowMessage(ctx, pane, "tmuxmcp: the agent no longer needs you in pane "+paneName(pane), 10)
		out.Outcome, out.Cursor = "withdrawn", cursorText(s, s.End())
		return out, nil
	}
	from := s.End()
	if p.Person == "" {
		if err := h.fleet.SetPerson(ctx, pane, tmux.PersonAsked); err != nil {
			return nil, h.paneError("paneId", pane, err)
		}
	}
	msg := fmt.Sprintf("tmuxmcp: an agent needs you in pane %s (%s:%d): %s. Press prefix %s when done.", paneName(pane), p.SessionName, p.WindowIndex, in.Message, tmux.HandOffKey)
	out.ShownTo, _ = h.fleet.ShowMessage(ctx, pane, msg, 60)
	h.log.Info("a person was asked for", "pane", paneName(pane), "shownTo", out.ShownTo)
	wait := DefaultPersonWait
	if in.TimeoutMs != nil {
		wait = time.Duration(min(*in.TimeoutMs, h.opts.WaitMax.Milliseconds())) * time.Millisecond
	}
	out.Outcome = h.awaitGivenBack(ctx, pane, wait)
	r := s.Capture(stream.CaptureSpec{From: from, MaxBytes: h.opts.ResultMax})
	out.Output, out.Cursor = r.Output, cursorText(s, r.Cursor)
	out.MissedBytes, out.RemainingBytes = r.Missed, r.Remaining
	out.StreamFailure = failureText(r.Failure)
	return out, ctx.Err()
}

// awaitGivenBack waits, on the listings tmux sends when a pane's
// PersonOption changes, until no person has pane: given_back, pane_gone
// or timeout.
func (h *Host) awaitGivenBack(ctx context.Context, pane int, wait time.Duration) string {
	t := time.NewTimer(wait)
	defer t.Stop()
	for {
		h.mu.Lock()
		p, ok := h.panes[pane]
		listed := h.listed
		h.mu.Unlock()
		switch {
		case !ok || p.Dead:
			return "pane_gone"
		case p.Person == "":
			return "given_back"
		}
		select {
		case <-listed:
		case <-t.C:
			return "timeout"
		case <-ctx.Done():
			return "timeout"
		}
	}
}
