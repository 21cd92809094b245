package stream

import (
	"bytes"
	"slices"
	"sync"
	"time"
	"unicode/utf8"
)

// One pass per pane: the waits on a pane that have caught up with its
// output share one reader. The pass decodes each byte once, splits lines
// once and looks for every member's literals in one scan of each line (a
// combined index, like Matcher's), so for literal waits the cost of output
// grows with the bytes and the waits that match, not with bytes × waits.
//
// A wait reads for itself until it is level with the pass: at the same
// offset, at a line start with nothing pending in either decoder. From
// there the pass would see exactly what the wait would, so the wait hands
// over (its output so far moves with it) and sleeps until the pass
// delivers its result, or until its own timeout or cancellation takes it
// out. Regex waits share the decoding and line splitting; each regex is
// then run on the line (held matches and settle work as for a lone wait).

// shareFrom is how many open waits a pane needs before a wait joins the
// shared pass: a lone wait reads for itself (one goroutine hop fewer on
// the latency path).
const shareFrom = 2

// group is a pane's shared pass and its members. mu guards everything
// (it is not the stream's lock: reads and appends never wait on a pass).
type group struct {
	mu      sync.Mutex
	s       *PaneStream
	running bool // the pass's goroutine is alive
	gen     int  // bumped when the pass is seeded anew
	wake    chan struct{}

	w       *waiter // the pass's line assembler (w.g == g)
	pos     int64   // raw offset read up to
	missed  int64   // bytes evicted before the pass read them, in all
	log     sharedLog
	members []*member
	lits    *litSet // nil: rebuild (with res) before the next scan
	res     *regexSet
	// joining are waits level at an offset the pass has not reached yet
	// (it is woken by the same append, and may be a moment behind): each
	// joins when the pass gets there level too, or goes on alone.
	joining []*member

	// Scratch for one evaluation.
	hits    []litHit
	touched []*member
	round   int
	cands   []*member
	gone    int // members done but still listed (drop removes them)
}

// regexSet is the regex members: those whose every regex has a required
// literal (Matcher.reLits) are run only on lines holding one of them,
// found for all of them in one scan; the others run on every line.
type regexSet struct {
	lits   *litSet // refs: the member, idx unused
	always []*member
}

func newRegexSet(members []*member) *regexSet {
	rs := &regexSet{}
	var filtered []*member
	for _, m := range members {
		if !m.re {
			continue
		}
		if slices.ContainsFunc(m.spec.Matcher.reLits, func(l []byte) bool { return l == nil }) {
			rs.always = append(rs.always, m)
		} else {
			filtered = append(filtered, m)
		}
	}
	rs.lits = buildLitSet(filtered, func(m *member) [][]byte { return m.spec.Matcher.reLits })
	return rs
}

// member is one wait in the pass.
type member struct {
	spec   WaitSpec
	prefix tail // the wait's own output before it joined
	// joinPlain and joinNL are the log's text bytes and line feeds when
	// the wait joined; joinMissed the pass's missed bytes then, missed the
	// wait's own before it joined.
	joinPlain, joinNL  int64
	joinMissed, missed int64
	echoMatched        bool
	done               chan WaitResult // buffered: the pass never blocks on it
	err                error           // set before a failed result is sent on done
	in                 bool            // still a member

	// A regex member's match that touches the end of an unfinished line
	// is held (as a lone wait holds it) until the line ends, settle
	// passes or the wait ends otherwise; tent tells the wait's goroutine
	// when holding starts (true) and stops (false), for its settle timer.
	re              bool
	held            bool
	heldMatch       Match
	heldAt, heldEnd int64
	tent            chan bool

	// While joining: the wait's own state, the offset it is level at, and
	// the verdict (true: joined; false: go on alone with w).
	w       *waiter
	at      int64
	verdict chan bool
	refused bool

	best      Match
	bestRound int
}

// sharedLog is the text the pass has finished, with running totals: it
// keeps at least the last keep bytes, enough for any member's output.
type sharedLog struct {
	buf     []byte
	start   int64 // text bytes before buf[0]
	nlStart int64 // line feeds before buf[0]
	nlEnd   int64 // line feeds in all
	keep    int
}

