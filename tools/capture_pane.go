package tools

import (
	"context"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type capturePaneIn struct {
	PaneID    string `json:"paneId"`
	StartLine *int   `json:"startLine,omitempty"`
	Escapes   bool   `json:"escapes,omitempty"`
}

func (in *capturePaneIn) check() error {
	if _, err := parsePaneID("paneId", in.PaneID); err != nil {
		return err
	}
	if in.StartLine != nil && (*in.StartLine < -maxHistoryLines || *in.StartLine > 10000) {
		return errorf("startLine %d: must be -%d..10000 (0 is the top of the screen, negative reaches into history)", *in.StartLine, maxHistoryLines)
	}
	return nil
}

type capturePaneOut struct {
	Screen          string  `json:"screen"`
	ScreenClamped   bool    `json:"screenClamped"`
	Cursor          string  `json:"cursor"`
	Width           int     `json:"width"`
	Height          int     `json:"height"`
	CursorX         int     `json:"cursorX"`
	CursorY         int     `json:"cursorY"`
	AlternateScreen bool    `json:"alternateScreen"`
	InCopyMode      bool    `json:"inCopyMode"`
	CurrentCommand  string  `json:"currentCommand"`
	Dead            bool    `json:"dead"`
	PaneID          string  `json:"paneId"`
	WaitingForInput bool    `json:"waitingForInput"`
	Foreground      *string `json:"foreground"`
	Prompt          *string `json:"prompt"`
}

// maxHistoryLines bounds how far back startLine may reach.
const maxHistoryLines = 1000000

func (h *Handlers) capturePaneTool() Tool {
	in := object(map[string]*jsonschema.Schema{
		"paneId":    paneID("Pane to capture, e.g. %1."),
		"startLine": integer("First line to include: 0 is the top of the visible screen, negative numbers reach into the scrollback history (e.g. -100). Default: the visible screen only.", -maxHistoryLines, 10000),
		"escapes":   boolean("Keep colour and attribute escape sequences in screen."),
	}, "paneId")
	out := outputObject(map[string]*jsonschema.Schema{
		"screen":          str("The pane's contents as a person sees them, wrapped lines joined, trailing spaces and blank lines trimmed."),
		"screenClamped":   boolean("The result ceiling cut screen; its last lines are kept."),
		"cursor":          cursorSchema("The stream position this snapshot reflects: wait_for_text from it to catch anything printed after the snapshot, with no race."),
		"width":           count("Pane width in columns."),
		"height":          count("Pane height in rows."),
		"cursorX":         count("Terminal cursor column."),
		"cursorY":         count("Terminal cursor row."),
		"alternateScreen": boolean("A full-screen program (vim, less, top) is using the alternate screen."),
		"inCopyMode":      boolean("The pane is in copy mode (someone is scrolling it); typing would go to copy mode."),
		"currentCommand":  str("The pane's foreground program, e.g. bash, python3, vim."),
		"dead":            boolean("The pane's program has exited (the pane was kept by remain-on-exit)."),
		"paneId":          paneID("The pane captured."),
		"waitingForInput": boolean("A program (not the shell at its prompt) is blocked reading the terminal and has printed nothing for 0.5 s: a question, a password prompt, a REPL, a pager. Answer with type_text or send_keys (q quits a pager)."),
		"foreground":      nullable(str("With waitingForInput: the program waiting, else null.")),
		"prompt":          nullable(str("With waitingForInput: the text before the cursor on its line, else null.")),
	})
	tool := &mcp.Tool{
		Name:  "capture_pane",
		Title: "Capture a pane's screen",
		Description: "Snapshot what a pane shows now (optionally with scrollback): screen, size, terminal cursor, currentCommand, alternateScreen, inCopyMode, and a stream cursor for that moment (wait_for_text from it misses nothing). " +
			"waitingForInput says a program waits at a prompt (with foreground and prompt). Not for output over time: use capture_since.",
		InputSchema:  in,
		OutputSchema: out,
		Annotations:  &mcp.ToolAnnotations{Title: "Capture a pane's screen", ReadOnlyHint: true, DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)},
	}
	return typed(h, tool, h.capturePane)
}

func (h *Handlers) capturePane(ctx context.Context, _ *mcp.CallToolRequest, in *capturePaneIn) (*capturePaneOut, error) {
	pane, s, err := h.paneStream(ctx, "paneId", in.PaneID)
	if err != nil {
		return nil, err
	}
	id := paneName(pane)
	p, err := h.fleet.Pane(ctx, pane)
	if err != nil {
		return nil, h.paneError("paneId", pane, err)
	}
	args := []string{"capture-pane", "-p", "-J", "-t", id}
	if in.Escapes {
		args = append(args, "-e")
	}
	if in.StartLine != nil {
		args = append(args, "-S", strconv.Itoa(*in.StartLine))
	}
	var at int64
	lines, err := h.fleet.ExecPane(ctx, pane, func() { at = s.End() }, args...)
	if err != nil {
		return nil, h.paneError("paneId", pane, err)
	}
	out := &capturePaneOut{PaneID: id, Cursor: s.Cursor(at).String(), Width: p.Width, Height: p.Height, CursorX: p.CursorX, CursorY: p.CursorY,
		AlternateScreen: p.Alternate, InCopyMode: p.InMode, CurrentCommand: programName(p.CurrentCommand, p.Program), Dead: p.Dead}
	out.Screen, out.ScreenClamped = clampTail(trimScreen(lines), h.opts.ResultMax)
	if w, ok := h.run.WaitingForInput(ctx, pane); ok {
		out.WaitingForInput, out.Foreground, out.Prompt = true, ptr(w.Program), ptr(w.Prompt)
	}
	return out, nil
}
