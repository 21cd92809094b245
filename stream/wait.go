package stream

import (
	"context"
	"sort"
	"time"
	"unicode/utf8"
)

// Outcome says why a wait ended (SPEC §3, wait_for_text outcome).
type Outcome string

// The outcomes of a wait.
const (
	Matched    Outcome = "matched"
	TimedOut   Outcome = "timed_out"
	PaneDied   Outcome = "pane_died"
	NoStream   Outcome = "no_stream"
	Cancelled  Outcome = "cancelled"
	OutputLost Outcome = "output_lost"
	StreamLost Outcome = "stream_lost"
)

// Outcomes returns every outcome of a wait, in the order docs list them.
func Outcomes() []Outcome {
	return []Outcome{Matched, TimedOut, PaneDied, NoStream, Cancelled, OutputLost, StreamLost}
}

// readChunk is how many raw bytes a reader takes per snapshot (and the
// most a wait's read buffer holds).
const readChunk = 64 << 10

// settle is how long a regex match that touches the end of an unfinished
// line waits for more bytes before it is accepted: `^300$` must not match
// the first three digits of "3000000" just because tmux split the line.
const settle = 30 * time.Millisecond

// settleFor is how long a held regex match waits for its line to go on.
func (s *PaneStream) settleFor() time.Duration {
	if s.settleTime > 0 {
		return s.settleTime
	}
	return settle
}

// WaitSpec describes one streaming wait.
type WaitSpec struct {
	From          int64    // stream offset to start after
	Matcher       *Matcher // nil: any output ends the wait
	Timeout       time.Duration
	MaxBytes      int // ceiling on returned output
	MaxLines      int // keep at most this many lines of output (0: no limit)
	Progress      func(seenBytes int64, elapsed time.Duration)
	ProgressEvery time.Duration
}

// WaitResult is what a wait found and why it ended.
type WaitResult struct {
	Outcome      Outcome
	Match        *Match // with Offset set; nil unless a pattern matched
	MatchOffset  int64  // stream offset where the match starts
	Output       string
	Cursor       int64 // after the match, or after the last byte read
	Missed       int64 // bytes evicted before they could be read
	OmittedBytes int64
	DroppedLines int64
	Failure      Failure
	// EchoMatched says a pattern matched text that was masked as echo of
	// typed input during the wait (so a match on screen is not from before).
	EchoMatched bool
}

// waiter is the state of one wait: its own decoder, the current line and
// the bounded output so far.
type waiter struct {
	s    *PaneStream
	spec WaitSpec
	dec  *Plain
	out  tail

	masks []span

	// The current line: its unmasked text with the raw ranges it came
	// from, and its full text (masked echo included) not yet moved to out.
	text        []byte
	runs        []textRun
	pending     []byte
	pendingEnds []pendingRec
	checked     int
	carry       int // leading bytes of text that are context from the previous piece
	dirty       bool
	anyOutput   bool

	match     *Match
	matchAt   int64
	matchEnd  int64
	tentative bool
	err       error

	lineMasked  bool // the current line holds masked echo
	echoMatched bool

	// g is set on a shared pass's assembler: lines are matched for the
	// group's members and finished text goes to the group's log.
	g *group
}

// pendingRec ends one decoded unit or run in pending: pending[:n] holds it
// and everything before; it came from raw bytes [start, end).
type pendingRec struct {
	n          int
	start, end int64
}

// textRun maps text[at:] (up to the next run) to raw bytes [start, end):
// byte for byte when the lengths agree (a run of ASCII, or any unit whose
// text is its raw bytes), else the whole range is one unit (a character
// decoded to U+FFFD, a line end from CR LF).
type textRun struct {
	at         int
	start, end int64
}

// rawRange returns the raw range the text byte at index k came from.
func (w *waiter) rawRange(k int) (start, end int64) {
	i := sort.Search(len(w.runs), func(i int) bool { return w.runs[i].at > k }) - 1
	r := w.runs[i]
	next := len(w.text)
	if i+1 < len(w.runs) {
		next = w.runs[i+1].at
	}
	if r.end-r.start == int64(next-r.at) {
		s := r.start + int64(k-r.at)
		return s, s + 1
	}
	return r.start, r.end
}

// maskAt looks at raw bytes [s, e) against the echo masks: cut is where,
// after s and up to e, the bytes change from masked echo to output or back
// (e when they do not), and masked says [s, cut) is echo.
func (w *waiter) maskAt(s, e int64) (cut int64, masked bool) {
	for len(w.masks) > 0 && w.masks[0].end <= s {
		w.masks = w.masks[1:]
	}
	if len(w.masks) == 0 {
		return e, false
	}
	if m := w.masks[0]; m.start <= s {
		return min(e, m.end), true
	} else {
		return min(e, m.start), false
	}
}

