package runner

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"

	"github.com/tmuxmcp/tmuxmcp/private"
	"github.com/tmuxmcp/tmuxmcp/stream"
)

// spool keeps every raw byte of a job's pane stream from base on, on disk,
// written as the stream ingests it: a watcher that falls behind the
// retained window (a flood of output on a busy machine) reads what it
// missed from here, so the job's output file never loses a byte tmux
// delivered.
type spool struct {
	mu   sync.Mutex
	f    *os.File
	w    *bufio.Writer // writes are batched: the ingest path makes few syscalls
	path string
	base int64 // stream offset of the file's first byte
	end  int64
	err  error // the first failed write: bytes from end on are not here
	gaps []int64
	// freed is the stream offset below which the file's blocks were given
	// back: the watcher has read that far.
	freed int64
}

// freeEvery is how far the watcher reads past the freed part before the
// spool gives the disk blocks behind it back: a job that prints for hours
// keeps a bounded spool.
const freeEvery = 16 << 20

// release gives back the disk blocks of the bytes before stream offset
// upTo, which the watcher has read (a hole punched in the file; its size
// and the offsets of what follows stay).
func (sp *spool) release(upTo int64) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.f == nil || upTo-max(sp.freed, sp.base) < freeEvery {
		return
	}
	upTo = min(upTo, sp.end)
	off := max(sp.freed, sp.base) - sp.base
	n := (upTo-sp.base)&^(1<<20-1) - off // whole MiB
	if n <= 0 {
		return
	}
	const punchHole, keepSize = 0x02, 0x01 // FALLOC_FL_PUNCH_HOLE, FALLOC_FL_KEEP_SIZE
	if err := syscall.Fallocate(int(sp.f.Fd()), punchHole|keepSize, off, n); err == nil {
		sp.freed = sp.base + off + n
	}
}

// newSpool creates the spool file (mode 0600), or truncates one an
// earlier tmuxmcp left; a symbolic link is not followed, and a file that
// is not the user's private file is refused.
func newSpool(path string) (*spool, error) {
	f, err := private.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_RDWR)
	if err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	return &spool{f: f, w: bufio.NewWriterSize(f, 256<<10), path: path, end: -1}, nil
}

// start sets the stream offset of the first byte to come, unless the tap
// already wrote it (its first write starts the spool: a tap may run
// before Tap's caller gets here).
func (sp *spool) start(at int64) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.end < 0 {
		sp.base, sp.end = at, at
	}
}

// jobSpool creates job id's spool and taps s with it: every byte s
// ingests from now on is on disk. It is made before the job's line is
// typed (Start), so the job's files are all there while it runs.
func (r *Runner) jobSpool(id string, s *stream.PaneStream) (*spool, func(), error) {
	sp, err := newSpool(r.jobs.Path(id, ".raw"))
	if err != nil {
		return nil, nil, err
	}
	from, untap := s.Tap(sp.write)
	sp.start(from)
	return sp, untap, nil
}

// write is the stream tap: data starts at stream offset at; gap says it
// is the byte that stands where tmux discarded output.
func (sp *spool) write(at int64, data []byte, gap bool) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if gap {
		sp.gaps = append(sp.gaps, at)
	}
	if sp.err != nil || sp.f == nil {
		return
	}
	if sp.end < 0 {
		sp.base, sp.end = at, at
	}
	if at != sp.end {
		sp.err = fmt.Errorf("spool: bytes at %d, expected %d", at, sp.end)
		return
	}
	if _, err := sp.w.Write(data); err != nil {
		sp.err = fmt.Errorf("spool: %w", err)
		return
	}
	sp.end += int64(len(data))
}

// gapsIn returns the gap offsets in [from, to) the spool saw.
func (sp *spool) gapsIn(from, to int64) []int64 {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return stream.OffsetsIn(sp.gaps, from, to)
}

// readAt returns up to limit bytes from stream offset from, when the spool
// has them (nil otherwise).
func (sp *spool) readAt(from int64, limit int, buf []byte) []byte {
	sp.mu.Lock()
	if sp.f != nil && sp.w.Buffered() > 0 && from >= sp.end-int64(sp.w.Buffered()) {
		if err := sp.w.Flush(); err != nil && sp.err == nil {
			sp.err = fmt.Errorf("spool: %w", err)
		}
	}
	base, lo, hi, f := sp.base, max(sp.base, sp.freed), sp.end-int64(sp.w.Buffered()), sp.f
	sp.mu.Unlock()
	if f == nil || from < lo || from >= hi {
		return nil
	}
	n := int(min(int64(limit), hi-from))
	if cap(buf) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	k, err := f.ReadAt(buf, from-base)
	if err != nil && err != io.EOF {
		return nil
	}
	return buf[:k]
}

// remove closes and deletes the spool.
func (sp *spool) remove() {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.f != nil {
		_ = sp.f.Close()
		sp.f = nil
		_ = os.Remove(sp.path)
	}
}
