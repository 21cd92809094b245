package tools

import (
	"context"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/cursor"
	"github.com/tmuxmcp/tmuxmcp/stream"
)

type captureSinceIn struct {
	PaneID    string  `json:"paneId"`
	Cursor    *string `json:"cursor,omitempty"`
	MaxLines  *int    `json:"maxLines,omitempty"`
	MaxBytes  *int    `json:"maxBytes,omitempty"`
	LastLines *int    `json:"lastLines,omitempty"`
	Raw       bool    `json:"raw,omitempty"`
}

// maxLastLines bounds lastLines.
const maxLastLines = 100000

// minCaptureBytes keeps every page able to hold at least one rune.
const minCaptureBytes = 16

func (in *captureSinceIn) check() error {
	if _, err := parsePaneID("paneId", in.PaneID); err != nil {
		return err
	}
	if in.MaxLines != nil && *in.MaxLines < 1 {
		return errorf("maxLines %d: must be at least 1; omit it for no line limit", *in.MaxLines)
	}
	if in.MaxBytes != nil && (*in.MaxBytes < minCaptureBytes || *in.MaxBytes > DefaultResultMax) {
		return errorf("maxBytes %d: must be %d..%d; omit it for the server's result ceiling", *in.MaxBytes, minCaptureBytes, DefaultResultMax)
	}
	if in.Cursor != nil {
		if _, err := cursor.Parse(*in.Cursor); err != nil {
			return errorf("cursor: %v. Omit cursor to start at the oldest retained output", err)
		}
	}
	if in.LastLines != nil {
		switch {
		case *in.LastLines < 1 || *in.LastLines > maxLastLines:
			return errorf("lastLines %d: must be 1..%d (the last lines of what the pane printed); omit it to read forward from a cursor", *in.LastLines, maxLastLines)
		case in.Cursor != nil:
			return errorf("lastLines reads the end of the pane's recording and takes no cursor: omit cursor (or omit lastLines to read what follows the cursor)")
		case in.MaxLines != nil:
			return errorf("maxLines limits a forward read: with lastLines, omit maxLines (maxBytes still bounds the bytes returned)")
		}
	}
	return nil
}

type captureSinceOut struct {
	Output         string  `json:"output"`
	Cursor         string  `json:"cursor"`
	RemainingBytes int64   `json:"remainingBytes"`
	MissedBytes    int64   `json:"missedBytes"`
	ReturnedBytes  int     `json:"returnedBytes"`
	StreamFailure  *string `json:"streamFailure"`
	PaneID         string  `json:"paneId"`
}

func (h *Handlers) captureSinceTool() Tool {
	in := object(map[string]*jsonschema.Schema{
		"paneId":    paneID("Pane to read, e.g. %1."),
		"cursor":    cursorSchema("Read what follows this cursor (from an earlier result). Omit to start at the oldest output still retained."),
		"maxLines":  integer("Return at most this many lines (the first ones after the cursor). Default: no line limit.", 1, maxSafeInt),
		"maxBytes":  integer("Return at most this many bytes (the first ones after the cursor; with lastLines, the last ones). Default and maximum: the server's result ceiling.", minCaptureBytes, float64(h.opts.ResultMax)),
		"lastLines": integer("Instead of reading forward: return the last this many lines of what the pane has printed (that is retained), no cursor needed; cursor in the result is the end, to wait or read on from.", 1, maxLastLines),
		"raw":       boolean("Return the bytes as the program wrote them (escape sequences, CR LF) instead of plain text."),
	}, "paneId")
	out := outputObject(map[string]*jsonschema.Schema{
		"output":         str("The output after the cursor: plain text (escapes removed, CR LF as LF) unless raw."),
		"cursor":         cursorSchema("The end of what was returned: pass it to the next capture_since (or wait_for_text) to continue exactly there."),
		"remainingBytes": count("Recorded bytes after the returned cursor: non-zero means call again to read more."),
		"missedBytes":    count("Bytes lost between the given cursor and the oldest retained byte (evicted by the per-pane retention limit): non-zero means output is incomplete."),
		"returnedBytes":  count("UTF-8 bytes in output."),
		"streamFailure":  streamFailureSchema(),
		"paneId":         paneID("The pane read."),
	})
	tool := &mcp.Tool{
		Name:  "capture_since",
		Title: "Read pane output since a cursor",
		Description: "Read a pane's recorded output without waiting: after a cursor (the first maxBytes/maxLines, then a cursor at their end; chained calls read everything exactly once), or with lastLines the last lines printed, no cursor needed. " +
			"Result: output, cursor, remainingBytes (more is recorded: call again), missedBytes (non-zero: evicted before it was read). To wait use wait_for_text; for the screen, capture_pane.",
		InputSchema:  in,
		OutputSchema: out,
		Annotations:  &mcp.ToolAnnotations{Title: "Read pane output since a cursor", ReadOnlyHint: true, DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)},
	}
	return typed(h, tool, h.captureSince)
}

func (h *Handlers) captureSince(ctx context.Context, _ *mcp.CallToolRequest, in *captureSinceIn) (*captureSinceOut, error) {
	rs, err := h.startPoint(ctx, in.PaneID, in.Cursor)
	if err != nil {
		return nil, err
	}
	s := rs.s
	out := &captureSinceOut{PaneID: paneName(rs.pane)}
	if rs.expired {
		start, end := s.Bounds()
		out.Cursor = s.Cursor(start).String()
		out.RemainingBytes = end - start
		out.StreamFailure = failureText(stream.Expired)
		return out, nil
	}
	if in.LastLines != nil {
		if start, end := s.Bounds(); start == end {
			return nil, errorf("lastLines: pane %s has nothing recorded (it has printed nothing tmuxmcp still holds): wait_for_text waits for its first output", paneName(rs.pane))
		}
		limit := h.opts.ResultMax
		if in.MaxBytes != nil {
			limit = min(*in.MaxBytes, limit)
		}
		r := s.Tail(*in.LastLines, limit, in.Raw)
		out.Output, out.Cursor, out.ReturnedBytes = r.Output, s.Cursor(r.Cursor).String(), len(r.Output)
		out.StreamFailure = failureText(r.Failure)
		if ended, died, f := s.Ended(); ended && !died && out.StreamFailure == nil {
			out.StreamFailure = failureText(f)
		}
		return out, nil
	}
	spec := stream.CaptureSpec{MaxBytes: h.opts.ResultMax, Raw: in.Raw, From: rs.from}
	if !rs.hasCursor {
		spec.From, _ = s.Bounds()
	}
	if in.MaxBytes != nil {
		spec.MaxBytes = min(*in.MaxBytes, h.opts.ResultMax)
	}
	if in.MaxLines != nil {
		spec.MaxLines = *in.MaxLines
	}
	r := s.Capture(spec)
	out.Output = r.Output
	out.Cursor = s.Cursor(r.Cursor).String()
	out.RemainingBytes = r.Remaining
	out.MissedBytes = r.Missed
	out.ReturnedBytes = len(r.Output)
	out.StreamFailure = failureText(r.Failure)
	if ended, died, f := s.Ended(); ended && !died && out.StreamFailure == nil {
		out.StreamFailure = failureText(f)
	}
	return out, nil
}

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