func (l *sharedLog) write(p []byte) {
	l.buf = append(l.buf, p...)
	if n := len(p); n > 0 && p[n-1] == '\n' && bytes.IndexByte(p[:n-1], '\n') < 0 {
		l.nlEnd++ // a whole line, the usual case
	} else {
		l.nlEnd += int64(bytes.Count(p, nl))
	}
	if len(l.buf) > 2*l.keep+4096 {
		cut := len(l.buf) - l.keep
		for cut < len(l.buf) && !utf8.RuneStart(l.buf[cut]) {
			cut++
		}
		l.start += int64(cut)
		l.nlStart += int64(bytes.Count(l.buf[:cut], nl))
		l.buf = append(l.buf[:0], l.buf[cut:]...)
	}
}

func (l *sharedLog) total() int64 { return l.start + int64(len(l.buf)) }

// litRef is one member's pattern in the combined set.
type litRef struct {
	m   *member
	idx int
}

type litHit struct{ lit, start int }

// litSet is every distinct literal of the members, with who asked for it.
type litSet struct {
	lits     [][]byte
	refs     [][]litRef
	maxLit   int
	byPrefix map[uint16][]int // as Matcher's: many literals, one pass
	short    []int
	first    [256]bool
	found    []bool
}

func newLitSet(members []*member) *litSet {
	return buildLitSet(members, func(m *member) [][]byte { return m.spec.Matcher.lits })
}

// buildLitSet indexes the literals lits gives for each member.
func buildLitSet(members []*member, lits func(*member) [][]byte) *litSet {
	ls := &litSet{}
	at := map[string]int{}
	for _, m := range members {
		for i, l := range lits(m) {
			k, ok := at[string(l)]
			if !ok {
				k = len(ls.lits)
				at[string(l)] = k
				ls.lits = append(ls.lits, l)
				ls.refs = append(ls.refs, nil)
				ls.maxLit = max(ls.maxLit, len(l))
			}
			ls.refs[k] = append(ls.refs[k], litRef{m, i})
		}
	}
	ls.found = make([]bool, len(ls.lits))
	if len(ls.lits) >= manyLiterals {
		ls.byPrefix, ls.short, ls.first = prefixIndex(ls.lits)
	}
	return ls
}

// firstHits appends, for each literal in line[from:], where it first starts.
func (ls *litSet) firstHits(line []byte, from int, hits []litHit) []litHit {
	if ls.byPrefix == nil {
		for i, l := range ls.lits {
			if j := bytes.Index(line[from:], l); j >= 0 {
				hits = append(hits, litHit{i, from + j})
			}
		}
		return hits
	}
	clear(ls.found)
	left := len(ls.lits)
	for i := from; i < len(line) && left > 0; i++ {
		if !ls.first[line[i]] {
			continue
		}
		for _, k := range ls.short {
			if !ls.found[k] && line[i] == ls.lits[k][0] {
				ls.found[k] = true
				left--
				hits = append(hits, litHit{k, i})
			}
		}
		if i+1 >= len(line) {
			continue
		}
		for _, k := range ls.byPrefix[uint16(line[i])<<8|uint16(line[i+1])] {
			if !ls.found[k] && bytes.HasPrefix(line[i:], ls.lits[k]) {
				ls.found[k] = true
				left--
				hits = append(hits, litHit{k, i})
			}
		}
	}
	return hits
}

// joinable says w could hand over to a shared pass at offset pos (the end
// of what it has read): a wait with patterns, level at pos.
func (w *waiter) joinable(pos int64) bool {
	return w.spec.Matcher != nil && w.level(pos)
}

// level says w has read to pos and stands at a line start there with
// nothing pending: what follows pos decodes the same for any reader that
// is level there too.
func (w *waiter) level(pos int64) bool {
	return !w.tentative && w.match == nil && len(w.text) == 0 && len(w.pending) == 0 &&
		w.dec.Offset() == pos && w.dec.Clean() == pos
}

// share hands w over to the pane's shared pass when the pass is level
// with it (or idle, when w seeds it). It returns nil when w must go on
// reading for itself.
func (s *PaneStream) share(w *waiter, pos, missed int64) (*group, *member) {
	if s.noShare || s.waits.Load() < shareFrom || !w.joinable(pos) {
		return nil, nil
	}
	s.mu.Lock()
	g := s.group
	if g == nil {
		g = &group{s: s}
		s.group = g
	}
	s.mu.Unlock()
	return g, g.join(w, pos, missed)
}

