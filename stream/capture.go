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
	var res CaptureResult
	pos := spec.From
	if start, _ := s.Bounds(); pos < start {
		res.Missed = start - pos
		pos = start
	}
	from := pos
	out := make([]byte, 0, min(spec.MaxBytes, 64<<10))
	lines := 0
	dec := s.plainAt(pos)
	readPos := pos // next byte to read; pos is the cursor (a clean point)
	var end int64
	var gaps []int64
	chunkSize := min(readChunk, max(4096, 2*spec.MaxBytes))
	var buf []byte
	for {
		c := s.read(readPos, chunkSize, buf)
		buf = c.data[:0]
		end = c.end
		gaps = append(gaps, c.gaps...)
		if c.from > readPos { // evicted while we read
			res.Missed += c.from - readPos
			readPos, pos = c.from, c.from
			dec = NewPlain(pos)
		}
		if len(c.data) == 0 {
			break
		}
		if spec.Raw {
			n, full := len(c.data), false
			if room := spec.MaxBytes - len(out); n > room {
				n, full = room, true
				// End the page on a character boundary when that still
				// returns something.
				for k := n; k > 0; k-- {
					if utf8.RuneStart(c.data[k]) {
						if len(out)+k > 0 {
							n = k
						}
						break
					}
				}
			}
			for i := 0; i < n; i++ {
				if c.data[i] == '\n' {
					lines++
					if spec.MaxLines > 0 && lines == spec.MaxLines {
						n, full = i+1, true
						break
					}
				}
			}
			out = appendWithoutGaps(out, c.data[:n], c.from, c.gaps)
			readPos += int64(n)
			pos = readPos
			if full {
				break
			}
			continue
		}
		stopAt := int64(-1)
		dec.Feed(c.data, func(text []byte, st, e int64) {
			if stopAt >= 0 {
				return
			}
			if len(out)+len(text) > spec.MaxBytes || (spec.MaxLines > 0 && lines >= spec.MaxLines) {
				stopAt = st
				return
			}
			out = append(out, text...)
			if text[0] == '\n' {
				lines++
			}
		})
		if stopAt >= 0 {
			pos = stopAt
			break
		}
		// Bytes that make no output (escapes) are consumed; anything still
		// pending (a partial rune, a CR, an unfinished sequence) is left for
		// the next page, which then decodes it whole.
		pos = dec.Clean()
		readPos = dec.Offset()
		if c.ended && readPos >= c.end && pos < readPos {
			// The recording is over: what is pending (a final CR, half a
			// character) will never be completed, so it is output now.
			var tailText []byte
			dec.Flush(func(text []byte, _, _ int64) { tailText = append(tailText, text...) })
			if len(out)+len(tailText) <= spec.MaxBytes {
				out = append(out, tailText...)
				pos = readPos
			}
			break
		}
	}
	for _, g := range gaps {
		if g >= from && g < pos {
			res.Failure = EventsDropped
		}
	}
	res.Output = string(out)
	res.Cursor = pos
	// Bytes after the cursor that are only a pending CR, half a character
	// or an unfinished sequence are not "remaining": reading again returns
	// nothing until the rest arrives.
	res.Remaining = max(0, end-max(pos, readPos))
	if spec.Raw {
		res.Remaining = max(0, end-pos)
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
