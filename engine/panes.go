package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tmuxmcp/tmuxmcp/cursor"
	"github.com/tmuxmcp/tmuxmcp/input"
	"github.com/tmuxmcp/tmuxmcp/stream"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// hubEvents feeds what the tmux fleet sees into the stream hub.
type hubEvents struct{ h *Host }

func (e hubEvents) PaneOutput(pane int, data []byte) { e.h.hub.Output(pane, data) }

func (e hubEvents) PaneRestarted(pane int) { e.h.hub.Restart(pane, stream.TopologyChanged) }

func (e hubEvents) PaneOutputDropped(pane int) { e.h.hub.Dropped(pane) }

func (e hubEvents) Disconnected(err error) {
	e.h.serverEnded(err) // before the recordings end: their last lines say why
	e.h.hub.Lost()
}

func (e hubEvents) Reconnected() {
	e.h.hub.Reconnected()
	if e.h.opts.Machine != nil {
		e.h.resumeNext.Store(true) // once the new recordings are listed
	}
}

func (e hubEvents) PanesListed(panes []tmux.PaneInfo, listedAt time.Time) {
	states := make([]stream.PaneState, len(panes))
	m := make(map[int]tmux.PaneInfo, len(panes))
	for i, p := range panes {
		states[i] = stream.PaneState{Pane: p.ID, Dead: p.Dead}
		m[p.ID] = p
	}
	e.h.mu.Lock()
	e.h.panes = m
	close(e.h.listed)
	e.h.listed = make(chan struct{})
	e.h.mu.Unlock()
	e.h.hub.Sync(states, listedAt)
	e.h.run.Track(panes)
	if e.h.resumeNext.CompareAndSwap(true, false) {
		// A remote host is back: its jobs that ran on while the link was
		// down are watched again, and those that ended meanwhile get the
		// status their job script recorded there.
		e.h.wg.Add(1)
		go func() {
			defer e.h.wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			e.h.run.Rewatch(ctx)
		}()
	}
	e.h.mu.Lock()
	subs := slices.Clone(e.h.onPanes)
	e.h.mu.Unlock()
	entries := paneEntries(panes)
	for _, f := range subs {
		f(entries)
	}
}

// lostError is the error for a call that met a connection to tmux just as
// it closed.
func lostError() error {
	return errorf("the connection to tmux closed during this call (the tmux server was killed or crashed): nothing was done. Call again in a moment: tmuxmcp reconnects by itself (and starts its own default server again)")
}

// connected returns a clear error when tmux is gone. A server tmuxmcp
// started itself (Config.RestartServer) it first starts again and
// reconnects (revive.go); one the user chose it never starts.
func (h *Host) connected() error {
	err := h.fleet.Err()
	if err == nil {
		return nil
	}
	if h.opts.Machine != nil {
		// A remote host: the link may be back with the server and its
		// commands still running there.
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		rerr := h.fleet.Reconnect(ctx)
		if rerr == nil {
			h.run.Rewatch(ctx)
		}
		cancel()
		if rerr == nil {
			return nil
		}
	}
	if h.opts.RestartServer != nil {
		rerr := h.restartServer(err)
		if rerr == nil || h.opts.Machine == nil {
			return rerr
		}
	}
	if h.opts.Machine != nil {
		return errorf("host %s is not reachable: %v. Nothing was done. Its tmux server and the commands in it go on over there; tmuxmcp reconnects by itself (with backoff) and every call on the host tries again: retry in a few seconds", h.opts.Host, err)
	}
	return h.gone(err)
}

// paneStream returns the pane number and its live stream, adopting a pane
// tmux has but tmuxmcp has not recorded yet. field names the argument.
func (h *Host) paneStream(ctx context.Context, field, id string) (int, *stream.PaneStream, error) {
	n, err := parsePaneID(field, id)
	if err != nil {
		return 0, nil, err
	}
	if s, ok := h.hub.Live(n); ok {
		return n, s, nil
	}
	if err := h.paneExists(ctx, field, n); err != nil {
		return 0, nil, err
	}
	return n, h.hub.Adopt(n), nil
}

// paneExists asks tmux whether pane n exists.
func (h *Host) paneExists(ctx context.Context, field string, n int) error {
	if err := h.connected(); err != nil {
		return err
	}
	_, err := h.fleet.Pane(ctx, n)
	return h.paneError(field, n, err)
}

// paneError turns a tmux error about pane n into a tool error.
func (h *Host) paneError(field string, n int, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, tmux.ErrClosed) {
		return lostError()
	}
	var ce *tmux.CommandError
	if errors.Is(err, tmux.ErrNoPane) || errors.As(err, &ce) && strings.Contains(ce.Message, "can't find pane") {
		return errorf("%s %q: no such pane on %s (it never existed or was closed%s). Call list_panes for the panes that exist; a closed pane's output stays readable with capture_since or wait_for_text from a cursor you already have from it", field, paneName(n), h.fleet.Target(), h.restartedSince())
	}
	if cerr := h.connected(); cerr != nil {
		return cerr
	}
	return fmt.Errorf("%s %s: %w", field, paneName(n), err)
}

