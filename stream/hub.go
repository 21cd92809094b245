// Package stream records every pane's output and answers questions about it.
//
// A Hub holds one PaneStream per pane: a bounded window of raw bytes with
// absolute offsets and a stream id, started when the pane is adopted and
// fed by appends. On top of it: the plain-text view (Plain), line-local
// pattern matching (Matcher), streaming waits woken by appends (Wait),
// forward paging (Capture), the echo ledger that keeps typed text from
// matching itself, and honest loss accounting (evicted bytes, tmux's
// %pause gaps, pane death, connection loss). It knows nothing of tmux (its
// protocol), MCP or JSON: bytes come in through Output, answers go out as Go
// values.
package stream

import (
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/oklog/ulid/v2"
	"github.com/tmuxmcp/tmuxmcp/cursor"
)

// DefaultRetain is the default number of bytes kept per pane.
const DefaultRetain = 1 << 20

// maxEndedStreams bounds how many finished recordings stay readable.
const maxEndedStreams = 32

// DefaultRetainTotal is the default bound on bytes retained across panes.
const DefaultRetainTotal = 256 << 20

// Hub holds the output streams of every pane tmuxmcp has seen.
type Hub struct {
	retain int
	total  int // bound on bytes retained across all streams (0: none)
	now    func() time.Time

	mu     sync.Mutex
	live   map[int]*PaneStream
	all    map[cursor.StreamID]*PaneStream
	ended  []*PaneStream // oldest first, for pruning
	closed bool
	lost   bool
	synced time.Time // when the newest applied listing was taken

	// retainedAll is the bytes retained by the streams in all, kept as
	// they change so the total bound costs nothing while it is not reached.
	retainedAll atomic.Int64
}

// NewHub returns a hub retaining retain bytes per pane.
func NewHub(retain int) *Hub {
	if retain <= 0 {
		retain = DefaultRetain
	}
	return &Hub{retain: retain, now: time.Now, live: map[int]*PaneStream{}, all: map[cursor.StreamID]*PaneStream{}}
}

// Retain returns the per-pane retention in bytes.
func (h *Hub) Retain() int { return h.retain }

// SetRetainTotal bounds the bytes retained across all panes: past it, the
// least recently written panes lose their oldest bytes first (reported as
// missedBytes to whoever reads them).
func (h *Hub) SetRetainTotal(n int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.total = n
}

// enforceTotal evicts from the least recently written streams until the
// bytes retained across all streams fit the total bound.
func (h *Hub) enforceTotal() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.total <= 0 || len(h.all)*h.retain <= h.total {
		return // cannot exceed the bound
	}
	type size struct {
		s    *PaneStream
		n    int64
		last time.Time
	}
	var sizes []size
	var sum int64
	for _, s := range h.all {
		n, last := s.retained()
		sizes = append(sizes, size{s, n, last})
		sum += n
	}
	if sum <= int64(h.total) {
		return
	}
	sort.Slice(sizes, func(i, j int) bool { return sizes[i].last.Before(sizes[j].last) })
	for _, z := range sizes {
		if sum <= int64(h.total) {
			break
		}
		cut := min(z.n, sum-int64(h.total))
		cut = z.s.evict(cut)
		h.retainedAll.Add(-cut)
		sum -= cut
	}
}

func (h *Hub) adoptLocked(pane int) *PaneStream {
	if s := h.live[pane]; s != nil {
		return s
	}
	s := newPaneStream(pane, cursor.StreamID(ulid.Make()), h.retain, h.now())
	if h.closed || h.lost {
		f := HubClosed
		if !h.closed {
			f = ConnectionLost
		}
		s.ended, s.failure = true, f
		return s
	}
	h.live[pane] = s
	h.all[s.id] = s
	return s
}

// Adopt starts recording pane (if not already) and returns its stream.
func (h *Hub) Adopt(pane int) *PaneStream {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.adoptLocked(pane)
}

// Live returns the pane's current stream, if it is being recorded.
func (h *Hub) Live(pane int) (*PaneStream, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s, ok := h.live[pane]
	return s, ok
}

// Stream returns the stream with id, live or recently ended.
func (h *Hub) Stream(id cursor.StreamID) (*PaneStream, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s, ok := h.all[id]
	return s, ok
}

