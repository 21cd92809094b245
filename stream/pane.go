package stream

import (
	"context"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tmuxmcp/tmuxmcp/cursor"
)

// Failure says why a stream stopped being live, or that it lost data.
type Failure string

// The stream failures a result can report (SPEC §3, streamFailure).
const (
	ConnectionLost  Failure = "connection_lost"
	EventsDropped   Failure = "events_dropped"
	Expired         Failure = "expired"
	HubClosed       Failure = "hub_closed"
	TopologyChanged Failure = "topology_changed"
)

// Failures returns every failure of a stream, in the order docs list them.
func Failures() []Failure {
	return []Failure{ConnectionLost, EventsDropped, Expired, HubClosed, TopologyChanged}
}

type span struct{ start, end int64 }

// PaneStream is one recording of one pane's output: a retained byte window
// with absolute offsets, the places where tmux dropped output, the ranges
// that are echo of text tmuxmcp typed, and whether the recording has ended.
type PaneStream struct {
	pane int
	id   cursor.StreamID

	mu      sync.Mutex
	ring    ring
	gaps    []int64 // offsets of gap bytes: where tmux discarded output (%pause)
	masks   []span  // echo of typed text and input regions, ascending and disjoint
	ledger  echoLedger
	scanner Scanner // finds input regions as bytes arrive, or nil
	ended   bool
	died    bool    // ended because the pane died or closed
	failure Failure // why it ended, when not died
	changed chan struct{}
	born    time.Time
	last    time.Time // last append
	// keysAt and keysOffset: when keys sent by hand last submitted a line,
	// and the stream's end then.
	keysAt     time.Time
	keysOffset int64
	// inputAt is when input tmuxmcp sent (typed text, keys, a command)
	// was last recorded.
	inputAt time.Time
	// enteredAt and enteredOffset: when keys sent by hand last handed the
	// shell a line with Enter (zero after a C-c), and the stream's end
	// before they were sent.
	enteredAt     time.Time
	enteredOffset int64
	// discardedAt and discardedOffset: when keys sent by hand last
	// discarded the shell's line (C-c), and the stream's end before them.
	discardedAt     time.Time
	discardedOffset int64
	taps            map[int]func(at int64, data []byte, gap bool)
	tapSeq          int
	// times is the timing index (timing.go): when the retained bytes
	// arrived, bounded.
	times []sample

	// waits counts the waits open on the stream; group is the shared pass
	// literal waits join (share.go), shared how many joins it has had.
	waits   atomic.Int32
	group   *group
	shared  atomic.Int64
	noShare bool // tests: every wait reads for itself
	// settleTime replaces settle (tests: a held match must not be taken
	// just because the machine was slow to append the rest of its line).
	settleTime time.Duration
}

func newPaneStream(pane int, id cursor.StreamID, retain int, born time.Time) *PaneStream {
	s := &PaneStream{pane: pane, id: id, ring: ring{mem: &ringMem{}, limit: retain}, changed: make(chan struct{}), born: born}
	// The buffer is outside the Go heap: give it back when the stream is
	// unreachable (retired, and no reader or cursor lookup holds it).
	runtime.AddCleanup(s, (*ringMem).free, s.ring.mem)
	return s
}

func (s *PaneStream) adoptedBefore(t time.Time) bool { return s.born.Before(t) }

// Born is when this recording began.
func (s *PaneStream) Born() time.Time { return s.born }

// Pane returns the tmux pane number (the N of %N).
func (s *PaneStream) Pane() int { return s.pane }

// ID returns the stream id that cursors of this recording carry.
func (s *PaneStream) ID() cursor.StreamID { return s.id }

// Cursor returns a cursor at offset off of this stream.
func (s *PaneStream) Cursor(off int64) cursor.Cursor { return cursor.Cursor{Stream: s.id, Offset: off} }

// Bounds returns the oldest retained offset and the end of the stream.
func (s *PaneStream) Bounds() (start, end int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ring.start, s.ring.end
}

// End returns the offset after the last byte recorded.
func (s *PaneStream) End() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ring.end
}

// Ended reports whether the recording has stopped, and why: died is true
// when the pane died or closed, otherwise failure names the cause.
func (s *PaneStream) Ended() (ended, died bool, failure Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ended, s.died, s.failure
}

