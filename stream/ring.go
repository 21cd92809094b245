package stream

import "syscall"

// ring holds the most recent bytes of a stream, addressed by absolute
// offset. It grows on demand up to its limit, then overwrites the oldest.
//
// Its buffer lives outside the Go heap (anonymous memory, see ringMem):
// retained output is most of tmuxmcp's memory, and on the heap it would
// let the collector grow the heap to twice its size before collecting.
type ring struct {
	mem        *ringMem
	limit      int
	start, end int64 // retained range [start, end)
}

// ringMem is a ring's buffer. It is separate from the ring so that a
// cleanup can release it once the stream that owns it is unreachable.
type ringMem struct {
	buf    []byte
	mapped bool // buf came from mmap and goes back with munmap
}

// replace swaps in a zeroed buffer of n bytes and returns the old one,
// which the caller releases once it has copied what it needs.
func (m *ringMem) replace(n int) (old []byte, oldMapped bool) {
	old, oldMapped = m.buf, m.mapped
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		b = make([]byte, n) // no mappings left: the heap still works
	}
	m.buf, m.mapped = b, err == nil
	return old, oldMapped
}

// unmap gives a buffer from replace back.
func unmap(b []byte, mapped bool) {
	if mapped && len(b) > 0 {
		_ = syscall.Munmap(b)
	}
}

// free releases the current buffer; the ring must not be used after.
func (m *ringMem) free() {
	unmap(m.buf, m.mapped)
	m.buf, m.mapped = nil, false
}

func (r *ring) buf() []byte {
	if r.mem == nil {
		return nil
	}
	return r.mem.buf
}

func (r *ring) write(p []byte) {
	if len(p) >= r.limit {
		r.end += int64(len(p))
		p = p[len(p)-r.limit:]
		r.start = r.end - int64(r.limit)
		if len(r.buf()) < r.limit {
			r.resize(r.limit, false)
		}
		r.copyIn(r.start, p)
		return
	}
	need := int(r.end-r.start) + len(p)
	if n := len(r.buf()); need > n && n < r.limit {
		r.resize(min(r.limit, max(need, 2*n, 4096)), true)
	}
	r.copyIn(r.end, p)
	r.end += int64(len(p))
	if r.end-r.start > int64(len(r.buf())) {
		r.start = r.end - int64(len(r.buf()))
	}
}

// resize moves to a buffer of n bytes, keeping the retained bytes when
// keep is set (they must fit).
func (r *ring) resize(n int, keep bool) {
	if r.mem == nil {
		r.mem = &ringMem{}
	}
	old, mapped := r.mem.replace(n)
	if keep && len(old) > 0 {
		r.each(old, r.start, r.end, func(at int64, p []byte) { r.copyIn(at, p) })
	}
	unmap(old, mapped)
}

func (r *ring) copyIn(at int64, p []byte) {
	buf := r.buf()
	n := int64(len(buf))
	for len(p) > 0 {
		i := at % n
		c := copy(buf[i:], p)
		p = p[c:]
		at += int64(c)
	}
}

// read appends the retained bytes in [from, to) to dst; the caller clamps
// the range to what is retained.
func (r *ring) read(dst []byte, from, to int64) []byte {
	r.each(r.buf(), from, to, func(_ int64, p []byte) { dst = append(dst, p...) })
	return dst
}

// each calls f with the contiguous pieces of buf holding [from, to).
func (r *ring) each(buf []byte, from, to int64, f func(at int64, p []byte)) {
	n := int64(len(buf))
	for from < to {
		i := from % n
		j := min(n, i+(to-from))
		f(from, buf[i:j])
		from += j - i
	}
}

// shrink moves to a smaller buffer when the retained bytes fill less than a
// quarter of it.
func (r *ring) shrink() {
	kept := int(r.end - r.start)
	if len(r.buf()) <= 4096 || kept*4 > len(r.buf()) {
		return
	}
	r.resize(max(4096, kept), true)
}
