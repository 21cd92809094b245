package tools

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oklog/ulid/v2"
	"github.com/tmuxmcp/tmuxmcp/input"
)

type typeTextIn struct {
	PaneID string `json:"paneId"`
	Text   string `json:"text"`
	Submit bool   `json:"submit,omitempty"`
}

func (in *typeTextIn) check() error {
	if _, err := parsePaneID("paneId", in.PaneID); err != nil {
		return err
	}
	if in.Text == "" && !in.Submit {
		return errorf("text is empty and submit is false: nothing to type. Give text, or submit: true to press Enter alone")
	}
	if n := utf8.RuneCountInString(in.Text); n > maxTextBytes {
		return errorf("text is %d characters, over the limit of %d: type it in several calls, or write it to a file and type a command that reads it", n, maxTextBytes)
	}
	return nil
}

func (h *Handlers) typeTextTool() Tool {
	in := object(map[string]*jsonschema.Schema{
		"paneId": paneID("Pane to type into, e.g. %1."),
		"text":   {Type: "string", MaxLength: ptr(maxTextBytes), Description: "Text typed literally: no key names, no escapes interpreted. Multi-line text is sent as one bracketed paste: shells take it as a whole, but a REPL may still run it line by line (in Python, end indented blocks with an empty line)."},
		"submit": boolean("Press Enter after the text."),
	}, "paneId", "text")
	tool := &mcp.Tool{
		Name:  "type_text",
		Title: "Type text into a pane",
		Description: "Type literal text into a pane's program (a shell, a REPL, an editor, a question), optionally pressing Enter (submit). " +
			"Returns the stream cursor from before the input: wait_for_text from it (the text's own echo never matches). Refuses a pane in copy mode or whose program exited. For shell commands prefer run_shell_command; for key names use send_keys.",
		InputSchema:  in,
		OutputSchema: inputOutSchema(),
		Annotations:  &mcp.ToolAnnotations{Title: "Type text into a pane", ReadOnlyHint: false, DestructiveHint: ptr(true), IdempotentHint: false, OpenWorldHint: ptr(true)},
	}
	return typed(h, tool, h.typeText)
}

func (h *Handlers) typeText(ctx context.Context, _ *mcp.CallToolRequest, in *typeTextIn) (*inputOut, error) {
	n, err := parsePaneID("paneId", in.PaneID)
	if err != nil {
		return nil, err
	}
	defer h.run.LockPane(n)()
	h.run.Prompted(ctx, n, 2*time.Second)
	line := h.anchored(ctx, n, h.line(n))
	next, step, err := line.Type(in.Text, in.Submit, h.opts.Policy != nil)
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
	return &inputOut{PaneID: id, Cursor: s.Cursor(typed.At).String(), Submitted: in.Submit}, nil
}
