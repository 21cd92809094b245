package tools

import (
	"context"
	"errors"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/input"
)

type sendKeysIn struct {
	PaneID string   `json:"paneId"`
	Keys   []string `json:"keys"`
}

func (in *sendKeysIn) check() error {
	if _, err := parsePaneID("paneId", in.PaneID); err != nil {
		return err
	}
	if len(in.Keys) == 0 || len(in.Keys) > maxKeys {
		return errorf("keys: %d given, the limit is 1..%d: split longer input over several calls, or use type_text for text", len(in.Keys), maxKeys)
	}
	for i, k := range in.Keys {
		if k == "" || utf8.RuneCountInString(k) > maxKeyLength {
			return errorf("keys[%d] %q: each key must be 1..%d characters, a tmux key name such as Enter, C-c, Up, Tab, F5 or a short literal string", i, truncate(k, 40), maxKeyLength)
		}
	}
	_, err := parseKeys(in.Keys)
	return err
}

func (h *Handlers) sendKeysTool() Tool {
	in := object(map[string]*jsonschema.Schema{
		"paneId": paneID("Pane to send keys to, e.g. %1."),
		"keys": {Type: "array", MinItems: ptr(1), MaxItems: ptr(maxKeys), Items: &jsonschema.Schema{Type: "string", MinLength: ptr(1), MaxLength: ptr(maxKeyLength)},
			Description: "Keys sent in order, each one of: " + input.Accepted + ". A spelling outside these (Return, Esc, 0xdg, ^C-m, mouse keys) is an error that names the one to use."},
	}, "paneId", "keys")
	tool := &mcp.Tool{
		Name:  "send_keys",
		Title: "Send keys to a pane",
		Description: "Send key presses to a pane: C-c to interrupt, C-d, Escape, Enter, arrows, PageDown, q to quit a pager, function keys. " +
			"Returns the stream cursor from before the keys. A spelling tmux does not know is an error naming the right one. For text use type_text. " +
			"Under a command policy, keys that may run the line are judged first; a line changed with editing keys cannot be: C-c, then type_text the whole command.",
		InputSchema:  in,
		OutputSchema: inputOutSchema(),
		Annotations:  &mcp.ToolAnnotations{Title: "Send keys to a pane", ReadOnlyHint: false, DestructiveHint: ptr(true), IdempotentHint: false, OpenWorldHint: ptr(true)},
	}
	return typed(h, tool, h.sendKeys)
}

func (h *Handlers) sendKeys(ctx context.Context, _ *mcp.CallToolRequest, in *sendKeysIn) (*inputOut, error) {
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
	next, step, err := line.Keys(keys, h.opts.Policy != nil, h.shellReads(ctx, n))
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
	return &inputOut{PaneID: id, Cursor: s.Cursor(typed.At).String(), Submitted: step.Submitted}, nil
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
