package tools

import (
	"context"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oklog/ulid/v2"
	"github.com/tmuxmcp/tmuxmcp/audit"
	"github.com/tmuxmcp/tmuxmcp/stream"
)

// Limits of the input tools.
const (
	maxTextBytes = 64 << 10
	maxKeys      = 64
	maxKeyLength = 256
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

type inputOut struct {
	PaneID    string `json:"paneId"`
	Cursor    string `json:"cursor"`
	Submitted bool   `json:"submitted"`
}

func inputOutSchema() *jsonschema.Schema {
	return outputObject(map[string]*jsonschema.Schema{
		"paneId":    paneID("The pane typed into."),
		"cursor":    cursorSchema("The stream position before the input: pass it to wait_for_text to catch the response, however fast it came."),
		"submitted": boolean("Enter, or another key that ends or discards the line being typed (C-m, C-j, C-c, C-d, C-u, Escape), was sent."),
	})
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
		Description: "Type literal text into a pane's program (a shell, a REPL, an editor), optionally pressing Enter, and get the stream cursor from before the input to wait from. " +
			"Its echo never matches your wait_for_text patterns. It refuses a pane in copy mode or whose program exited, and changes nothing then. " +
			"Wait for the program's prompt first: a program not yet reading input can echo the text out of place. " +
			"For key names (Enter, C-c, Up, Tab) use send_keys.",
		InputSchema:  in,
		OutputSchema: inputOutSchema(),
		Annotations:  &mcp.ToolAnnotations{Title: "Type text into a pane", ReadOnlyHint: false, DestructiveHint: ptr(true), IdempotentHint: false, OpenWorldHint: ptr(true)},
	}
	return typed(h, tool, h.typeText)
}

// prepareInput checks the pane can take input and records text in the echo
// ledger at the exact stream position before the input.
func (h *Handlers) prepareInput(ctx context.Context, field, id, text string) (int, *stream.PaneStream, stream.Input, error) {
	var in stream.Input
	pane, s, err := h.paneStream(ctx, field, id)
	if err != nil {
		return 0, nil, in, err
	}
	mark := func() { in = s.Typed(text, time.Now()) }
	lines, err := h.fleet.ExecPane(ctx, pane, mark, "display-message", "-p", "-t", paneName(pane), "#{pane_in_mode}\x1f#{pane_dead}\x1f#{pane_input_off}")
	if err != nil {
		s.Untype(in)
		return 0, nil, in, h.paneError(field, pane, err)
	}
	f := strings.Split(strings.Join(lines, ""), "\x1f")
	if len(f) == 3 {
		undo := func() { s.Untype(in) }
		switch {
		case f[0] == "1":
			undo()
			return 0, nil, in, errorf("%s %s is in copy mode (someone is scrolling it): keys would go to copy mode, not the program, so nothing was sent. Wait for them to leave it (capture_pane shows inCopyMode), or ask them to", field, paneName(pane))
		case f[1] == "1":
			undo()
			return 0, nil, in, errorf("%s %s is dead: its program exited, so nothing was sent. Use create_pane for a new one", field, paneName(pane))
		case f[2] == "1":
			undo()
			return 0, nil, in, errorf("%s %s has input disabled (select-pane -d), so nothing was sent; someone must enable it with select-pane -e", field, paneName(pane))
		}
	}
	return pane, s, in, nil
}