// wake tells every reader something changed; s.mu is held.
func (s *PaneStream) wake() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// append records data and returns how much the retained bytes grew.
func (s *PaneStream) append(data []byte, now time.Time) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended || len(data) == 0 {
		return 0
	}
	at := s.ring.end
	before := s.ring.end - s.ring.start
	s.ring.write(data)
	for _, fn := range s.taps {
		fn(at, data, false)
	}
	s.last = now
	if ns, n := int64(now.Sub(s.born)), len(s.times); n == 0 || ns-s.times[n-1].ns >= int64(sampleEvery) {
		s.noteTimeLocked(at, ns)
	}
	if s.scanner != nil {
		s.scanner.Scan(data, at, s.addMask)
	}
	if len(s.ledger.entries) > 0 {
		s.ledger.scan(data, at, now, s.addMask)
	}
	s.pruneLocked()
	s.wake()
	return s.ring.end - s.ring.start - before
}

// addMask adds [start, end) to the masked ranges, keeping them ascending
// and disjoint. Ranges arrive near the end of the stream, so the merge
// works back from the last one.
func (s *PaneStream) addMask(start, end int64) {
	if start >= end {
		return
	}
	// hi: the first range that starts after [start, end) ends (it stays
	// after the new one); lo: the first range that reaches it.
	hi := len(s.masks)
	for hi > 0 && s.masks[hi-1].start > end {
		hi--
	}
	lo := hi
	for lo > 0 && s.masks[lo-1].end >= start {
		lo--
		start, end = min(start, s.masks[lo].start), max(end, s.masks[lo].end)
	}
	// s.masks[lo:hi] overlap or touch [start, end): replace them with it.
	s.masks = slices.Replace(s.masks, lo, hi, span{start, end})
}

// Scanner finds ranges of a pane's output that waits must not match (what
// a line editor draws while a command line is edited), as bytes are
// appended: Scan gets each append's data and its offset, in order, and
// calls mask for each such range. The stream knows nothing of what the
// ranges mean.
type Scanner interface {
	Scan(data []byte, at int64, mask func(start, end int64))
}

// InputNoter is a Scanner that is told where tmuxmcp sends input to the
// pane (Typed: sent is true) and where input it announced was not sent
// after all (Untype: sent is false).
type InputNoter interface {
	Input(at int64, sent bool)
}

// SetScanner installs sc for the bytes appended from now on, after showing
// it the last retained bytes (up to 64 KiB) so it knows where it is.
func (s *PaneStream) SetScanner(sc Scanner) {
	s.mu.Lock()
	defer s.mu.Unlock()
	from := max(s.ring.start, s.ring.end-64<<10)
	if from < s.ring.end {
		data := s.ring.read(nil, from, s.ring.end)
		sc.Scan(data, from, s.addMask)
	}
	s.scanner = sc
	s.wake()
}

// HasScanner reports whether a scanner is installed.
func (s *PaneStream) HasScanner() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.scanner != nil
}

func (s *PaneStream) pruneLocked() {
	i := sort.Search(len(s.masks), func(i int) bool { return s.masks[i].end > s.ring.start })
	if i > 0 {
		s.masks = append(s.masks[:0], s.masks[i:]...)
	}
	j := sort.Search(len(s.gaps), func(j int) bool { return s.gaps[j] >= s.ring.start })
	if j > 0 {
		s.gaps = append(s.gaps[:0], s.gaps[j:]...)
	}
	if len(s.times) > 1 && s.times[1].off <= s.ring.start {
		s.pruneTimesLocked()
	}
}

// gapByte stands in the stream where tmux discarded output: one byte, so a
// cursor before the loss (<= its offset) and one after it (> its offset)
// differ. It decodes to nothing and is left out of raw captures.
const gapByte = 0

func (s *PaneStream) dropped() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	if n := len(s.gaps); n > 0 && s.gaps[n-1] == s.ring.end-1 {
		s.wake() // consecutive drops are one gap
		return
	}
	s.gaps = append(s.gaps, s.ring.end)
	for _, fn := range s.taps {
		fn(s.ring.end, []byte{gapByte}, true)
	}
	s.ring.write([]byte{gapByte})
	s.pruneLocked()
	s.wake()
}

