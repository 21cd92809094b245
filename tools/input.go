package tools

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oklog/ulid/v2"
	"github.com/tmuxmcp/tmuxmcp/approval"
	"github.com/tmuxmcp/tmuxmcp/audit"
	"github.com/tmuxmcp/tmuxmcp/input"
	"github.com/tmuxmcp/tmuxmcp/shell"
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
		"submitted": boolean("Enter, or another key that ends or discards the line being typed (C-m, C-j, C-c, C-d, C-u, Escape, M- keys), was sent."),
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
		Description: "Type literal text into a pane's program (a shell, a REPL, an editor, a question), optionally pressing Enter (submit). " +
			"Returns the stream cursor from before the input: wait_for_text from it (the text's own echo never matches). Refuses a pane in copy mode or whose program exited. For shell commands prefer run_shell_command; for key names use send_keys.",
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
	p, err := h.fleet.PaneMarked(ctx, pane, mark)
	if err != nil {
		s.Untype(in)
		return 0, nil, in, h.paneError(field, pane, err)
	}
	switch {
	case p.InMode:
		s.Untype(in)
		return 0, nil, in, errorf("%s %s is in copy mode (someone is scrolling it): keys would go to copy mode, not the program, so nothing was sent. Wait for them to leave it (capture_pane shows inCopyMode), or ask them to", field, paneName(pane))
	case p.Dead:
		s.Untype(in)
		return 0, nil, in, errorf("%s %s is dead: its program exited, so nothing was sent. Use create_pane for a new one", field, paneName(pane))
	case p.InputOff:
		s.Untype(in)
		return 0, nil, in, errorf("%s %s has input disabled (select-pane -d), so nothing was sent; someone must enable it with select-pane -e", field, paneName(pane))
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
func (h *Handlers) allowSubmit(ctx context.Context, tool, paneID string, lines []string, secret bool) error {
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
	if h.opts.Policy == nil {
		h.audit(audit.Event{Event: "decision", Tool: tool, PaneID: paneID, Command: text, Decision: string(approval.AutoApproved), DecidedBy: "policy:default"})
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
		d, b, w := h.decide(subj)
		if rank[d] > rank[decision] || by == "" {
			decision, by, why = d, b, w
		}
	}
	if decision == approval.Ask {
		if sh := approval.Show(shown); sh.TooLong {
			h.audit(audit.Event{Event: "decision", Tool: tool, PaneID: paneID, Command: shown, Decision: string(approval.Rejected), DecidedBy: "tmuxmcp: too long to show"})
			return tooLongToShow(sh)
		}
		// No job to hand back: wait here for the person's answer.
		if err := h.startReview(ctx, tool, pane, shown); err != nil {
			return err
		}
		decision, by = h.askInTmux(ctx, approval.Request{RequestID: strings.ToLower(ulid.Make().String()), Tool: tool, Pane: paneID, Program: subj.Program, CWD: subj.CWD, Command: shown})
	}
	h.audit(audit.Event{Event: "decision", Tool: tool, PaneID: paneID, Command: shown, Decision: string(decision), DecidedBy: by})
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
func (h *Handlers) screenLines(ctx context.Context, pane, anchor int) (cursorLine, region string) {
	p, err := h.fleet.Pane(ctx, pane)
	if err != nil {
		return "", ""
	}
	hist, cy := p.HistorySize, p.CursorY
	const maxRows = 500 // a wrapped line longer than this many rows is cut at its start
	capture := func(start int) []string {
		return []string{"capture-pane", "-p", "-J", "-t", paneName(pane), "-S", strconv.Itoa(start), "-E", strconv.Itoa(cy)}
	}
	cmds := [][]string{capture(cy - maxRows)}
	if anchor != 0 {
		// Rows above the screen are negative; tmux clamps a start trimmed
		// from history to the oldest row, which only widens what is judged.
		cmds = append(cmds, capture(min(anchor-1-hist, cy)))
	}
	out, err := h.fleet.ExecBatch(ctx, cmds...)
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
	if _, err := h.fleet.ExecBatch(ctx, input.TextCommands(id, in.Text, buf, in.Submit)...); err != nil {
		s.Untype(typed)
		return nil, h.paneError("paneId", pane, err)
	}
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
	h.setLine(pane, h.stillOpen(ctx, pane, next, step))
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

// anchored returns l with its anchor set to the pane's cursor row when it
// has none and a policy is active.
func (h *Handlers) anchored(ctx context.Context, pane int, l input.Line) input.Line {
	if h.opts.Policy == nil || l.Anchor != 0 {
		return l
	}
	if p, err := h.fleet.Pane(ctx, pane); err == nil {
		l.Anchor = p.HistorySize + p.CursorY + 1
	}
	return l
}

// editedError is the tool error for input refused because the line it
// would run cannot be judged.
func (h *Handlers) editedError(tool, paneID string, err *input.EditedError) error {
	h.audit(audit.Event{Event: "decision", Tool: tool, PaneID: paneID, Command: err.Key, Decision: string(approval.Blocked), DecidedBy: "policy:edited-line"})
	return errorf("%s: %s, so nothing was sent. Send C-c with send_keys to clear the line, then type the whole command with type_text (submit: true) or use run_shell_command", tool, err.Error())
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
	if _, err := h.fleet.ExecBatch(ctx, input.KeyCommands(id, keys)...); err != nil {
		s.Untype(typed)
		return nil, h.paneError("paneId", pane, err)
	}
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
	if step.Cleared {
		// The line is empty now: the prompt of a shell tmuxmcp did not
		// start can be learnt from it.
		h.run.LineCleared(pane)
	}
	h.setLine(pane, h.stillOpen(ctx, pane, next, step))
	return &inputOut{PaneID: id, Cursor: s.Cursor(typed.At).String(), Submitted: step.Submitted}, nil
}

// shellReads reports whether a shell's line editor reads pane's input: the
// pane's current program is a shell, or cannot be told (then assume one).
func (h *Handlers) shellReads(ctx context.Context, pane int) bool {
	if h.opts.Policy == nil {
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
func (h *Handlers) secretPrompt(ctx context.Context, pane int) bool {
	if h.opts.Policy == nil && h.opts.Audit == nil {
		return false // nothing would record or show the text
	}
	p, err := h.fleet.Pane(ctx, pane)
	if err != nil {
		return false
	}
	probe, err := shell.ProbePane(p.PID, p.TTY)
	return err == nil && probe.Secret()
}

// hiddenText stands for text typed at a password prompt.
func hiddenText(s string) string {
	return fmt.Sprintf("[%d characters typed at a prompt with echo off (a password): not recorded]", utf8.RuneCountInString(s))
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
func (h *Handlers) stillOpen(ctx context.Context, pane int, next input.Line, step input.Step) input.Line {
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