// allowSubmit applies the approval policy to input that will be submitted.
func (h *Handlers) allowSubmit(ctx context.Context, tool, paneID, text string) error {
	pane, err := parsePaneID("paneId", paneID)
	if err != nil {
		return err
	}
	if _, _, err := h.paneStream(ctx, "paneId", paneID); err != nil {
		return err
	}
	decision, by, err := h.decide(ctx, tool, pane, text, "")
	if err != nil {
		return err
	}
	if decision == "ask" {
		// No job to hand back: wait here for the person's answer.
		if err := h.startReview(ctx, tool, pane, text); err != nil {
			return err
		}
		subj := h.subject(ctx, pane, text)
		req := reviewRequest{id: strings.ToLower(ulid.Make().String()), tool: tool, pane: paneID, program: subj.Program, cwd: subj.CWD, command: text}
		ans := h.askPeople(ctx, h.humanClients(ctx), req)
		h.mu.Lock()
		h.reviewing = false
		if ans.allowSession {
			h.allowAll = true
		}
		h.mu.Unlock()
		decision, by = ans.decision, "tmux:"+ans.client
	}
	h.audit(audit.Event{Event: "decision", Tool: tool, PaneID: paneID, Command: text, Decision: decision, DecidedBy: by})
	switch decision {
	case "auto-approved", "approved":
	case "denied", "denied-timeout", "denied-error":
		return errorf("%s by the person asked (%s): nothing was typed. Do not retry it in another form; ask the user what to do instead", decision, by)
	}
	if decision == "blocked" {
		return errorf("blocked by this server's policy (%s): nothing was typed. Do not retry it in another form; tell the user what you wanted to run and why", by)
	}
	return nil
}

func (h *Handlers) typeText(ctx context.Context, _ *mcp.CallToolRequest, in *typeTextIn) (*inputOut, error) {
	n, err := parsePaneID("paneId", in.PaneID)
	if err != nil {
		return nil, err
	}
	if in.Submit {
		if err := h.allowSubmit(ctx, "type_text", in.PaneID, h.lineSoFar(n)+in.Text); err != nil {
			return nil, err
		}
	}
	pane, s, typed, err := h.prepareInput(ctx, "paneId", in.PaneID, in.Text)
	if err != nil {
		return nil, err
	}
	id := paneName(pane)
	switch {
	case in.Text == "":
	case strings.ContainsAny(in.Text, "\n\r"):
		buf := "tmuxmcp-" + strings.ToLower(ulid.Make().String())
		_, err = h.fleet.ExecBatch(ctx,
			[]string{"set-buffer", "-b", buf, "--", in.Text},
			[]string{"paste-buffer", "-d", "-p", "-b", buf, "-t", id})
	default:
		_, err = h.fleet.Exec(ctx, "send-keys", "-t", id, "-l", "--", in.Text)
	}
	if err != nil {
		s.Untype(typed)
		return nil, h.paneError("paneId", pane, err)
	}
	if in.Submit {
		if _, err := h.fleet.Exec(ctx, "send-keys", "-t", id, "Enter"); err != nil {
			return nil, h.paneError("paneId", pane, err)
		}
		s.Submitted(time.Now())
	}
	h.noteTyped(pane, in.Text, in.Submit)
	return &inputOut{PaneID: id, Cursor: s.Cursor(typed.At).String(), Submitted: in.Submit}, nil
}

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
			return errorf("keys[%d] %q: each key must be 1..%d bytes, a tmux key name such as Enter, C-c, Up, Tab, F5 or a short literal string", i, truncate(k, 40), maxKeyLength)
		}
	}
	return nil
}

func (h *Handlers) sendKeysTool() Tool {
	in := object(map[string]*jsonschema.Schema{
		"paneId": paneID("Pane to send keys to, e.g. %1."),
		"keys": {Type: "array", MinItems: ptr(1), MaxItems: ptr(maxKeys), Items: &jsonschema.Schema{Type: "string", MinLength: ptr(1), MaxLength: ptr(maxKeyLength)},
			Description: "tmux key names, sent in order: Enter, Escape, Tab, BSpace, Space, Up, Down, Left, Right, Home, End, PageUp, PageDown, F1..F12, C-c (Ctrl-C), M-x (Alt-x), S-Left. A string that is not a key name is typed as text."},
	}, "paneId", "keys")
	tool := &mcp.Tool{
		Name:  "send_keys",
		Title: "Send keys to a pane",
		Description: "Send tmux key presses to a pane: control keys (C-c to interrupt, C-d for end of input), navigation (Up, PageDown), Escape, Enter, function keys. " +
			"Returns the stream cursor from before the keys, to wait from. It refuses a pane in copy mode or whose program exited, and changes nothing then. " +
			"For typing text use type_text: it is literal and handles multi-line text.",
		InputSchema:  in,
		OutputSchema: inputOutSchema(),
		Annotations:  &mcp.ToolAnnotations{Title: "Send keys to a pane", ReadOnlyHint: false, DestructiveHint: ptr(true), IdempotentHint: false, OpenWorldHint: ptr(true)},
	}
	return typed(h, tool, h.sendKeys)
}