func (s *PaneStream) end(died bool, failure Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	s.ended, s.died, s.failure = true, died, failure
	s.wake()
}

// Input is the handle of text recorded by Typed.
type Input struct {
	// At is the stream offset before the input: wait from it.
	At    int64
	entry *echoEntry
}

// Typed records text about to be typed into the pane and returns the stream
// offset before it: the pane's echo of the text, found from there on, is
// masked from matching while unsubmitted and for EchoWindow after.
func (s *PaneStream) Typed(text string, now time.Time) Input {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inputAt = now
	if n, ok := s.scanner.(InputNoter); ok {
		n.Input(s.ring.end, true)
	}
	return Input{At: s.ring.end, entry: s.ledger.add(text, s.ring.end)}
}

// Untype forgets the text of in (it was not sent after all). Text whose
// echo has begun to arrive is kept.
func (s *PaneStream) Untype(in Input) {
	if in.entry == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if n, ok := s.scanner.(InputNoter); ok {
		n.Input(in.At, false)
	}
	s.ledger.remove(in.entry)
}

// LastActivity is the later of the last append and the last input
// tmuxmcp sent: a pane is quiet only when both are old.
func (s *PaneStream) LastActivity() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inputAt.After(s.last) {
		return s.inputAt
	}
	return s.last
}

// LastInput is when tmuxmcp last sent the pane input (zero before any).
func (s *PaneStream) LastInput() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inputAt
}

// LastAppend is when bytes were last appended (zero before any).
func (s *PaneStream) LastAppend() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// Unsubmitted reports whether text tmuxmcp typed into the pane is still
// waiting for an Enter.
func (s *PaneStream) Unsubmitted() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.ledger.entries {
		if e.submitted.IsZero() {
			return true
		}
	}
	return false
}

// Submitted marks all typed text as submitted (Enter, C-c) at now.
func (s *PaneStream) Submitted(now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ledger.submit(now)
}

// Tap calls fn with every byte appended from now on (gap bytes included,
// with gap set),
// in order, on the ingest path — before the retained window can lose any —
// so a reader that falls behind can take what it missed from what fn
// kept. fn runs under the stream's lock: it must be quick, must not call
// the stream, and must not keep data. Tap returns the offset fn's bytes
// start at, and a function that removes the tap.
func (s *PaneStream) Tap(fn func(at int64, data []byte, gap bool)) (from int64, remove func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.taps == nil {
		s.taps = map[int]func(int64, []byte, bool){}
	}
	s.tapSeq++
	id := s.tapSeq
	s.taps[id] = fn
	return s.ring.end, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.taps, id)
	}
}

// GapsIn returns the offsets in [from, to) where tmux discarded output
// (flow control): each holds one gap byte, which decodes to nothing.
func (s *PaneStream) GapsIn(from, to int64) []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return OffsetsIn(s.gaps, from, to)
}

// OffsetsIn returns the offsets of the ascending list offs in [from, to),
// as a new slice.
func OffsetsIn(offs []int64, from, to int64) []int64 {
	lo, _ := slices.BinarySearch(offs, from)
	hi, _ := slices.BinarySearch(offs, to)
	if lo >= hi {
		return nil
	}
	return slices.Clone(offs[lo:hi])
}

// KeysSubmitted records that keys sent by hand (type_text, send_keys, not
// a command the runner typed) submitted a line at now: until the program
// reacts, the pane's state is not yet what it will be.
func (s *PaneStream) KeysSubmitted(now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keysAt, s.keysOffset = now, s.ring.end
}

// KeysEntered records that keys sent by hand ended a line at now, sent
// when the stream ended at offset at: with Enter (entered), or discarding
// it (C-c), which forgets the last Enter.
func (s *PaneStream) KeysEntered(now time.Time, at int64, entered bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if entered {
		s.enteredAt, s.enteredOffset = now, at
	} else {
		s.enteredAt, s.enteredOffset = time.Time{}, 0
		s.discardedAt, s.discardedOffset = now, at
	}
}