func (g *group) join(w *waiter, pos, missed int64) *member {
	g.mu.Lock()
	defer g.mu.Unlock()
	m := &member{spec: w.spec, missed: missed, done: make(chan WaitResult, 1), w: w, at: pos, verdict: make(chan bool, 1), re: w.spec.Matcher.Regex(), tent: make(chan bool, 1)}
	switch {
	case len(g.members) == 0 && len(g.joining) == 0:
		g.gen++
		g.w = &waiter{s: g.s, dec: NewPlainAt(pos, w.dec.lineStart), g: g}
		g.pos, g.missed, g.log = pos, 0, sharedLog{}
		g.admit(m)
		// Waits reading alone and asleep at this same place join now
		// rather than at the next quiet line end: wake them to try.
		g.s.mu.Lock()
		g.s.wake()
		g.s.mu.Unlock()
	case g.pos == pos:
		if !g.levelWith(m) {
			return nil
		}
		g.admit(m)
	case g.pos < pos:
		g.joining = append(g.joining, m) // the pass decides when it gets there
	default:
		return nil // the pass is ahead: w catches up and tries again
	}
	if g.wake == nil {
		g.wake = make(chan struct{})
	}
	if !g.running {
		g.running = true
		go g.run()
	}
	return m
}

// idle wakes the pass to stop when nobody is left in it.
func (g *group) idle() {
	if len(g.members) == 0 && len(g.joining) == 0 && g.wake != nil {
		close(g.wake)
		g.wake = nil
	}
}

// levelWith says the pass stands where m's wait does, in the same state.
func (g *group) levelWith(m *member) bool {
	return g.pos == m.at && g.w.level(m.at) && g.w.dec.lineStart == m.w.dec.lineStart
}

// admit makes m a member from the pass's present position: its output so
// far moves with it.
func (g *group) admit(m *member) {
	w := m.w
	m.prefix, m.echoMatched = w.out, w.echoMatched
	m.joinPlain, m.joinNL, m.joinMissed = g.log.total(), g.log.nlEnd, g.missed
	m.w, m.in = nil, true
	g.members = append(g.members, m)
	g.lits = nil
	// Keep a little more than any member's limit, so a member's cut never
	// falls in text the log has let go.
	g.log.keep = max(g.log.keep, m.spec.MaxBytes+utf8.UTFMax)
	g.s.shared.Add(1)
	m.verdict <- true
}

// verdicts gives a verdict to every joining wait the pass has reached or
// passed; it returns the nearest offset still ahead (-1: none).
func (g *group) verdicts() int64 {
	next := int64(-1)
	kept := g.joining[:0]
	for _, m := range g.joining {
		switch {
		case m.at > g.pos:
			kept = append(kept, m)
			if next < 0 || m.at < next {
				next = m.at
			}
		case g.levelWith(m):
			g.admit(m)
		default:
			g.refuse(m)
		}
	}
	clear(g.joining[len(kept):])
	g.joining = kept
	g.idle()
	return next
}

// refuse sends a joining wait back to read alone.
func (g *group) refuse(m *member) {
	m.refused = true
	m.verdict <- false
}

// refuseAll sends every joining wait back to read alone.
func (g *group) refuseAll() {
	for _, m := range g.joining {
		g.refuse(m)
	}
	clear(g.joining)
	g.joining = g.joining[:0]
	g.idle()
}

// run is the pass: it reads the pane's output as it arrives and feeds it
// through the shared line assembler until no member is left.
func (g *group) run() {
	var buf []byte
	for {
		g.mu.Lock()
		if len(g.members) == 0 && len(g.joining) == 0 {
			g.running = false
			g.mu.Unlock()
			return
		}
		pos, gen, wake := g.pos, g.gen, g.wake
		g.mu.Unlock()

		c := g.s.read(pos, readChunk, buf)
		buf = c.data[:0]

		g.mu.Lock()
		if g.gen != gen || g.pos != pos || len(g.members) == 0 && len(g.joining) == 0 {
			g.mu.Unlock()
			continue // seeded anew meanwhile, or emptied
		}
		w := g.w
		if c.from > pos {
			g.missed += c.from - pos
			g.unholdAll()
			w.flushLine()
			w.resetLine()
			w.dec = NewPlain(c.from)
			pos = c.from
			g.pos = pos
		}
		next := g.verdicts()
		w.addMasks(c.masks)
		data := c.data
		gapAt := int64(-1)
		if len(c.gaps) > 0 {
			gapAt = c.gaps[0]
			data = data[:gapAt-c.from]
		}
		if next >= 0 && next < c.from+int64(len(data)) {
			data = data[:next-c.from] // stop where a wait is joining
		}
		if len(data) > 0 {
			w.feed(data)
			pos = w.dec.Offset()
		}
		g.pos = pos
		g.verdicts()
		more := pos < c.end && (gapAt < 0 || pos < gapAt)
		switch {
		case more:
		case gapAt >= 0:
			g.endAll(OutputLost, EventsDropped, gapAt+1)
		case c.ended && pos >= c.end && c.died:
			g.endAll(PaneDied, "", w.dec.Clean())
		case c.ended && pos >= c.end:
			g.endAll(StreamLost, c.failure, -1)
		}
		g.mu.Unlock()
		if more {
			continue
		}
		select {
		case <-c.changed:
		case <-wake:
		}
	}
}