// Wait streams the pane's output from spec.From until a pattern matches, the
// timeout passes, ctx ends, or the stream ends. It sleeps on the stream's
// change channel between appends; it never polls.
func (s *PaneStream) Wait(ctx context.Context, spec WaitSpec) (WaitResult, error) {
	if spec.MaxBytes <= 0 {
		spec.MaxBytes = 64 << 10
	}
	s.waits.Add(1)
	defer s.waits.Add(-1)
	ws := waitState{
		w:     &waiter{s: s, spec: spec, dec: s.plainAt(spec.From), out: tail{limit: spec.MaxBytes}},
		start: time.Now(),
		pos:   spec.From,
	}
	ws.startTimers()
	defer ws.stopTimers()
	for {
		c := s.read(ws.pos, readChunk, ws.buf)
		ws.buf = c.data[:0]
		ws.skipEvicted(c.from)
		ws.w.addMasks(c.masks)
		data, gapAt := c.untilGap()
		if len(data) > 0 {
			if r, ended, err := ws.consume(data); ended {
				return r, err
			}
			if ws.pos < c.end && gapAt < 0 {
				continue // more retained bytes to read
			}
		}
		if r, ended := ws.endOfRead(&c, gapAt); ended {
			return r, nil
		}
		if g, m := s.share(ws.w, ws.pos, ws.missed); m != nil {
			if r, joined, err := m.wait(g, ctx.Done(), ws.timer.C, ws.progress, ws.start); joined {
				return r, err
			}
			continue // turned away: read on alone from pos
		}
		if r, ended := ws.sleep(c.changed, ctx.Done()); ended {
			return r, nil
		}
	}
}

// waitState is one Wait call between reads: the waiter that decodes and
// matches, how far it has read, what it missed, and the timers that can end
// it (the deadline, the progress ticker, the settle timer of a held match).
type waitState struct {
	w       *waiter
	start   time.Time
	pos     int64  // the next stream offset to read
	missed  int64  // bytes evicted before they could be read
	buf     []byte // grows to what the reads need, at most readChunk
	timer   *time.Timer
	ticker  *time.Ticker // nil without spec.Progress
	settleT *time.Timer  // made when a match is first held
	// progress and settleC are nil while they cannot fire.
	progress <-chan time.Time
	settleC  <-chan time.Time
}

// startTimers starts the wait's deadline and, if it reports progress, its
// progress ticker (every second unless spec.ProgressEvery says otherwise).
func (ws *waitState) startTimers() {
	spec := &ws.w.spec
	ws.timer = time.NewTimer(spec.Timeout)
	if spec.Progress != nil {
		every := spec.ProgressEvery
		if every <= 0 {
			every = time.Second
		}
		ws.ticker = time.NewTicker(every)
		ws.progress = ws.ticker.C
	}
}

// stopTimers stops every timer the wait started.
func (ws *waitState) stopTimers() {
	if ws.settleT != nil {
		ws.settleT.Stop()
	}
	if ws.ticker != nil {
		ws.ticker.Stop()
	}
	ws.timer.Stop()
}

// skipEvicted handles a read that began at from, after ws.pos because the
// bytes between were evicted: it counts them missed, ends the current line
// there and decodes afresh from from.
func (ws *waitState) skipEvicted(from int64) {
	if from > ws.pos {
		ws.missed += from - ws.pos
		ws.w.flushLine()
		ws.w.resetLine()
		ws.w.dec = NewPlain(from)
		ws.pos = from
	}
}

// untilGap returns the chunk's data up to its first gap byte, and the gap's
// offset (-1 when the data holds no gap).
func (c *chunk) untilGap() (data []byte, gapAt int64) {
	data, gapAt = c.data, -1
	if len(c.gaps) > 0 {
		gapAt = c.gaps[0]
		data = data[:gapAt-c.from]
	}
	return data, gapAt
}

// consume decodes and matches data (retained bytes from ws.pos) and
// advances ws.pos past them. ended says the wait is over, with r or err: a
// definite match, a matcher error, or any output when there is no pattern.
func (ws *waitState) consume(data []byte) (r WaitResult, ended bool, err error) {
	w := ws.w
	seen := w.feed(data)
	if w.match != nil && !w.tentative {
		return w.result(Matched, ws.missed, ""), true, nil
	}
	if w.err != nil {
		return WaitResult{}, true, w.err
	}
	if seen && w.spec.Matcher == nil {
		return w.result(Matched, ws.missed, ""), true, nil
	}
	ws.pos = w.dec.Offset()
	ws.settleHeldMatch()
	return WaitResult{}, false, nil
}

