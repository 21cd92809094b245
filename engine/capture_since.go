package engine

import (
	"context"

	"github.com/tmuxmcp/tmuxmcp/cursor"
	"github.com/tmuxmcp/tmuxmcp/stream"
)

// CaptureSinceRequest asks for a pane's output after a cursor.
type CaptureSinceRequest struct {
	On
	PaneID    string  `json:"paneId"`
	Cursor    *string `json:"cursor,omitempty"`
	MaxLines  *int    `json:"maxLines,omitempty"`
	MaxBytes  *int    `json:"maxBytes,omitempty"`
	LastLines *int    `json:"lastLines,omitempty"`
	Raw       bool    `json:"raw,omitempty"`
}

// MaxLastLines bounds lastLines.
const MaxLastLines = 100000

// MinCaptureBytes keeps every page able to hold at least one rune.
const MinCaptureBytes = 16

// Check checks the arguments, naming the field, the value and the fix.
func (in *CaptureSinceRequest) Check() error {
	if _, err := parsePaneID("paneId", in.PaneID); err != nil {
		return err
	}
	if in.MaxLines != nil && *in.MaxLines < 1 {
		return errorf("maxLines %d: must be at least 1; omit it for no line limit", *in.MaxLines)
	}
	if in.MaxBytes != nil && (*in.MaxBytes < MinCaptureBytes || *in.MaxBytes > DefaultResultMax) {
		return errorf("maxBytes %d: must be %d..%d; omit it for the server's result ceiling", *in.MaxBytes, MinCaptureBytes, DefaultResultMax)
	}
	if in.Cursor != nil {
		if _, err := cursor.Parse(*in.Cursor); err != nil {
			return errorf("cursor: %v. Omit cursor to start at the oldest retained output", err)
		}
	}
	if in.LastLines != nil {
		switch {
		case *in.LastLines < 1 || *in.LastLines > MaxLastLines:
			return errorf("lastLines %d: must be 1..%d (the last lines of what the pane printed); omit it to read forward from a cursor", *in.LastLines, MaxLastLines)
		case in.Cursor != nil:
			return errorf("lastLines reads the end of the pane's recording and takes no cursor: omit cursor (or omit lastLines to read what follows the cursor)")
		case in.MaxLines != nil:
			return errorf("maxLines limits a forward read: with lastLines, omit maxLines (maxBytes still bounds the bytes returned)")
		}
	}
	return nil
}

// CaptureSinceResult is output read from a pane's recording, with the
// cursor to continue from and what was lost or left out.
type CaptureSinceResult struct {
	Output         string  `json:"output"`
	Cursor         string  `json:"cursor"`
	RemainingBytes int64   `json:"remainingBytes"`
	MissedBytes    int64   `json:"missedBytes"`
	ReturnedBytes  int     `json:"returnedBytes"`
	StreamFailure  *string `json:"streamFailure"`
	PaneID         string  `json:"paneId"`
}

// CaptureSince reads what a pane printed after a cursor (or the oldest
// retained output), without waiting.
func (h *Host) CaptureSince(ctx context.Context, c Caller, in *CaptureSinceRequest) (*CaptureSinceResult, error) {
	rs, err := h.startPoint(ctx, in.PaneID, in.Cursor)
	if err != nil {
		return nil, err
	}
	s := rs.s
	out := &CaptureSinceResult{PaneID: paneName(rs.pane)}
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
