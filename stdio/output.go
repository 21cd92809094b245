package stdio

import (
	"io"
	"os"
	"sync"
	"syscall"
	"time"
)

// Output is the stdio transport's writer (the Transport's Writer). The
// SDK closes its connection only after every answer has been written, so
// an answer blocked on a stdout nobody reads would hang the process
// forever; GiveUp bounds that.
//
// A pipe only this process writes gets a non-blocking duplicate whose
// writes can be given a deadline; a pipe shared with stdin or stderr is
// left alone. A socket (possibly stdin too) is shut down for writing when
// the time is up.
type Output struct {
	// Written, when set before the first write, is called after each
	// write (the latency trace times answers with it).
	Written func()

	w      io.Writer
	pipe   *os.File // the non-blocking duplicate of a stdout pipe, or nil
	socket *os.File // stdout when it is a socket, or nil

	mu       sync.Mutex
	deadline time.Time // the earliest GiveUp so far
	timer    *time.Timer
	wrote    chan struct{} // signalled after each write, for Quiet
}

// NewOutput returns the writer for stdout (os.Stdout, or any writer,
// which then gets no deadline). Close it at exit.
func NewOutput(stdout io.Writer) *Output {
	o := &Output{w: stdout, wrote: make(chan struct{}, 1)}
	f, ok := stdout.(*os.File)
	if !ok {
		return o
	}
	fi, err := f.Stat()
	if err != nil {
		return o
	}
	switch {
	case fi.Mode()&os.ModeSocket != 0:
		o.socket = f
	case fi.Mode()&os.ModeNamedPipe != 0 && !sharedWith(fi, os.Stdin, os.Stderr):
		// A duplicate made non-blocking, so writes can have a deadline.
		// O_NONBLOCK belongs to the pipe end itself, which only this
		// process writes (stdin and stderr were checked to be other
		// files); Close puts it back.
		rc, err := f.SyscallConn()
		if err != nil {
			return o
		}
		dup := -1
		_ = rc.Control(func(fd uintptr) {
			if d, err := syscall.Dup(int(fd)); err == nil {
				if syscall.SetNonblock(d, true) == nil {
					dup = d
				} else {
					_ = syscall.Close(d)
				}
			}
		})
		if dup < 0 {
			return o
		}
		p := os.NewFile(uintptr(dup), "stdout")
		if p.SetWriteDeadline(time.Time{}) != nil {
			_ = syscall.SetNonblock(dup, false)
			_ = p.Close()
			return o
		}
		o.w, o.pipe = p, p
	}
	return o
}

// Write writes p to stdout.
func (o *Output) Write(p []byte) (int, error) {
	n, err := o.w.Write(p)
	if o.Written != nil {
		o.Written()
	}
	select {
	case o.wrote <- struct{}{}:
	default:
	}
	return n, err
}

// Quiet returns once nothing has been written for d, or after max.
func (o *Output) Quiet(d, max time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	limit := time.NewTimer(max)
	defer limit.Stop()
	for {
		select {
		case <-o.wrote:
			t.Reset(d)
		case <-t.C:
			return
		case <-limit.C:
			return
		}
	}
}

// GiveUp makes every write fail from d from now on (the earliest GiveUp
// wins): the process is shutting down, and answers not written by then
// are dropped rather than waited for.
func (o *Output) GiveUp(d time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	at := time.Now().Add(d)
	if !o.deadline.IsZero() && !at.Before(o.deadline) {
		return
	}
	o.deadline = at
	switch {
	case o.pipe != nil:
		_ = o.pipe.SetWriteDeadline(at)
	case o.socket != nil:
		if o.timer != nil {
			o.timer.Stop()
		}
		o.timer = time.AfterFunc(d, func() {
			if rc, err := o.socket.SyscallConn(); err == nil {
				_ = rc.Control(func(fd uintptr) { _ = syscall.Shutdown(int(fd), syscall.SHUT_WR) })
			}
		})
	}
}

// Close stops a pending GiveUp and puts a stdout pipe back to blocking
// writes. It does not close stdout. Call it once, at exit: the
// transport's end is not the process's end.
func (o *Output) Close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.timer != nil {
		o.timer.Stop()
	}
	if o.pipe != nil {
		if rc, err := o.pipe.SyscallConn(); err == nil {
			_ = rc.Control(func(fd uintptr) { _ = syscall.SetNonblock(int(fd), false) })
		}
		_ = o.pipe.Close()
	}
	return nil
}

// sharedWith reports whether any of files is the same file as fi (say,
// stderr redirected into the stdout pipe).
func sharedWith(fi os.FileInfo, files ...*os.File) bool {
	for _, f := range files {
		if g, err := f.Stat(); err == nil && os.SameFile(fi, g) {
			return true
		}
	}
	return false
}
