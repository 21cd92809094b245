package stream

// ring holds the most recent bytes of a stream, addressed by absolute
// offset. It grows on demand up to its limit, then overwrites the oldest.
type ring struct {
	buf        []byte
	limit      int
	start, end int64 // retained range [start, end)
}

func (r *ring) write(p []byte) {
	if len(p) >= r.limit {
		r.end += int64(len(p))
		p = p[len(p)-r.limit:]
		r.start = r.end - int64(r.limit)
		if len(r.buf) < r.limit {
			r.buf = make([]byte, r.limit)
		}
		r.copyIn(r.start, p)
		return
	}
	need := int(r.end-r.start) + len(p)
	if need > len(r.buf) && len(r.buf) < r.limit {
		r.grow(min(r.limit, max(need, 2*len(r.buf), 4096)))
	}
	r.copyIn(r.end, p)
	r.end += int64(len(p))
	if r.end-r.start > int64(len(r.buf)) {
		r.start = r.end - int64(len(r.buf))
	}
}

func (r *ring) grow(n int) {
	nb := make([]byte, n)
	old := r.buf
	r.buf = nb
	if len(old) > 0 {
		tmp := make([]byte, 0, r.end-r.start)
		tmp = r.appendRange(tmp, old, r.start, r.end)
		r.copyIn(r.start, tmp)
	}
}

func (r *ring) copyIn(at int64, p []byte) {
	n := int64(len(r.buf))
	for len(p) > 0 {
		i := at % n
		c := copy(r.buf[i:], p)
		p = p[c:]
		at += int64(c)
	}
}

// read appends the retained bytes in [from, to) to dst; the caller clamps
// the range to what is retained.
func (r *ring) read(dst []byte, from, to int64) []byte {
	return r.appendRange(dst, r.buf, from, to)
}

func (r *ring) appendRange(dst, buf []byte, from, to int64) []byte {
	n := int64(len(buf))
	for from < to {
		i := from % n
		j := min(n, i+(to-from))
		dst = append(dst, buf[i:j]...)
		from += j - i
	}
	return dst
}

// shrink reallocates the buffer to the retained bytes when they fill less
// than a quarter of it.
func (r *ring) shrink() {
	kept := int(r.end - r.start)
	if len(r.buf) <= 4096 || kept*4 > len(r.buf) {
		return
	}
	tmp := r.appendRange(make([]byte, 0, kept), r.buf, r.start, r.end)
	r.buf = make([]byte, max(4096, kept))
	r.copyIn(r.start, tmp)
}