// LastKeysDiscarded is when keys sent by hand last ended a line without
// handing it to the shell with Enter (C-c), and the stream's end before
// them (zero time if never).
func (s *PaneStream) LastKeysDiscarded() (time.Time, int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.discardedAt, s.discardedOffset
}

// LastKeysEntered is when keys sent by hand last handed the shell a line
// with Enter, and the stream's end then (zero time if never, or if a C-c
// came after it).
func (s *PaneStream) LastKeysEntered() (time.Time, int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.enteredAt, s.enteredOffset
}

// LastKeysSubmit is when keys last submitted a line by hand, and the
// stream's end then (zero time if never).
func (s *PaneStream) LastKeysSubmit() (time.Time, int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keysAt, s.keysOffset
}

// chunk is a consistent snapshot of part of a stream for one reader.
type chunk struct {
	data    []byte
	from    int64 // offset of data[0]; > the requested offset when evicted
	end     int64 // stream end at snapshot time
	gaps    []int64
	masks   []span
	ended   bool
	died    bool
	failure Failure
	changed <-chan struct{}
}

// read snapshots up to limit bytes from offset from (clamped to what is
// retained), with the gap bytes and echo masks within the data.
func (s *PaneStream) read(from int64, limit int, buf []byte) chunk {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := chunk{end: s.ring.end, ended: s.ended, died: s.died, failure: s.failure, changed: s.changed}
	c.from = max(from, s.ring.start)
	to := min(s.ring.end, c.from+int64(limit))
	if to > c.from {
		c.data = s.ring.read(buf[:0], c.from, to)
	}
	for _, g := range s.gaps {
		if g >= c.from && g < to {
			c.gaps = append(c.gaps, g)
		}
	}
	for _, m := range s.masks {
		if m.end > c.from && m.start < to {
			c.masks = append(c.masks, m)
		}
	}
	return c
}

// RawChunk is a snapshot of recorded bytes for readers outside the package.
type RawChunk struct {
	Data    []byte
	From    int64 // offset of Data[0]: above the requested offset when bytes were evicted
	End     int64 // the stream's end at snapshot time
	Ended   bool  // recording stopped
	Died    bool  // ... because the pane died
	Changed <-chan struct{}
}

// ReadRaw returns up to limit recorded bytes from offset from, and a
// channel closed at the next change, to sleep on between reads.
func (s *PaneStream) ReadRaw(from int64, limit int, buf []byte) RawChunk {
	c := s.read(from, limit, buf)
	return RawChunk{Data: c.data, From: c.from, End: c.end, Ended: c.ended, Died: c.died, Changed: c.changed}
}

// plainAt returns a plain decoder for offset off that knows whether off is
// at a line start (the retained byte before it is a line feed).
func (s *PaneStream) plainAt(off int64) *Plain {
	s.mu.Lock()
	defer s.mu.Unlock()
	if off <= s.ring.start || off > s.ring.end {
		return NewPlain(off)
	}
	prev := s.ring.read(nil, off-1, off)
	return NewPlainAt(off, prev[0] == '\n')
}

// Quiet returns once no byte has been appended for d, or when ctx ends.
func (s *PaneStream) Quiet(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		s.mu.Lock()
		changed := s.changed
		s.mu.Unlock()
		select {
		case <-changed:
			t.Reset(d)
		case <-t.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// release drops every retained byte and gives the buffer back now, not at
// the next garbage collection (it is outside the Go heap, so nothing would
// hurry one). A reader still holding the stream sees the bytes as missed.
// It returns how many bytes were retained.
func (s *PaneStream) release() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.ring.end - s.ring.start
	s.ring.start = s.ring.end
	if s.ring.mem != nil {
		s.ring.mem.free()
	}
	s.times = nil
	s.pruneLocked()
	return n
}

func (s *PaneStream) retained() (int64, time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ring.end - s.ring.start, s.last
}

// evict drops the n oldest retained bytes (fewer if fewer are retained),
// gives memory back when the buffer is mostly empty, and returns how many
// it dropped.
func (s *PaneStream) evict(n int64) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	start := s.ring.start
	s.ring.start = min(s.ring.end, s.ring.start+n)
	s.ring.shrink()
	s.pruneLocked()
	return s.ring.start - start
}
