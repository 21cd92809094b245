package engine

import (
	"context"

	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// CapturePaneRequest asks for what a pane shows now.
type CapturePaneRequest struct {
	On
	PaneID    string `json:"paneId"`
	StartLine *int   `json:"startLine,omitempty"`
	Escapes   bool   `json:"escapes,omitempty"`
}

// Check checks the arguments, naming the field, the value and the fix.
func (in *CapturePaneRequest) Check() error {
	if _, err := parsePaneID("paneId", in.PaneID); err != nil {
		return err
	}
	if in.StartLine != nil && (*in.StartLine < -MaxHistoryLines || *in.StartLine > 10000) {
		return errorf("startLine %d: must be -%d..10000 (0 is the top of the screen, negative reaches into history)", *in.StartLine, MaxHistoryLines)
	}
	return nil
}

// CapturePaneResult is a pane's screen (or history) as plain text, the
// stream position it was taken at, and the pane's state.
type CapturePaneResult struct {
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

// MaxHistoryLines bounds how far back startLine may reach.
const MaxHistoryLines = 1000000

// CapturePane reads what a pane shows now.
func (h *Host) CapturePane(ctx context.Context, c Caller, in *CapturePaneRequest) (*CapturePaneResult, error) {
	pane, s, err := h.paneStream(ctx, "paneId", in.PaneID)
	if err != nil {
		return nil, err
	}
	id := paneName(pane)
	p, err := h.fleet.Pane(ctx, pane)
	if err != nil {
		return nil, h.paneError("paneId", pane, err)
	}
	var at int64
	lines, err := h.fleet.CapturePane(ctx, pane, tmux.Capture{Escapes: in.Escapes, Start: in.StartLine}, func() { at = s.End() })
	if err != nil {
		return nil, h.paneError("paneId", pane, err)
	}
	out := &CapturePaneResult{PaneID: id, Cursor: s.Cursor(at).String(), Width: p.Width, Height: p.Height, CursorX: p.CursorX, CursorY: p.CursorY,
		AlternateScreen: p.Alternate, InCopyMode: p.InMode, CurrentCommand: programName(p.CurrentCommand, p.Program), Dead: p.Dead}
	out.Screen, out.ScreenClamped = clampTail(trimScreen(lines), h.opts.ResultMax)
	if w, ok := h.run.WaitingForInput(ctx, pane); ok {
		out.WaitingForInput, out.Foreground, out.Prompt = true, ptr(w.Program), ptr(w.Prompt)
	}
	return out, nil
}