// settleHeldMatch arms the settle timer when a regex match is newly held at
// the end of an unfinished line, and disarms it when no match is held.
func (ws *waitState) settleHeldMatch() {
	switch {
	case ws.w.tentative && ws.settleC == nil:
		// Armed once per held match: a line that keeps growing
		// while it matches is accepted after settle all the same.
		if ws.settleT == nil {
			ws.settleT = time.NewTimer(ws.w.s.settleFor())
		} else {
			ws.settleT.Reset(ws.w.s.settleFor())
		}
		ws.settleC = ws.settleT.C
	case !ws.w.tentative && ws.settleC != nil:
		ws.settleT.Stop()
		ws.settleC = nil
	}
}

// endOfRead is called when everything readable in c has been consumed; it
// ends the wait at a gap (output lost) or at the end of a stream that has
// ended (pane died, stream lost). A held match stands whatever ends it.
func (ws *waitState) endOfRead(c *chunk, gapAt int64) (r WaitResult, ended bool) {
	w := ws.w
	if w.tentative {
		// A held match stands whatever ends the wait now.
		switch {
		case gapAt >= 0, c.ended && ws.pos >= c.end:
			w.tentative = false
			return w.result(Matched, ws.missed, ""), true
		}
	}
	if gapAt >= 0 {
		// The cursor resumes after the gap byte.
		return w.resultAt(OutputLost, ws.missed, EventsDropped, gapAt+1), true
	}
	if c.ended && ws.pos >= c.end {
		if c.died {
			return w.result(PaneDied, ws.missed, ""), true
		}
		return w.resultNoCursor(StreamLost, ws.missed, c.failure), true
	}
	return WaitResult{}, false
}

// sleep waits until the stream changes, the held match settles, the wait
// times out, done (the caller's context) closes, or progress is due. ended
// says the wait is over with r.
func (ws *waitState) sleep(changed <-chan struct{}, done <-chan struct{}) (r WaitResult, ended bool) {
	w := ws.w
	select {
	case <-changed:
	case <-ws.settleC:
		ws.settleC = nil
		if w.tentative {
			w.tentative = false
			return w.result(Matched, ws.missed, ""), true
		}
	case <-ws.timer.C:
		return ws.heldMatchOr(TimedOut), true
	case <-done:
		return ws.heldMatchOr(Cancelled), true
	case <-ws.progress:
		w.spec.Progress(ws.pos-w.spec.From, time.Since(ws.start))
	}
	return WaitResult{}, false
}

// heldMatchOr is the result of a wait that ends with outcome o, unless a
// match is held: a held match stands whatever ends the wait.
func (ws *waitState) heldMatchOr(o Outcome) WaitResult {
	if ws.w.tentative {
		ws.w.tentative = false
		return ws.w.result(Matched, ws.missed, "")
	}
	return ws.w.result(o, ws.missed, "")
}

func (w *waiter) addMasks(ms []span) {
	for _, m := range ms {
		if n := len(w.masks); n > 0 && w.masks[n-1].end >= m.end {
			continue
		}
		w.masks = append(w.masks, m)
	}
}

// feed decodes data and matches line by line. It stops at the first
// definite match; it reports whether any unmasked text was seen.
func (w *waiter) feed(data []byte) (seen bool) {
	stopped := false
	w.tentative = false
	w.match = nil
	var unit Emit
	unit = func(text []byte, s, e int64) {
		if stopped {
			return
		}
		cut, masked := w.maskAt(s, e)
		if cut < e && len(text) > 1 && text[0] < utf8.RuneSelf {
			// A run of ASCII: split it where echo masking starts or stops,
			// so each piece is all echo or all output.
			k := int(cut - s)
			unit(text[:k], s, cut)
			unit(text[k:], cut, e)
			return
		}
		m := masked && cut == e // a unit is echo only when all of it is
		w.pending = append(w.pending, text...)
		w.pendingEnds = append(w.pendingEnds, pendingRec{len(w.pending), s, e})
		if text[0] == '\n' {
			if w.evaluate(true) {
				stopped = true
				return
			}
			w.noteEchoMatch()
			w.flushLine()
			w.resetLine()
			return
		}
		if m {
			w.lineMasked = true
			return
		}
		seen = true
		w.anyOutput = true
		w.dirty = true
		w.runs = append(w.runs, textRun{len(w.text), s, e})
		w.text = append(w.text, text...)
		if len(w.text) >= maxLine {
			// An over-long line is matched in pieces. The piece is not the
			// line's end, so a match touching its end is not taken.
			if w.evaluate(false) {
				stopped = true
				return
			}
			w.continueLine()
		}
	}
	w.dec.FeedRuns(data, unit)
	if stopped {
		// Rewind the decoder to just after the match.
		w.dec = NewPlain(w.matchEnd)
		return seen
	}
	if w.dirty && w.matching() {
		w.evaluate(false)
	}
	return seen
}

