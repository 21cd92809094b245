package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/tmuxmcp/tmuxmcp/cursor"
	"github.com/tmuxmcp/tmuxmcp/stream"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// DefaultWaitTimeout applies when timeoutMs is omitted.
const DefaultWaitTimeout = 30 * time.Second

// WaitForTextRequest is what to wait for in a pane's output.
type WaitForTextRequest struct {
	On
	PaneID    string   `json:"paneId"`
	Patterns  []string `json:"patterns,omitempty"`
	Regex     bool     `json:"regex,omitempty"`
	Cursor    *string  `json:"cursor,omitempty"`
	MaxLines  *int     `json:"maxLines,omitempty"`
	TimeoutMs *int64   `json:"timeoutMs,omitempty"`
}

// Check checks the arguments, naming the field, the value and the fix.
func (in *WaitForTextRequest) Check() error {
	if _, err := parsePaneID("paneId", in.PaneID); err != nil {
		return err
	}
	if in.Patterns != nil && (len(in.Patterns) == 0 || len(in.Patterns) > stream.MaxPatterns) {
		return errorf("patterns: %d given, the limit is 1..%d: omit patterns to wait for any output, or merge alternatives into one regex with regex: true", len(in.Patterns), stream.MaxPatterns)
	}
	if in.MaxLines != nil && *in.MaxLines < 1 {
		return errorf("maxLines %d: must be at least 1; omit it for no line limit", *in.MaxLines)
	}
	if in.Cursor != nil {
		if _, err := cursor.Parse(*in.Cursor); err != nil {
			return errorf("cursor: %v. Omit cursor to watch from now", err)
		}
	}
	if in.TimeoutMs != nil && *in.TimeoutMs < 1 {
		return errorf("timeoutMs %d: must be at least 1; omit it for the default of %d", *in.TimeoutMs, DefaultWaitTimeout.Milliseconds())
	}
	return nil
}

// WaitForTextResult is why a wait ended, the output it saw and the
// cursor to continue from.
type WaitForTextResult struct {
	Outcome            string            `json:"outcome"`
	Matched            *string           `json:"matched"`
	PatternIndex       *int              `json:"patternIndex"`
	Groups             map[string]string `json:"groups"`
	MatchOffset        *int64            `json:"matchOffset"`
	Output             string            `json:"output"`
	Cursor             *string           `json:"cursor"`
	MissedBytes        int64             `json:"missedBytes"`
	OmittedBytes       int64             `json:"omittedBytes"`
	DroppedLines       int64             `json:"droppedLines"`
	ReturnedBytes      int               `json:"returnedBytes"`
	EffectiveTimeoutMs int64             `json:"effectiveTimeoutMs"`
	AlreadyOnScreen    bool              `json:"alreadyOnScreen"`
	Screen             string            `json:"screen"`
	ScreenClamped      bool              `json:"screenClamped"`
	PaneID             string            `json:"paneId"`
	StreamFailure      *string           `json:"streamFailure"`

	trace WaitTrace // of a match; not part of the result
}

// Trace is when a matched wait's output arrived and matched; nil for a
// wait that did not match.
func (o *WaitForTextResult) Trace() *WaitTrace {
	if o.trace.Matched.IsZero() {
		return nil
	}
	return &o.trace
}

