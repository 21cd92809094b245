package tools

import (
	"context"
	"regexp"
	"slices"
	"strconv"
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
func (h *Handlers) allowSubmit(ctx context.Context, tool, paneID string, lines []string) error {
	pane, err := parsePaneID("paneId", paneID)
	if err != nil {
		return err
	}
	if _, _, err := h.paneStream(ctx, "paneId", paneID); err != nil {
		return err
	}
	text := strings.Join(lines, "\n")
	if h.opts.Policy == nil {
		h.audit(audit.Event{Event: "decision", Tool: tool, PaneID: paneID, Command: text, Decision: "auto-approved", DecidedBy: "policy:default"})
		return nil
	}
	st := h.lineOf(pane)
	if st.edited {
		// Editing keys sent earlier may still be queued in the terminal, so
		// neither the model nor the screen can say what the line will be.
		h.audit(audit.Event{Event: "decision", Tool: tool, PaneID: paneID, Command: text, Decision: "blocked", DecidedBy: "policy:edited-line"})
		return errorf("%s: the line in pane %s was changed with editing keys (arrows, BSpace, C-a, history Up, ...) since it was started, and a command policy is active: such a line cannot be checked before it runs, so nothing was sent. Send C-c with send_keys to clear the line, then type the whole command with type_text (submit: true) or use run_shell_command", tool, paneID)
	}
	candidates := slices.Clone(lines)
	screen, region := h.screenLines(ctx, pane, st.anchor)
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
	decision, by := "auto-approved", ""
	rank := map[string]int{"auto-approved": 0, "ask": 1, "blocked": 2}
	subj := h.subject(ctx, pane, "") // where it runs: the same for every candidate
	for _, c := range candidates {
		subj.Command = c
		d, b := h.decide(subj)
		if rank[d] > rank[decision] || by == "" {
			decision, by = d, b
		}
	}
	if decision == "ask" {
		// No job to hand back: wait here for the person's answer.
		if err := h.startReview(ctx, tool, pane, shown); err != nil {
			return err
		}
		decision, by = h.askInTmux(ctx, reviewRequest{id: strings.ToLower(ulid.Make().String()), tool: tool, pane: paneID, program: subj.Program, cwd: subj.CWD, command: shown})
	}
	h.audit(audit.Event{Event: "decision", Tool: tool, PaneID: paneID, Command: shown, Decision: decision, DecidedBy: by})
	switch decision {
	case "auto-approved", "approved":
		return nil
	case "blocked":
		return errorf("blocked by this server's policy (%s): nothing was typed. Do not retry it in another form; tell the user what you wanted to run and why", by)
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

// hasControl reports whether s holds a control character other than TAB:
// typed into a program, it may act as a key (CR submits, C-o runs the line,
// ESC starts a sequence).
func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r != '\t' && (r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0)) })
}

