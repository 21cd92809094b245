package stream

import "unicode/utf8"

// CaptureSpec describes one forward page of a stream.
type CaptureSpec struct {
	From     int64 // stream offset to start after
	MaxBytes int   // keep at most this many bytes of output
	MaxLines int   // keep at most this many lines (0: no limit)
	Raw      bool  // return bytes as recorded instead of the plain view
}

// CaptureResult is one page: the output that follows From, the cursor at
// its end, and what is left or was lost.
type CaptureResult struct {
	Output    string
	Cursor    int64 // end of what was returned: the next page starts here
	Remaining int64 // retained bytes after Cursor
	Missed    int64 // bytes evicted between From and the oldest retained byte
	Failure   Failure
}

// Capture returns the output after spec.From, keeping the first MaxBytes
// and MaxLines of it. Chained calls, each from the previous Cursor, return
// every byte exactly once. It never blocks.
func (s *PaneStream) Capture(spec CaptureSpec) CaptureResult {
	p := capturePage{spec: spec, pos: spec.From}
	if start, _ := s.Bounds(); p.pos < start {
		p.missed = start - p.pos
		p.pos = start
	}
	from := p.pos
	// The page's bytes and the gaps seen stay local, not fields of p: a
	// slice stored through a pointer escapes, and these must not.
	out := make([]byte, 0, min(spec.MaxBytes, 64<<10))
	var gaps []int64
	p.dec = s.plainAt(p.pos)
	p.readPos = p.pos
	chunkSize := min(readChunk, max(4096, 2*spec.MaxBytes))
	var buf []byte
	for {
		c := s.read(p.readPos, chunkSize, buf)
		buf = c.data[:0]
		p.end = c.end
		gaps = append(gaps, c.gaps...)
		if c.from > p.readPos { // evicted while we read
			p.missed += c.from - p.readPos
			p.readPos, p.pos = c.from, c.from
			p.dec = NewPlain(p.pos)
		}
		if len(c.data) == 0 {
			break
		}
		var done bool
		if spec.Raw {
			out, done = p.copyRaw(out, &c)
		} else {
			out, done = p.decode(out, &c)
		}
		if done {
			break
		}
	}
	return p.result(out, gaps, from)
}

// capturePage is one Capture call in progress: how far the page out (held
// by Capture) has got, the cursor at its end, and where the next read of the
// stream starts.
type capturePage struct {
	spec    CaptureSpec
	lines   int // line feeds in the page
	dec     *Plain
	pos     int64 // the cursor: a clean point, the end of the page
	readPos int64 // the next byte to read
	end     int64 // the stream's end at the last read
	missed  int64 // bytes evicted before they could be read
}

// copyRaw adds the recorded bytes of c, minus its gap bytes, to out, a raw
// page, and reports whether the page is full.
func (p *capturePage) copyRaw(out []byte, c *chunk) (_ []byte, full bool) {
	var n int
	n, p.lines, full = rawTake(c.data, len(out), p.spec.MaxBytes, p.lines, p.spec.MaxLines)
	out = appendWithoutGaps(out, c.data[:n], c.from, c.gaps)
	p.readPos += int64(n)
	p.pos = p.readPos
	return out, full
}

// rawTake says how much of data a raw page takes when it already holds held
// bytes of at most maxBytes and lines of at most maxLines (0: no limit)
// line feeds: n bytes, which bring it to linesAfter line feeds, and whether
// the page is then full.
func rawTake(data []byte, held, maxBytes, lines, maxLines int) (n, linesAfter int, full bool) {
	n = len(data)
	if room := maxBytes - held; n > room {
		n, full = room, true
		// End the page on a character boundary when that still
		// returns something.
		for k := n; k > 0; k-- {
			if utf8.RuneStart(data[k]) {
				if held+k > 0 {
					n = k
				}
				break
			}
		}
	}
	for i := 0; i < n; i++ {
		if data[i] == '\n' {
			lines++
			if maxLines > 0 && lines == maxLines {
				n, full = i+1, true
				break
			}
		}
	}
	return n, lines, full
}

// decode adds the plain text of c to out, a plain page, and reports whether
// the page is done: full, or at the end of a recording that is over.
func (p *capturePage) decode(out []byte, c *chunk) (_ []byte, done bool) {
	maxBytes, maxLines := p.spec.MaxBytes, p.spec.MaxLines
	stopAt := int64(-1)
	p.dec.Feed(c.data, func(text []byte, st, e int64) {
		if stopAt >= 0 {
			return
		}
		if len(out)+len(text) > maxBytes || (maxLines > 0 && p.lines >= maxLines) {
			stopAt = st
			return
		}
		out = append(out, text...)
		if text[0] == '\n' {
			p.lines++
		}
	})
	if stopAt >= 0 {
		p.pos = stopAt
		return out, true
	}
	// Bytes that make no output (escapes) are consumed; anything still
	// pending (a partial rune, a CR, an unfinished sequence) is left for
	// the next page, which then decodes it whole.
	p.pos = p.dec.Clean()
	p.readPos = p.dec.Offset()
	if c.ended && p.readPos >= c.end && p.pos < p.readPos {
		// The recording is over: what is pending (a final CR, half a
		// character) will never be completed, so it is output now.
		var tailText []byte
		p.dec.Flush(func(text []byte, _, _ int64) { tailText = append(tailText, text...) })
		if len(out)+len(tailText) <= maxBytes {
			out = append(out, tailText...)
			p.pos = p.readPos
		}
		return out, true
	}
	return out, false
}

// result is the finished page out of a capture that started at from and
// saw the gap bytes gaps.
func (p *capturePage) result(out []byte, gaps []int64, from int64) CaptureResult {
	res := CaptureResult{Missed: p.missed}
	for _, g := range gaps {
		if g >= from && g < p.pos {
			res.Failure = EventsDropped
		}
	}
	res.Output = string(out)
	res.Cursor = p.pos
	// Bytes after the cursor that are only a pending CR, half a character
	// or an unfinished sequence are not "remaining": reading again returns
	// nothing until the rest arrives.
	res.Remaining = max(0, p.end-max(p.pos, p.readPos))
	if p.spec.Raw {
		res.Remaining = max(0, p.end-p.pos)
	}
	return res
}

// appendWithoutGaps appends data (starting at offset at) minus its gap bytes.
func appendWithoutGaps(out, data []byte, at int64, gaps []int64) []byte {
	for _, g := range gaps {
		if i := g - at; i >= 0 && i < int64(len(data)) {
			out = append(out, data[:i]...)
			data, at = data[i+1:], g+1
		}
	}
	return append(out, data...)
}

// Tail returns the end of what is retained: its last maxLines lines (0: no
// line limit; a final line without a line feed counts as one) within
// maxBytes, and the cursor at the end of it, from which a wait or capture
// continues with what is printed next. It never blocks.
func (s *PaneStream) Tail(maxLines, maxBytes int, raw bool) CaptureResult {
	start, _ := s.Bounds()
	t := tail{limit: maxBytes}
	spec := CaptureSpec{From: start, MaxBytes: readChunk, Raw: raw}
	var res CaptureResult
	for {
		r := s.Capture(spec)
		t.write([]byte(r.Output))
		if r.Failure != "" {
			res.Failure = r.Failure
		}
		res.Cursor = r.Cursor
		if r.Remaining == 0 || r.Cursor <= spec.From {
			break
		}
		spec.From = r.Cursor
	}
	res.Output, _, _ = t.result(maxLines)
	return res
}
