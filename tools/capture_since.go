package tools

import (
	"context"

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