// evaluate looks for every member's patterns in the current line and
// delivers each member that matched, as the member's own wait would have:
// literals in one scan of the line from where earlier evaluations of it
// left off (each member gets its earliest-ending match), regexes one by
// one on the line the pass decoded once. It reports whether a regex
// match is held, so the line is evaluated again when it grows or ends.
func (g *group) evaluate(complete bool) (holding bool) {
	w := g.w
	if g.lits == nil {
		g.lits, g.res = newLitSet(g.members), newRegexSet(g.members)
	}
	var memo map[outKey]outVal
	ls := g.lits
	from := max(0, w.checked-ls.maxLit+1)
	g.hits = ls.firstHits(w.text, from, g.hits[:0])
	if len(g.hits) > 0 {
		g.round++
		g.touched = g.touched[:0]
		for _, h := range g.hits {
			for _, ref := range ls.refs[h.lit] {
				m := ref.m
				if m.bestRound != g.round {
					m.bestRound = g.round
					m.best = Match{Index: -1}
					g.touched = append(g.touched, m)
				}
				m.best.offer(ref.idx, h.start, h.start+len(ls.lits[h.lit]))
			}
		}
		memo = map[outKey]outVal{}
		for _, m := range g.touched {
			best := m.best
			best.Text = string(w.text[best.Start:best.End])
			g.matched(m, best, memo)
		}
	}
	// The regex members to run: those with a required literal in the
	// line (anywhere: a regex is run on the whole line), those without
	// one, and those holding a match.
	if len(g.res.lits.lits) == 0 && len(g.res.always) == 0 {
		g.drop()
		return false // no regex members
	}
	g.round++
	g.cands = g.cands[:0]
	g.hits = g.res.lits.firstHits(w.text, 0, g.hits[:0])
	for _, h := range g.hits {
		for _, ref := range g.res.lits.refs[h.lit] {
			if ref.m.bestRound != g.round {
				ref.m.bestRound = g.round
				g.cands = append(g.cands, ref.m)
			}
		}
	}
	g.cands = append(g.cands, g.res.always...)
	for _, m := range g.cands {
		if !m.in {
			continue
		}
		mt, ok, err := m.spec.Matcher.FindAt(w.text, 0, w.carry)
		switch {
		case err != nil:
			m.err = err
			m.in = false
			g.gone++
			m.done <- WaitResult{}
		case !ok:
			g.hold(m, false)
		case !complete && mt.End == len(w.text):
			// It may not be the match once the line goes on ("^300$" in
			// "3000000"): held until the line ends or settle passes.
			m.heldMatch = mt
			m.heldAt, _ = w.rawRange(mt.Start)
			_, m.heldEnd = w.rawRange(mt.End - 1)
			g.hold(m, true)
			holding = true
		default:
			g.hold(m, false)
			if memo == nil {
				memo = map[outKey]outVal{}
			}
			g.matched(m, mt, memo)
		}
	}
	g.drop()
	return holding
}

// matched delivers m's match mt in the current line.
func (g *group) matched(m *member, mt Match, memo map[outKey]outVal) {
	w := g.w
	matchAt, _ := w.rawRange(mt.Start)
	_, matchEnd := w.rawRange(mt.End - 1)
	r := WaitResult{Outcome: Matched, Match: &mt, MatchOffset: matchAt, Cursor: matchEnd}
	g.finish(m, &r, w.pending[:w.pendingUpTo(matchEnd)], memo)
}

// hold records whether m holds a match and tells its wait when that
// changes.
func (g *group) hold(m *member, held bool) {
	if m.held == held {
		return
	}
	m.held = held
	select {
	case <-m.tent:
	default:
	}
	m.tent <- held
}

// unholdAll drops every held match: the line was cut into pieces (an
// over-long line) or bytes were lost, as a lone wait drops its own.
func (g *group) unholdAll() {
	for _, m := range g.members {
		g.hold(m, false)
	}
}