// WaitForText waits until a pane prints one of the patterns (or
// anything), woken by the stream, never polling.
func (h *Host) WaitForText(ctx context.Context, c Caller, in *WaitForTextRequest) (*WaitForTextResult, error) {
	rs, err := h.startPoint(ctx, in.PaneID, in.Cursor)
	if err != nil {
		return nil, err
	}
	pane, s := rs.pane, rs.s
	var matcher *stream.Matcher
	if in.Patterns != nil {
		if matcher, err = stream.NewMatcher(in.Patterns, in.Regex, stream.DefaultRegexTimeout); err != nil {
			return nil, errorf("%v", err)
		}
	}
	timeoutMs := DefaultWaitTimeout.Milliseconds()
	if in.TimeoutMs != nil {
		timeoutMs = *in.TimeoutMs
	}
	// Clamp in milliseconds: a huge value would overflow a Duration.
	timeout := time.Duration(min(timeoutMs, h.opts.WaitMax.Milliseconds())) * time.Millisecond
	out := &WaitForTextResult{PaneID: paneName(pane), EffectiveTimeoutMs: timeout.Milliseconds()}

	spec := stream.WaitSpec{Matcher: matcher, Timeout: timeout, MaxBytes: h.opts.ResultMax, From: rs.from}
	switch {
	case rs.expired:
		out.Outcome = string(stream.NoStream)
		out.StreamFailure = failureText(stream.Expired)
		return out, nil
	case !rs.hasCursor:
		spec.From = s.End()
	}
	if in.MaxLines != nil {
		spec.MaxLines = *in.MaxLines
	}
	if c := caller(c); c.WantsProgress() {
		spec.Progress = func(seen int64, elapsed time.Duration) {
			c.Progress(ctx, float64(elapsed.Milliseconds()), float64(timeout.Milliseconds()), fmt.Sprintf("waiting on %s: %d bytes of output so far", paneName(pane), seen))
		}
	}
	release, err := h.claimWaiter(pane)
	if err != nil {
		return nil, err
	}
	r, err := s.Wait(ctx, spec)
	release()
	if err != nil {
		return nil, errorf("%v", err)
	}
	if r.Outcome == stream.Matched {
		out.trace = WaitTrace{Appended: s.LastAppend(), Matched: time.Now()}
	}
	out.Outcome = string(r.Outcome)
	out.Output = r.Output
	out.Cursor = cursorText(s, r.Cursor)
	out.MissedBytes, out.OmittedBytes, out.DroppedLines = r.Missed, r.OmittedBytes, r.DroppedLines
	out.StreamFailure = failureText(r.Failure)
	if r.Match != nil {
		out.Matched = ptr(r.Match.Text)
		out.PatternIndex = ptr(r.Match.Index)
		out.MatchOffset = ptr(r.MatchOffset)
		if len(r.Match.Groups) > 0 {
			out.Groups = r.Match.Groups
		}
	}
	if r.Outcome != stream.Matched && r.Outcome != stream.Cancelled && r.Outcome != stream.StreamLost {
		room := max(0, h.opts.ResultMax-len(out.Output))
		out.Screen, out.ScreenClamped = h.screenText(ctx, pane, room)
		if matcher != nil && out.Screen != "" && !r.EchoMatched {
			// Text typed through tmuxmcp (masked echo) is on screen but was
			// not printed before the wait: that is not "already on screen".
			out.AlreadyOnScreen = onScreen(matcher, out.Screen)
		}
	}
	out.ReturnedBytes = len(out.Output) + len(out.Screen)
	return out, nil
}

// Bounds on open waits.
const (
	maxWaitsPerPane = 256
	maxWaits        = 4096
)

// claimWaiter counts an open wait on pane, refusing one past the bounds.
func (h *Host) claimWaiter(pane int) (func(), error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.waits[pane] >= maxWaitsPerPane {
		return nil, errorf("%d waits are already open on pane %s (the limit): wait for some to end, or use one wait with several patterns", h.waits[pane], paneName(pane))
	}
	if h.waitsAll >= maxWaits {
		return nil, errorf("%d waits are already open on this server (the limit): wait for some to end", h.waitsAll)
	}
	h.waits[pane]++
	h.waitsAll++
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.waits[pane]--
		h.waitsAll--
		if h.waits[pane] == 0 {
			delete(h.waits, pane)
		}
	}, nil
}

// screenText captures the visible screen as plain text, trimmed, keeping
// the last room bytes. It returns "" when the pane cannot be captured.
func (h *Host) screenText(ctx context.Context, pane, room int) (string, bool) {
	if h.fleet.Err() != nil {
		return "", false
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	lines, err := h.fleet.CapturePane(ctx, pane, tmux.Capture{}, nil)
	if err != nil {
		return "", false
	}
	return clampTail(trimScreen(lines), room)
}

// trimScreen joins captured lines, dropping trailing spaces and blank lines.
func trimScreen(lines []string) string {
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

// clampTail keeps the last room bytes of s, starting at a line when it can.
func clampTail(s string, room int) (string, bool) {
	if len(s) <= room {
		return s, false
	}
	cut := len(s) - room
	if i := strings.IndexByte(s[cut:], '\n'); i >= 0 {
		cut += i + 1
	} else {
		for cut < len(s) && (s[cut]&0xC0) == 0x80 {
			cut++
		}
	}
	return s[cut:], true
}

func onScreen(m *stream.Matcher, screen string) bool {
	for _, line := range strings.Split(screen, "\n") {
		if _, ok, _ := m.Find([]byte(line), 0); ok {
			return true
		}
	}
	return false
}
