package tools

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/cursor"
	"github.com/tmuxmcp/tmuxmcp/stream"
)

// defaultWaitTimeout applies when timeoutMs is omitted.
const defaultWaitTimeout = 30 * time.Second

type waitIn struct {
	PaneID    string   `json:"paneId"`
	Patterns  []string `json:"patterns,omitempty"`
	Regex     bool     `json:"regex,omitempty"`
	Cursor    *string  `json:"cursor,omitempty"`
	MaxLines  *int     `json:"maxLines,omitempty"`
	TimeoutMs *int64   `json:"timeoutMs,omitempty"`
}

func (in *waitIn) check() error {
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
		return errorf("timeoutMs %d: must be at least 1; omit it for the default of %d", *in.TimeoutMs, defaultWaitTimeout.Milliseconds())
	}
	return nil
}

type waitOut struct {
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

	trace *WaitTrace // for Options.Trace; not part of the result
}

func (o *waitOut) traced() *WaitTrace { return o.trace }

func (h *Handlers) waitForTextTool() Tool {
	in := object(map[string]*jsonschema.Schema{
		"paneId":    paneID("Pane to watch, e.g. %1 (list_panes shows ids)."),
		"patterns":  {Type: "array", Items: &jsonschema.Schema{Type: "string", MinLength: ptr(1), MaxLength: ptr(stream.MaxPatternLength)}, MinItems: ptr(1), MaxItems: ptr(stream.MaxPatterns), Description: "Any one of these ends the wait; each matches within one line (a prompt without a newline counts). Omit to wait for any output at all."},
		"regex":     boolean("Treat patterns as regular expressions (regexp2/.NET syntax, ^ and $ anchor the line, named groups come back in groups; each evaluation is bounded by a match timeout). Default: literal substrings."),
		"cursor":    cursorSchema("Start after this cursor from an earlier result, so nothing printed in between is missed. Omit to watch only what is printed from now on."),
		"maxLines":  integer("Keep at most this many lines of output, from the end. Default: no line limit (the byte ceiling still applies).", 1, maxSafeInt),
		"timeoutMs": integer(fmt.Sprintf("How long to wait, in ms. Default %d; clamped to the server ceiling (%d), and the result reports the value used.", defaultWaitTimeout.Milliseconds(), h.opts.WaitMax.Milliseconds()), 1, maxSafeInt),
	}, "paneId")
	out := outputObject(map[string]*jsonschema.Schema{
		"outcome":            terms("Why the wait ended", stream.Outcomes(), outcomeMeans(), "Read this rather than guessing from output."),
		"matched":            nullable(str("The text that matched, or null.")),
		"patternIndex":       nullable(integer("Index in patterns of the pattern that matched, or null.", 0, stream.MaxPatterns-1)),
		"groups":             nullable(&jsonschema.Schema{Type: "object", AdditionalProperties: &jsonschema.Schema{Type: "string"}, Description: "Named regex groups of the match, or null."}),
		"matchOffset":        nullable(count("Stream byte offset where the match starts, or null.")),
		"output":             str("What the pane printed during the wait (plain text: escapes removed, CR LF as LF), up to the end of the match; the bounded tail when limits cut it."),
		"cursor":             nullable(cursorSchema("After the match, or after the last byte seen: pass it to the next wait_for_text or capture_since to continue without gaps. null: the stream cannot be resumed (wait again without cursor).")),
		"missedBytes":        count("Output lost before it could be read (evicted from the retained buffer): non-zero means output is incomplete."),
		"omittedBytes":       count("Output bytes cut from the front of output by maxLines or the result ceiling."),
		"droppedLines":       count("Output lines cut by maxLines or the result ceiling."),
		"returnedBytes":      count("UTF-8 bytes returned across output and screen."),
		"effectiveTimeoutMs": count("The timeout actually enforced, after clamping."),
		"alreadyOnScreen":    boolean("A pattern is on the pane's screen now but was printed before this wait began, so the wait could not match it. Read it with capture_pane instead of waiting again."),
		"screen":             str("What the pane shows now, after a miss; \"\" after a match."),
		"screenClamped":      boolean("The result ceiling shortened screen (its most recent lines are kept)."),
		"paneId":             paneID("The pane watched."),
		"streamFailure":      streamFailureSchema(),
	})
	tool := &mcp.Tool{
		Name:  "wait_for_text",
		Title: "Wait for text in a pane",
		Description: "Wait until a pane prints a pattern (or anything), streaming its output — never polling, never missing output that flashed by. " +
			"For output you did not cause by run_shell_command: a server coming up, a REPL's answer, a background job; start from an earlier result's cursor to cover what was printed in between. " +
			"Text tmuxmcp typed is not matched (its echo). Result: outcome (matched, timed_out, pane_died, output_lost, stream_lost, no_stream, cancelled — a timeout still returns output and the screen), output, cursor (continue from it), alreadyOnScreen (the pattern was printed before the wait began), missedBytes (non-zero: output was lost).",
		InputSchema:  in,
		OutputSchema: out,
		Annotations:  &mcp.ToolAnnotations{Title: "Wait for text in a pane", ReadOnlyHint: true, DestructiveHint: ptr(false), IdempotentHint: false, OpenWorldHint: ptr(false)},
	}
	return typed(h, tool, h.waitForText)
}

func (h *Handlers) waitForText(ctx context.Context, req *mcp.CallToolRequest, in *waitIn) (*waitOut, error) {
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
	timeoutMs := defaultWaitTimeout.Milliseconds()
	if in.TimeoutMs != nil {
		timeoutMs = *in.TimeoutMs
	}
	// Clamp in milliseconds: a huge value would overflow a Duration.
	timeout := time.Duration(min(timeoutMs, h.opts.WaitMax.Milliseconds())) * time.Millisecond
	out := &waitOut{PaneID: paneName(pane), EffectiveTimeoutMs: timeout.Milliseconds()}

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
	if token := req.Params.GetProgressToken(); token != nil {
		spec.Progress = func(seen int64, elapsed time.Duration) {
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
				ProgressToken: token,
				Progress:      float64(elapsed.Milliseconds()),
				Total:         float64(timeout.Milliseconds()),
				Message:       fmt.Sprintf("waiting on %s: %d bytes of output so far", paneName(pane), seen),
			})
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
	if h.opts.Trace != nil && r.Outcome == stream.Matched {
		out.trace = &WaitTrace{Appended: s.LastAppend(), Matched: time.Now()}
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
func (h *Handlers) claimWaiter(pane int) (func(), error) {
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
func (h *Handlers) screenText(ctx context.Context, pane, room int) (string, bool) {
	if h.fleet.Err() != nil {
		return "", false
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	lines, err := h.fleet.ExecPane(ctx, pane, nil, "capture-pane", "-p", "-J", "-t", paneName(pane))
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