// takeHeld delivers m's held match, if it still holds one.
func (g *group) takeHeld(m *member) bool {
	if !m.in || !m.held {
		return false
	}
	g.hold(m, false)
	w := g.w
	mt := m.heldMatch
	r := WaitResult{Outcome: Matched, Match: &mt, MatchOffset: m.heldAt, Cursor: m.heldEnd}
	g.finish(m, &r, w.pending[:w.pendingUpTo(m.heldEnd)], nil)
	return true
}

// settled is m's settle time passing: a match it still holds stands.
func (g *group) settled(m *member) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.takeHeld(m) {
		g.drop()
	}
}

// noteEcho marks the members whose literals are in a line that holds
// masked echo (the line's full text).
func (g *group) noteEcho(line []byte) {
	if g.lits == nil {
		g.lits, g.res = newLitSet(g.members), newRegexSet(g.members)
	}
	ls := g.lits
	g.hits = ls.firstHits(line, 0, g.hits[:0])
	for _, h := range g.hits {
		for _, ref := range ls.refs[h.lit] {
			ref.m.echoMatched = true
		}
	}
	for _, m := range g.members {
		if m.re && !m.echoMatched {
			if _, ok, _ := m.spec.Matcher.Find(line, 0); ok {
				m.echoMatched = true
			}
		}
	}
}

// endAll ends every member with outcome o (the stream ended or lost
// output): their output runs to the end of what the pass read.
func (g *group) endAll(o Outcome, f Failure, cur int64) {
	for _, m := range g.members {
		g.takeHeld(m) // a held match stands whatever ends the wait
	}
	g.drop()
	g.w.noteEchoMatch()
	g.w.flushLine()
	memo := map[outKey]outVal{}
	for _, m := range g.members {
		r := WaitResult{Outcome: o, Failure: f, Cursor: cur}
		g.finish(m, &r, nil, memo)
	}
	g.drop()
	g.refuseAll() // they meet the loss or the end themselves
}

// leave takes m out of the pass because its own wait ended (timeout,
// cancellation) and returns its result: its output runs to what the pass
// has read, the current line included. A result the pass delivered
// first wins.
func (g *group) leave(m *member, o Outcome) WaitResult {
	g.mu.Lock()
	defer g.mu.Unlock()
	if i := slices.Index(g.joining, m); i >= 0 || m.refused {
		// Not joined (yet): the wait's own state answers.
		if i >= 0 {
			g.joining = slices.Delete(g.joining, i, i+1)
			g.idle()
		}
		return m.w.result(o, m.missed, "")
	}
	if !m.in {
		return <-m.done
	}
	if g.takeHeld(m) {
		g.drop()
		return <-m.done
	}
	w := g.w
	if w.lineMasked && !m.echoMatched {
		line := w.pending
		if n := len(line); n > 0 && line[n-1] == '\n' {
			line = line[:n-1]
		}
		if _, ok, _ := m.spec.Matcher.Find(line, 0); ok {
			m.echoMatched = true
		}
	}
	r := WaitResult{Outcome: o, Cursor: w.dec.Clean()}
	g.finish(m, &r, w.pending, nil)
	g.drop()
	return <-m.done
}

// Waits returns how many waits are open on the stream, and how many of
// them are in its shared pass.
func (s *PaneStream) Waits() (open, shared int) {
	s.mu.Lock()
	g := s.group
	s.mu.Unlock()
	if g != nil {
		g.mu.Lock()
		shared = len(g.members)
		g.mu.Unlock()
	}
	return int(s.waits.Load()), shared
}

// position is how far the pass has read.
func (g *group) position() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.pos
}

type outKey struct {
	joinPlain       int64
	limit, maxLines int
	extra           int
	prefixed        bool
}

type outVal struct {
	text   string
	om, dl int64
}

// finish completes r with m's output, its missed bytes and echo flag,
// delivers it and marks m gone (drop removes it from the list). Members
// that joined together and ask for the same bounds share one output.
func (g *group) finish(m *member, r *WaitResult, extra []byte, memo map[outKey]outVal) {
	key := outKey{m.joinPlain, m.spec.MaxBytes, m.spec.MaxLines, len(extra), len(m.prefix.buf) > 0 || m.prefix.omittedBytes > 0}
	v, ok := memo[key]
	if !ok || key.prefixed {
		v.text, v.om, v.dl = g.output(m, extra)
		if memo != nil && !key.prefixed {
			memo[key] = v
		}
	}
	r.Output, r.OmittedBytes, r.DroppedLines = v.text, v.om, v.dl
	r.Missed = m.missed + g.missed - m.joinMissed
	r.EchoMatched = m.echoMatched
	m.in = false
	g.gone++
	m.done <- *r
}