// readStart is where a read starts: a stream and, when a cursor was given,
// the offset in it.
type readStart struct {
	pane      int
	s         *stream.PaneStream
	from      int64
	hasCursor bool
	expired   bool // the cursor's recording is gone; s is the pane's live one
}

// startPoint resolves paneId and an optional cursor. A cursor of a pane's
// earlier recording that is still retained (the pane died or was killed)
// reads that recording; an unknown recording is reported as expired.
func (h *Host) startPoint(ctx context.Context, paneID string, cursorText *string) (readStart, error) {
	pane, err := parsePaneID("paneId", paneID)
	if err != nil {
		return readStart{}, err
	}
	if cursorText != nil {
		c, err := cursor.Parse(*cursorText)
		if err != nil {
			return readStart{}, errorf("cursor: %v. Omit cursor to start from now (wait_for_text) or from the oldest retained output (capture_since)", err)
		}
		if s, ok := h.hub.Stream(c.Stream); ok {
			if s.Pane() != pane {
				return readStart{}, errorf("cursor %s belongs to pane %s, not %s: pass the paneId it was returned with", *cursorText, paneName(s.Pane()), paneName(pane))
			}
			if end := s.End(); c.Offset > end {
				return readStart{}, errorf("cursor %s points past the end of its stream (%d bytes recorded so far): pass a cursor exactly as a result returned it", *cursorText, end)
			}
			return readStart{pane: pane, s: s, from: c.Offset, hasCursor: true}, nil
		}
		_, live, err := h.paneStream(ctx, "paneId", paneID)
		if err != nil {
			return readStart{}, err
		}
		return readStart{pane: pane, s: live, hasCursor: true, expired: true}, nil
	}
	_, live, err := h.paneStream(ctx, "paneId", paneID)
	if err != nil {
		return readStart{}, err
	}
	return readStart{pane: pane, s: live}, nil
}

// cursorText renders a cursor, or nil when off < 0 (not resumable).
func cursorText(s *stream.PaneStream, off int64) *string {
	if off < 0 {
		return nil
	}
	t := s.Cursor(off).String()
	return &t
}

func failureText(f stream.Failure) *string {
	if f == "" {
		return nil
	}
	t := string(f)
	return &t
}

// recording names the pane's live recording ("" when none): per-pane
// state kept under it is not inherited by a later pane with the same id.
func (h *Host) recording(pane int) string {
	if s, ok := h.hub.Live(pane); ok {
		return s.ID().String()
	}
	return ""
}

// line is the pane's edit line as tmuxmcp typed it, in its live recording.
func (h *Host) line(pane int) input.Line { return h.lines.Get(pane, h.recording(pane)) }

// setLine records the pane's edit line in its live recording.
func (h *Host) setLine(pane int, l input.Line) { h.lines.Set(pane, h.recording(pane), l) }

// lineSubmitted records that the pane's line was submitted whole.
func (h *Host) lineSubmitted(pane int) { h.lines.Submitted(pane, h.recording(pane)) }

// hubStream finds a recording by its id's hex form.
func (h *Host) hubStream(hexID string) (*stream.PaneStream, bool) {
	c, err := cursor.Parse("ltxc1." + hexID + ".0")
	if err != nil {
		return nil, false
	}
	return h.hub.Stream(c.Stream)
}

// PaneEntry is a pane as a listing of the panes names it.
type PaneEntry struct {
	Pane  int    // its number: pane %N
	Place string // session:window.pane
	Dead  bool   // its program exited and tmux keeps it (remain-on-exit)
}

// OnPanes calls f with the panes tmux lists now, then with every later
// listing (after every change of the panes: one created, closed, moved).
// f must not block.
func (h *Host) OnPanes(f func([]PaneEntry)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.onPanes = append(h.onPanes, f)
	now := make([]tmux.PaneInfo, 0, len(h.panes))
	for _, p := range h.panes {
		now = append(now, p)
	}
	slices.SortFunc(now, func(a, b tmux.PaneInfo) int { return a.ID - b.ID })
	f(paneEntries(now))
}

func paneEntries(panes []tmux.PaneInfo) []PaneEntry {
	out := make([]PaneEntry, len(panes))
	for i, p := range panes {
		out[i] = PaneEntry{Pane: p.ID, Place: fmt.Sprintf("%s:%d.%d", p.SessionName, p.WindowIndex, p.PaneIndex), Dead: p.Dead}
	}
	return out
}

// Recording is pane paneId's live recording, adopting a pane tmux has but
// tmuxmcp has not recorded yet; field names the argument in errors.
func (h *Host) Recording(ctx context.Context, field, paneID string) (*stream.PaneStream, error) {
	_, s, err := h.paneStream(ctx, field, paneID)
	return s, err
}

// Recorded are the panes with a live recording.
func (h *Host) Recorded() []int { return h.hub.Panes() }