// Output appends bytes to the pane's stream, adopting the pane if new.
// It is called from a tmux reader goroutine: it never blocks on readers.
func (h *Hub) Output(pane int, data []byte) {
	h.mu.Lock()
	s := h.adoptLocked(pane)
	total := int64(h.total)
	h.mu.Unlock()
	// Within the bound there is nothing to scan, whatever the number of panes.
	if n := h.retainedAll.Add(s.append(data, h.now())); total > 0 && n > total {
		h.enforceTotal()
	}
}

// Dropped records that tmux discarded some of the pane's output.
func (h *Hub) Dropped(pane int) {
	h.mu.Lock()
	s := h.adoptLocked(pane)
	h.mu.Unlock()
	s.dropped()
}

// Restart ends the pane's stream with failure and starts a new one.
func (h *Hub) Restart(pane int, failure Failure) *PaneStream {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s := h.live[pane]; s != nil {
		s.end(false, failure)
		h.retireLocked(s)
	}
	return h.adoptLocked(pane)
}

// PaneState is what a pane listing says about one pane.
type PaneState struct {
	Pane int
	Dead bool
}

// Sync reconciles the hub with a full pane listing taken at listedAt:
// listed panes are adopted, and streams of panes that are dead, or missing
// from the listing although adopted before it was taken, end as died.
func (h *Hub) Sync(panes []PaneState, listedAt time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if listedAt.Before(h.synced) {
		return // an older listing that arrived late
	}
	h.synced = listedAt
	seen := make(map[int]bool, len(panes))
	for _, p := range panes {
		seen[p.Pane] = true
		s := h.adoptLocked(p.Pane)
		if ended, died, _ := s.Ended(); ended && died && !p.Dead {
			// Respawned: the old recording stays readable, a new one starts.
			h.retireLocked(s)
			s = h.adoptLocked(p.Pane)
		}
		if p.Dead {
			s.end(true, "")
		}
	}
	for pane, s := range h.live {
		if !seen[pane] && s.adoptedBefore(listedAt) {
			s.end(true, "")
			h.retireLocked(s)
		}
	}
}

// Lost ends every stream: the connection to tmux is gone.
func (h *Hub) Lost() {
	h.endAll(ConnectionLost, func() { h.lost = true })
}

// Reconnected lets recording start again after Lost. The lost recordings
// are forgotten: their cursors then read as expired, never as positions
// in the new server's panes (whose ids start over).
func (h *Hub) Reconnected() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.lost = false
	for _, s := range h.all {
		if ended, _, f := s.Ended(); ended && f == ConnectionLost {
			h.forgetLocked(s)
		}
	}
	h.ended = slices.DeleteFunc(h.ended, func(s *PaneStream) bool {
		_, ok := h.all[s.id]
		return !ok
	})
}

// Close ends every stream with hub_closed.
func (h *Hub) Close() {
	h.endAll(HubClosed, func() { h.closed = true })
}

func (h *Hub) endAll(f Failure, set func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	set()
	for _, s := range h.live {
		s.end(false, f)
		h.retireLocked(s)
	}
}

// retireLocked moves an ended stream out of live, keeping it readable
// until maxEndedStreams newer ones have ended.
func (h *Hub) retireLocked(s *PaneStream) {
	if h.live[s.pane] == s {
		delete(h.live, s.pane)
	}
	h.ended = append(h.ended, s)
	for len(h.ended) > maxEndedStreams {
		h.forgetLocked(h.ended[0])
		h.ended[0] = nil
		h.ended = h.ended[1:]
	}
}

// forgetLocked drops an ended stream: its cursors read as expired from now
// on, and its bytes no longer count toward the total bound.
func (h *Hub) forgetLocked(s *PaneStream) {
	if _, ok := h.all[s.id]; ok {
		delete(h.all, s.id)
		h.retainedAll.Add(-s.release())
	}
}

// Recent returns the live recordings and the n that ended last (newest
// first): what the panes printed just before a server went away.
func (h *Hub) Recent(n int) []*PaneStream {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]*PaneStream, 0, len(h.live)+n)
	for _, s := range h.live {
		out = append(out, s)
	}
	for i := len(h.ended) - 1; i >= 0 && n > 0; i, n = i-1, n-1 {
		out = append(out, h.ended[i])
	}
	return out
}

// Panes returns the pane numbers being recorded, ascending.
func (h *Hub) Panes() []int {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]int, 0, len(h.live))
	for p := range h.live {
		out = append(out, p)
	}
	sort.Ints(out)
	return out
}