var modifiedKey = regexp.MustCompile(`^(?:[CMS]-)+.+$|^\^.$`)

var keyNames = map[string]string{
	"Enter": "", "Escape": "", "Tab": "", "BTab": "", "BSpace": "", "Space": " ", "Up": "", "Down": "", "Left": "", "Right": "",
	"Home": "", "End": "", "PageUp": "", "PageDown": "", "PgUp": "", "PgDn": "", "PPage": "", "NPage": "", "IC": "", "DC": "",
	"Insert": "", "Delete": "", "KPEnter": "", "Any": "",
	"F1": "", "F2": "", "F3": "", "F4": "", "F5": "", "F6": "", "F7": "", "F8": "", "F9": "", "F10": "", "F11": "", "F12": "",
}

// submitKeys end the line being edited: the ledger stops treating typed
// text as unsubmitted after any of them. enterKeys among them submit it,
// so the approval policy judges the line; the others discard it.
var (
	submitKeys = map[string]bool{"Enter": true, "KPEnter": true, "C-m": true, "C-j": true, "C-c": true, "C-d": true, "C-u": true, "Escape": true}
	enterKeys  = map[string]bool{"Enter": true, "KPEnter": true, "C-m": true, "C-j": true}
)

// lineSoFar returns what tmuxmcp has typed into pane since its last
// submit or discard key: the line an Enter would submit.
func (h *Handlers) lineSoFar(pane int) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.typedLine[pane]
}

// noteTyped records typed text: appended to the pane's line, or the line
// ends (submitted or discarded).
func (h *Handlers) noteTyped(pane int, text string, ends bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if ends {
		delete(h.typedLine, pane)
		return
	}
	h.typedLine[pane] += text
}

// keyText is the text a key types, for the echo ledger.
func keyText(k string) string {
	if t, ok := keyNames[k]; ok {
		return t
	}
	if modifiedKey.MatchString(k) {
		return ""
	}
	return k
}

func (h *Handlers) sendKeys(ctx context.Context, _ *mcp.CallToolRequest, in *sendKeysIn) (*inputOut, error) {
	var text strings.Builder
	submit, enter := false, false
	for _, k := range in.Keys {
		text.WriteString(keyText(k))
		submit = submit || submitKeys[k]
		enter = enter || enterKeys[k]
	}
	n, err := parsePaneID("paneId", in.PaneID)
	if err != nil {
		return nil, err
	}
	if enter {
		// The policy judges the whole line Enter submits, including text
		// typed by earlier calls.
		if err := h.allowSubmit(ctx, "send_keys", in.PaneID, h.lineSoFar(n)+text.String()); err != nil {
			return nil, err
		}
	}
	pane, s, typed, err := h.prepareInput(ctx, "paneId", in.PaneID, text.String())
	if err != nil {
		return nil, err
	}
	id := paneName(pane)
	args := append([]string{"send-keys", "-t", id, "--"}, in.Keys...)
	if _, err := h.fleet.Exec(ctx, args...); err != nil {
		s.Untype(typed)
		return nil, h.paneError("paneId", pane, err)
	}
	if submit {
		s.Submitted(time.Now())
	}
	h.noteTyped(pane, text.String(), submit)
	return &inputOut{PaneID: id, Cursor: s.Cursor(typed.At).String(), Submitted: submit}, nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
