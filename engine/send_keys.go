package engine

import (
	"context"
	"errors"
	"time"
	"unicode/utf8"

	"github.com/tmuxmcp/tmuxmcp/input"
)

// SendKeysRequest is keys to press in a pane.
type SendKeysRequest struct {
	On
	PaneID string   `json:"paneId"`
	Keys   []string `json:"keys"`
}

// Check checks the arguments, naming the field, the value and the fix.
func (in *SendKeysRequest) Check() error {
	if _, err := parsePaneID("paneId", in.PaneID); err != nil {
		return err
	}
	if len(in.Keys) == 0 || len(in.Keys) > MaxKeys {
		return errorf("keys: %d given, the limit is 1..%d: split longer input over several calls, or use type_text for text", len(in.Keys), MaxKeys)
	}
	for i, k := range in.Keys {
		if k == "" || utf8.RuneCountInString(k) > MaxKeyLength {
			return errorf("keys[%d] %q: each key must be 1..%d characters, a tmux key name such as Enter, C-c, Up, Tab, F5 or a short literal string", i, truncate(k, 40), MaxKeyLength)
		}
	}
	_, err := parseKeys(in.Keys)
	return err
}

// SendKeys presses keys in a pane; keys that submit a line are judged by
// the policy first.
func (h *Host) SendKeys(ctx context.Context, c Caller, in *SendKeysRequest) (*InputResult, error) {
	n, err := parsePaneID("paneId", in.PaneID)
	if err != nil {
		return nil, err
	}
	keys, err := parseKeys(in.Keys)
	if err != nil {
		return nil, err
	}
	defer h.run.LockPane(n)()
	h.run.Prompted(ctx, n, 2*time.Second)
	// Replay the keys on tmuxmcp's model of the edit line: every line an
	// Enter (in any spelling), Escape, a Meta key or an unknown key could
	// run is judged before anything is sent.
	line := h.anchored(ctx, n, h.line(n))
	if line.EscapeLast {
		h.run.EscapeGap(ctx, n) // the Escape is read alone, not as Alt with these keys
	}
	next, step, err := line.Keys(keys, h.gate.policy != nil, h.shellReads(ctx, n))
	var edited *input.EditedError
	if errors.As(err, &edited) {
		return nil, h.editedError("send_keys", in.PaneID, edited)
	}
	if len(step.Judge) > 0 {
		if err := h.allowSubmit(ctx, "send_keys", in.PaneID, step.Judge, h.secretPrompt(ctx, n)); err != nil {
			return nil, err
		}
	}
	pane, s, typed, err := h.prepareInput(ctx, "paneId", in.PaneID, step.Echo)
	if err != nil {
		return nil, err
	}
	id := paneName(pane)
	if err := h.fleet.PressKeys(ctx, pane, input.Keystrokes(keys)); err != nil {
		s.Untype(typed)
		return nil, h.paneError("paneId", pane, err)
	}
	sentInput(s, typed, step)
	if step.Cleared {
		// The line is empty now: the prompt of a shell tmuxmcp did not
		// start can be learnt from it.
		h.run.LineCleared(pane)
	}
	h.setLine(pane, h.stillOpen(ctx, pane, next, step))
	return &InputResult{PaneID: id, Cursor: s.Cursor(typed.At).String(), Submitted: step.Sent}, nil
}

// parseKeys normalises send_keys' keys through the key table: a spelling
// it does not accept is a tool error naming it and what to send instead.
func parseKeys(in []string) ([]input.Key, error) {
	keys := make([]input.Key, len(in))
	for i, s := range in {
		k, err := input.Parse(s)
		if err != nil {
			return nil, errorf("keys[%d] %s; nothing was sent", i, err.Error())
		}
		keys[i] = k
	}
	return keys, nil
}