func (h *Handlers) typeText(ctx context.Context, _ *mcp.CallToolRequest, in *typeTextIn) (*inputOut, error) {
	n, err := parsePaneID("paneId", in.PaneID)
	if err != nil {
		return nil, err
	}
	defer h.run.LockPane(n)()
	h.run.Prompted(ctx, n, 2*time.Second)
	st := h.lineOf(n)
	line := st.line + in.Text
	next := h.anchored(ctx, n, st)
	// A line break or other control character can submit by itself (no
	// bracketed paste in many programs, C-o, a pasted paste-end sequence).
	if in.Submit || (h.opts.Policy != nil && (hasControl(in.Text) || strings.Contains(in.Text, "\n"))) {
		if err := h.allowSubmit(ctx, "type_text", in.PaneID, []string{line}); err != nil {
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
	if in.Submit {
		line, next.anchor = "", 0
	}
	h.setLine(pane, lineState{line: line, kill: st.kill, anchor: next.anchor, edited: st.edited && !in.Submit})
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
			"For typing text use type_text: it is literal and handles multi-line text. " +
			"When the server has a command policy, a line changed with editing keys (arrows, BSpace, C-a, history Up) cannot be submitted: C-c, then type the whole command with type_text submit:true.",
		InputSchema:  in,
		OutputSchema: inputOutSchema(),
		Annotations:  &mcp.ToolAnnotations{Title: "Send keys to a pane", ReadOnlyHint: false, DestructiveHint: ptr(true), IdempotentHint: false, OpenWorldHint: ptr(true)},
	}
	return typed(h, tool, h.sendKeys)
}

// modifiedKey matches a key with modifiers; tmux reads C-, M- and S- in any case.
var modifiedKey = regexp.MustCompile(`(?i)^(?:[CMS]-)+.+$|^\^.$`)

var keyNames = map[string]string{
	"Enter": "", "Escape": "", "Tab": "", "BTab": "", "BSpace": "", "Space": " ", "Up": "", "Down": "", "Left": "", "Right": "",
	"Home": "", "End": "", "PageUp": "", "PageDown": "", "PgUp": "", "PgDn": "", "PPage": "", "NPage": "", "IC": "", "DC": "",
	"Insert": "", "Delete": "", "KPEnter": "", "Any": "",
	"F1": "", "F2": "", "F3": "", "F4": "", "F5": "", "F6": "", "F7": "", "F8": "", "F9": "", "F10": "", "F11": "", "F12": "",
}

// submitKeys (lower case) end the line being edited: the ledger stops treating typed
// text as unsubmitted after any of them.
var submitKeys = map[string]bool{"enter": true, "kpenter": true, "c-m": true, "c-j": true, "c-c": true, "c-d": true, "c-u": true, "escape": true}

// lineState is tmuxmcp's model of a pane's edit line, for the policy: the
// text typed since the last Enter and the last killed text (C-u), so that
// C-y (yank) and a later Enter are judged on what the shell will run.
//
// anchor is 1 + the absolute row (history_size + cursor_y) where tmuxmcp
// first typed into the line, or 0: under a policy the Enter is also judged
// on the screen from that row to the cursor, which holds the whole edit
// buffer even after editing keys changed it or it spans several lines.
type lineState struct {
	line, kill string
	anchor     int
	edited     bool // keys the model does not follow were sent since the last submit
}

// anchored returns st with its anchor set to the pane's cursor row when it
// has none and a policy is active.
func (h *Handlers) anchored(ctx context.Context, pane int, st lineState) lineState {
	if h.opts.Policy == nil || st.anchor != 0 {
		return st
	}
	if p, err := h.fleet.Pane(ctx, pane); err == nil {
		st.anchor = p.HistorySize + p.CursorY + 1
	}
	return st
}

func (h *Handlers) lineOf(pane int) lineState {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.typedLine[pane]
}

func (h *Handlers) setLine(pane int, st lineState) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.typedLine[pane] = st
}

// keyKind classifies a tmux key name as tmux reads it (case-insensitive).
type keyKind int

const (
	kText    keyKind = iota // types its characters
	kEnter                  // submits the line
	kMove                   // moves or edits without submitting
	kKillAll                // C-u: the line goes to the kill ring
	kAbort                  // C-c: the line is dropped
	kYank                   // C-y: the kill ring comes back
	kOther                  // any other key: it may submit (C-o, C-x C-e, bindings)
)

var keyKinds = map[string]keyKind{
	"enter": kEnter, "kpenter": kEnter, "c-m": kEnter, "c-j": kEnter, "^m": kEnter, "^j": kEnter, "0xd": kEnter, "0xa": kEnter,
	"up": kMove, "down": kMove, "left": kMove, "right": kMove, "home": kMove, "end": kMove,
	"pageup": kMove, "pagedown": kMove, "pgup": kMove, "pgdn": kMove, "ppage": kMove, "npage": kMove,
	"bspace": kMove, "dc": kMove, "delete": kMove, "ic": kMove, "insert": kMove, "btab": kMove,
	"c-a": kMove, "c-e": kMove, "c-b": kMove, "c-f": kMove, "c-h": kMove, "c-d": kMove, "c-k": kMove,
	"c-w": kMove, "c-l": kMove, "escape": kMove, "space": kText,
	"c-u": kKillAll, "c-c": kAbort, "c-y": kYank,
}