// drop removes the members that are done; with none left the pass stops.
func (g *group) drop() {
	if g.gone == 0 {
		return
	}
	g.gone = 0
	kept := g.members[:0]
	for _, m := range g.members {
		if m.in {
			kept = append(kept, m)
		}
	}
	clear(g.members[len(kept):])
	if len(kept) != len(g.members) {
		g.lits = nil
	}
	g.members = kept
	g.idle()
}

// output is what m's own wait would return: its text before it joined,
// then the pass's text since, then extra (part of the current line), cut
// to its last MaxBytes and MaxLines as a tail would cut it.
func (g *group) output(m *member, extra []byte) (string, int64, int64) {
	l := &g.log
	p := m.prefix.buf
	lost := max(0, l.start-m.joinPlain) // text of the pass's the log let go
	seg := l.buf[max(0, m.joinPlain-l.start):]
	total := int64(len(p)) + lost + int64(len(seg)) + int64(len(extra))
	om, dl := m.prefix.omittedBytes, m.prefix.droppedLines
	limit := int64(m.spec.MaxBytes)
	var cut int64
	if total > limit {
		cut = total - limit
		if lost > 0 {
			cut = max(cut, int64(len(p))+lost) // (the log keeps more than limit: no-op)
		}
		at := func(i int64) byte {
			switch {
			case i < int64(len(p)):
				return p[i]
			case i < int64(len(p))+lost:
				return 0 // never read: the cut is past what was let go
			case i < int64(len(p))+lost+int64(len(seg)):
				return seg[i-int64(len(p))-lost]
			}
			return extra[i-int64(len(p))-lost-int64(len(seg))]
		}
		for cut < total && !utf8.RuneStart(at(cut)) {
			cut++
		}
	}
	om += cut
	kept := make([]byte, 0, total-cut)
	// The parts before the cut are counted; the parts after it kept.
	take := func(part []byte, base int64) {
		k := min(max(cut-base, 0), int64(len(part)))
		dl += int64(bytes.Count(part[:k], nl))
		kept = append(kept, part[k:]...)
	}
	take(p, 0)
	if lost > 0 {
		dl += l.nlStart - m.joinNL
	}
	take(seg, int64(len(p))+lost)
	take(extra, int64(len(p))+lost+int64(len(seg)))
	t := tail{buf: kept, limit: m.spec.MaxBytes, omittedBytes: om, droppedLines: dl}
	return t.result(m.spec.MaxLines)
}

// pendingUpTo is how many bytes of pending the output of a match ending
// at raw offset end takes (as result does).
func (w *waiter) pendingUpTo(end int64) int {
	n := 0
	for _, r := range w.pendingEnds {
		if r.end > end {
			if r.start < end && r.end-r.start == int64(r.n-n) {
				n += int(end - r.start) // the match ends inside a run
			}
			break
		}
		n = r.n
	}
	return n
}

// wait sleeps until the pass delivers m's result or m's own wait ends.
// joined is false when the pass turned m away: its wait goes on alone.
func (m *member) wait(g *group, done <-chan struct{}, timer <-chan time.Time, progress <-chan time.Time, start time.Time) (r WaitResult, joined bool, err error) {
	verdict := m.verdict
	var settleT *time.Timer
	var settleC <-chan time.Time
	defer func() {
		if settleT != nil {
			settleT.Stop()
		}
	}()
	for {
		select {
		case ok := <-verdict:
			if !ok {
				return WaitResult{}, false, nil
			}
			verdict = nil
		case r := <-m.done:
			return r, true, m.err
		case held := <-m.tent:
			// Armed once per held match, as a lone wait arms it.
			switch {
			case held && settleC == nil:
				if settleT == nil {
					settleT = time.NewTimer(g.s.settleFor())
				} else {
					settleT.Reset(g.s.settleFor())
				}
				settleC = settleT.C
			case !held && settleC != nil:
				settleT.Stop()
				settleC = nil
			}
		case <-settleC:
			settleC = nil
			g.settled(m)
		case <-timer:
			return g.leave(m, TimedOut), true, nil
		case <-done:
			return g.leave(m, Cancelled), true, nil
		case <-progress:
			m.spec.Progress(g.position()-m.spec.From, time.Since(start))
		}
	}
}
