package tmux

import (
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"syscall"
)

// panePipe reads one pane's raw output from the socket tmux's pipe-pane
// writes it to, and hands it on in order. Its reader goroutine waits for
// data; drain reads what is there now from another goroutine (a barrier);
// each read and its delivery happen under mu, so bytes are handed on in the
// order tmux wrote them whoever reads them.
type panePipe struct {
	pane    int
	conn    *net.UnixConn
	raw     syscall.RawConn
	deliver func(pane int, data []byte)

	mu     sync.Mutex
	fd     int
	buf    []byte
	closed bool  // close was called
	ended  bool  // end of file or an error: tmux closed the pipe
	err    error // why it ended, if not a plain end of file
	done   chan struct{}
}

// pipeBuffer is the socket's receive buffer asked for: room for a burst, so
// tmux rarely holds bytes back while tmuxmcp is busy.
const pipeBuffer = 4 << 20

func newPanePipe(pane int, f *os.File, deliver func(int, []byte)) (*panePipe, error) {
	defer f.Close() // FileConn keeps its own copy of the descriptor
	c, err := net.FileConn(f)
	if err != nil {
		return nil, fmt.Errorf("pane %s output pipe: %w", PaneName(pane), err)
	}
	uc, ok := c.(*net.UnixConn)
	if !ok {
		_ = c.Close()
		return nil, fmt.Errorf("pane %s output pipe is not a unix socket", PaneName(pane))
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		_ = uc.Close()
		return nil, err
	}
	_ = uc.SetReadBuffer(pipeBuffer)
	p := &panePipe{pane: pane, conn: uc, raw: raw, deliver: deliver, buf: make([]byte, 64<<10), done: make(chan struct{})}
	_ = raw.Control(func(fd uintptr) { p.fd = int(fd) })
	return p, nil
}

// run reads until tmux closes the pipe or close is called.
func (p *panePipe) run() {
	defer close(p.done)
	for {
		more := false
		err := p.raw.Read(func(uintptr) bool {
			p.mu.Lock()
			defer p.mu.Unlock()
			n, again := p.readLocked()
			more = n > 0
			return !again
		})
		if err != nil || !more {
			return
		}
	}
}

// readLocked reads once and returns how many bytes it handed on; again
// says nothing was there yet.
func (p *panePipe) readLocked() (n int, again bool) {
	if p.closed || p.ended {
		return 0, false
	}
	for {
		n, err := syscall.Read(p.fd, p.buf)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EAGAIN):
			return 0, true
		case err != nil:
			p.ended, p.err = true, err
			return 0, false
		case n <= 0:
			p.ended = true
			return 0, false
		}
		p.deliver(p.pane, p.buf[:n])
		return n, false
	}
}

// drain hands on every byte the socket holds now, from the caller's
// goroutine, and returns how many.
func (p *panePipe) drain() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	total := 0
	for {
		n, _ := p.readLocked()
		if n == 0 {
			return total
		}
		total += n
	}
}

// close stops reading and closes the socket: tmux then ends the pane's pipe.
func (p *panePipe) close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	_ = p.conn.Close()
	<-p.done
}

// endedByTmux says tmux closed the pipe (the pane closed, or someone ran
// pipe-pane on it), as opposed to close.
func (p *panePipe) endedByTmux() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ended && !p.closed
}