func kindOf(k string) keyKind {
	if kind, ok := keyKinds[strings.ToLower(k)]; ok {
		return kind
	}
	if r, ok := hexRune(k); ok && !hasControl(string(r)) {
		return kText // tmux sends 0x6d as "m"
	}
	if modifiedKey.MatchString(k) || hexKey.MatchString(k) || hasControl(k) || keyNames[k] == "" && isKeyName(k) {
		return kOther
	}
	return kText
}

var hexKey = regexp.MustCompile(`(?i)^0x[0-9a-f]+$`)

// hexRune is the character a hex key name (0x6d) sends.
func hexRune(k string) (rune, bool) {
	if !hexKey.MatchString(k) {
		return 0, false
	}
	n, err := strconv.ParseUint(k[2:], 16, 32)
	if err != nil || n > utf8.MaxRune {
		return 0, false
	}
	return rune(n), true
}

func isKeyName(k string) bool {
	for name := range keyNames {
		if strings.EqualFold(name, k) {
			return true
		}
	}
	return false
}

// keyText is the text a key types, for the echo ledger. Key names are
// matched without regard to case, as tmux does ("SPACE" types a space).
func keyText(k string) string {
	for name, t := range keyNames {
		if strings.EqualFold(name, k) {
			return t
		}
	}
	if r, ok := hexRune(k); ok {
		if hasControl(string(r)) {
			return ""
		}
		return string(r)
	}
	if modifiedKey.MatchString(k) {
		return ""
	}
	return k
}

func (h *Handlers) sendKeys(ctx context.Context, _ *mcp.CallToolRequest, in *sendKeysIn) (*inputOut, error) {
	n, err := parsePaneID("paneId", in.PaneID)
	if err != nil {
		return nil, err
	}
	defer h.run.LockPane(n)()
	h.run.Prompted(ctx, n, 2*time.Second)
	// Replay the keys on tmuxmcp's model of the edit line: every line an
	// Enter (in any spelling) or an unknown key could submit is judged.
	st := h.lineOf(n)
	anchor := h.anchored(ctx, n, st).anchor
	var text strings.Builder
	var judge []string
	submit := false
	// edited is the key (cursor move, deletion, history recall, yank, any
	// other key) after which the model no longer knows the line: an Enter later in the same
	// call cannot be judged, because the screen is read before sending.
	edited := ""
	ended := false // an Enter or C-c ended a line: the next starts elsewhere
	for _, k := range in.Keys {
		text.WriteString(keyText(k))
		kind := kindOf(k)
		if edited != "" && (kind == kEnter || kind == kOther) && h.opts.Policy != nil {
			return nil, errorf("keys: %q comes after the editing key %q, and a command policy is active: a line changed with editing keys cannot be checked before it runs, so nothing was sent. Send C-c to clear the line if needed, then type the whole command with type_text (submit: true) or use run_shell_command", k, edited)
		}
		switch kind {
		case kEnter:
			judge = append(judge, st.line)
			st.line, submit, ended = "", true, true
		case kKillAll:
			st.kill, st.line, submit = st.line, "", true
		case kAbort:
			st.line, submit, edited, ended = "", true, "", true
		case kYank:
			st.line += st.kill
			edited = k
		case kMove:
			submit = submit || submitKeys[strings.ToLower(k)]
			edited = k
		case kOther:
			// It may submit (C-o) or edit the line (C-t transposes).
			judge = append(judge, st.line+keyText(k))
			edited = k
		default:
			st.line += keyText(k)
		}
	}
	if len(judge) > 0 {
		if err := h.allowSubmit(ctx, "send_keys", in.PaneID, judge); err != nil {
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
	if ended {
		anchor = 0 // the next line starts wherever the output leaves the cursor
	}
	if n := len(in.Keys); n > 0 && (kindOf(in.Keys[n-1]) == kKillAll || kindOf(in.Keys[n-1]) == kAbort) {
		// The line is empty now: the prompt of a shell tmuxmcp did not
		// start can be learnt from it.
		h.run.LineCleared(pane)
	}
	st.anchor = anchor
	st.edited = st.edited && !ended || edited != ""
	h.setLine(pane, st)
	return &inputOut{PaneID: id, Cursor: s.Cursor(typed.At).String(), Submitted: submit}, nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