// matching says lines are matched: the wait has patterns, or w is a
// shared pass.
func (w *waiter) matching() bool { return w.spec.Matcher != nil || w.g != nil }

// evaluate runs the matcher on the current line. complete says the line
// has ended (or hit the length cap).
func (w *waiter) evaluate(complete bool) bool {
	if !w.matching() || !w.dirty {
		return false
	}
	if w.g != nil {
		holding := w.g.evaluate(complete)
		w.checked, w.dirty = len(w.text), false
		if holding {
			w.checked, w.dirty = 0, true // evaluate again when the line grows or ends
		}
		return false
	}
	m, ok, err := w.spec.Matcher.FindAt(w.text, w.checked, w.carry)
	w.checked = len(w.text)
	w.dirty = false
	if err != nil {
		w.err = err
		return true
	}
	if !ok {
		w.match = nil
		w.tentative = false
		return false
	}
	mm := m
	w.match = &mm
	w.matchAt, _ = w.rawRange(m.Start)
	_, w.matchEnd = w.rawRange(m.End - 1)
	w.tentative = !complete && w.spec.Matcher.Regex() && m.End == len(w.text)
	if w.tentative {
		w.checked = 0
		w.dirty = true // evaluate again when the line grows
	}
	return !w.tentative
}

// noteEchoMatch records whether a pattern matches the current line with its
// masked echo included (checked only for lines that hold echo).
func (w *waiter) noteEchoMatch() {
	if !w.lineMasked || w.echoMatched || !w.matching() {
		return
	}
	line := w.pending
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
	}
	if w.g != nil {
		w.g.noteEcho(line)
		return
	}
	if _, ok, _ := w.spec.Matcher.Find(line, 0); ok {
		w.echoMatched = true
	}
}

func (w *waiter) flushLine() {
	if w.g != nil {
		w.g.log.write(w.pending)
	} else {
		w.out.write(w.pending)
	}
	w.pending = w.pending[:0]
	w.pendingEnds = w.pendingEnds[:0]
}

// continueLine moves a full piece of an over-long line to the output and
// keeps its last bytes as context for the next piece: literal matches may
// span the cut, and ^ does not match at a cut.
func (w *waiter) continueLine() {
	if w.g != nil {
		w.g.unholdAll()
	}
	w.noteEchoMatch()
	w.flushLine()
	keep := min(len(w.text), MaxPatternLength)
	for keep < len(w.text) && !utf8.RuneStart(w.text[len(w.text)-keep]) {
		keep++
	}
	cut := len(w.text) - keep
	first := sort.Search(len(w.runs), func(i int) bool { return w.runs[i].at > cut }) - 1
	kept := w.runs[:0]
	for i, r := range w.runs[first:] {
		if i == 0 && r.at < cut {
			// The cut is inside a byte-for-byte run (units are never cut:
			// the cut is at a character start).
			r.start += int64(cut - r.at)
			r.at = cut
		}
		r.at -= cut
		kept = append(kept, r)
	}
	w.runs = kept
	w.text = append(w.text[:0], w.text[cut:]...)
	w.carry, w.checked = len(w.text), len(w.text)
	w.match, w.tentative, w.dirty = nil, false, false
}

func (w *waiter) resetLine() {
	w.text, w.runs = w.text[:0], w.runs[:0]
	w.checked = 0
	w.carry = 0
	w.dirty = false
	w.lineMasked = false
}

func (w *waiter) result(o Outcome, missed int64, f Failure) WaitResult {
	cur := w.dec.Clean()
	if o == Matched && w.match != nil {
		// Output up to the end of the match; the cursor right after it.
		w.out.write(w.pending[:w.pendingUpTo(w.matchEnd)])
		w.pending = w.pending[:0]
		cur = w.matchEnd
	} else {
		w.noteEchoMatch()
		w.flushLine()
	}
	text, om, dl := w.out.result(w.spec.MaxLines)
	r := WaitResult{Outcome: o, Output: text, Cursor: cur, Missed: missed, OmittedBytes: om, DroppedLines: dl, Failure: f, EchoMatched: w.echoMatched}
	if o == Matched && w.match != nil {
		r.Match = w.match
		r.MatchOffset = w.matchAt
	}
	return r
}

func (w *waiter) resultAt(o Outcome, missed int64, f Failure, at int64) WaitResult {
	r := w.result(o, missed, f)
	r.Cursor = at
	return r
}

func (w *waiter) resultNoCursor(o Outcome, missed int64, f Failure) WaitResult {
	r := w.result(o, missed, f)
	r.Cursor = -1
	return r
}
