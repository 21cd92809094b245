package engine

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/oklog/ulid/v2"
	"github.com/tmuxmcp/tmuxmcp/input"
)

// TypeTextRequest is text to type into a pane.
type TypeTextRequest struct {
	On
	PaneID string `json:"paneId"`
	Text   string `json:"text"`
	Submit bool   `json:"submit,omitempty"`
}

// Check checks the arguments, naming the field, the value and the fix.
func (in *TypeTextRequest) Check() error {
	if _, err := parsePaneID("paneId", in.PaneID); err != nil {
		return err
	}
	if in.Text == "" && !in.Submit {
		return errorf("text is empty and submit is false: nothing to type. Give text, or submit: true to press Enter alone")
	}
	if n := utf8.RuneCountInString(in.Text); n > MaxTextBytes {
		return errorf("text is %d characters, over the limit of %d: type it in several calls, or write it to a file and type a command that reads it", n, MaxTextBytes)
	}
	return nil
}

// TypeText types text into a pane literally, with Enter when submit is
// set (judged by the policy first); its echo is not matched by waits.
func (h *Host) TypeText(ctx context.Context, c Caller, in *TypeTextRequest) (*InputResult, error) {
	n, err := parsePaneID("paneId", in.PaneID)
	if err != nil {
		return nil, err
	}
	defer h.run.LockPane(n)()
	h.run.Prompted(ctx, n, 2*time.Second)
	line := h.anchored(ctx, n, h.line(n))
	if line.EscapeLast {
		h.run.EscapeGap(ctx, n) // the Escape is read alone, not as Alt with these keys
	}
	next, step, err := line.Type(in.Text, in.Submit, h.gate.policy != nil)
	var edited *input.EditedError
	if errors.As(err, &edited) {
		return nil, h.editedError("type_text", in.PaneID, edited)
	}
	// A line break or other control character can submit by itself (no
	// bracketed paste in many programs, C-o, a pasted paste-end sequence).
	secret := h.secretPrompt(ctx, n)
	if len(step.Judge) > 0 {
		if err := h.allowSubmit(ctx, "type_text", in.PaneID, step.Judge, secret); err != nil {
			return nil, err
		}
	}
	if secret {
		// A password: the echo ledger and the line model, which live in
		// memory only, may hold it; nothing else does.
		next.Text = ""
	}
	pane, s, typed, err := h.prepareInput(ctx, "paneId", in.PaneID, in.Text)
	if err != nil {
		return nil, err
	}
	id := paneName(pane)
	buf := "tmuxmcp-" + strings.ToLower(ulid.Make().String())
	if err := h.fleet.TypeText(ctx, pane, in.Text, buf, in.Submit); err != nil {
		s.Untype(typed)
		return nil, h.paneError("paneId", pane, err)
	}
	sentInput(s, typed, step)
	h.setLine(pane, h.stillOpen(ctx, pane, next, step))
	return &InputResult{PaneID: id, Cursor: s.Cursor(typed.At).String(), Submitted: in.Submit}, nil
}
