package tmux

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
)

// maxCoalesce bounds how much output of one pane is handed on as one piece.
const maxCoalesce = 64 << 10

// read is the connection's only reader. It never blocks on consumers. When
// stdout ends it fails every pending request, reaps the child, reports a
// failed attach on initial if nothing was reported yet, and closes c.done.
func (c *Conn) read(stdout io.Reader, initial chan<- error, stderr *bytes.Buffer) {
	defer func() {
		c.mu.Lock()
		c.closed = true
		pending := c.pending
		c.pending = nil
		err := c.closedErr()
		c.mu.Unlock()
		for _, r := range pending {
			r.err = err
			close(r.done)
		}
		_ = c.cmd.Wait()
		select {
		case initial <- fmt.Errorf("attach control client to session %s: %s", c.session, firstNonEmpty(strings.TrimSpace(stderr.String()), c.ExitReason(), "tmux exited")):
		default:
		}
		close(c.done)
	}()
	r := &controlReader{c: c, initial: initial, outPane: -1}
	r.run(bufio.NewReaderSize(stdout, 64<<10))
}

// controlReader is the state of a Conn's reader goroutine between two lines
// of control-mode output: the %begin block it is inside (if any), the reply
// body collected so far, and the %output of one pane it is coalescing. It
// has one method per kind of line.
type controlReader struct {
	c       *Conn
	initial chan<- error // told once when the initial flags=0 block ends

	long []byte // the start of a line longer than the read buffer

	inBlock  bool
	blk      guard    // the %begin of the block we are in
	cur      *request // nil for a server-originated (flags=0) block
	body     []string
	gotReady bool // the initial block has ended and initial was told

	decoded []byte // held %output of outPane, already unescaped
	outPane int    // the pane whose decoded output is held, or -1
}

// run reads lines from br (tmux's stdout) until it ends, handing each
// complete line to line.
func (r *controlReader) run(br *bufio.Reader) {
	defer r.flush()
	for {
		if r.outPane >= 0 {
			if b, _ := br.Peek(br.Buffered()); coalesceEnds(len(r.decoded), b) {
				r.flush()
			}
		}
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			r.long = append(r.long, line...)
			continue
		}
		if r.long != nil {
			line = append(r.long, line...)
			r.long = nil
		}
		if err != nil {
			if len(line) > 0 {
				r.c.log.Debug("partial line at EOF", "len", len(line))
			}
			return
		}
		r.line(bytes.TrimSuffix(line, []byte("\n")))
	}
}

// coalesceEnds reports whether the held output of one pane (held bytes,
// decoded) must be handed on before the next line is read: when it has
// reached maxCoalesce, or when buffered (what is already read from tmux)
// holds no complete line, so the next line is still to come.
//
// Consecutive %output lines of one pane that are already buffered are
// handed on as one piece: one append and one wake-up of the pane's
// waits instead of one per line. Output is never held while the next
// line is still to come, so this adds no latency.
func coalesceEnds(held int, buffered []byte) bool {
	return held >= maxCoalesce || bytes.IndexByte(buffered, '\n') < 0
}

// flush hands the held output of outPane, if any, to the sink.
func (r *controlReader) flush() {
	if r.outPane >= 0 {
		r.c.sink.output(r.c, r.outPane, r.decoded)
		r.decoded, r.outPane = r.decoded[:0], -1
	}
}

// line handles one complete line, without its newline.
func (r *controlReader) line(line []byte) {
	if pane, payload, _, ok := parseOutput(line); ok && !r.inBlock {
		if pane != r.outPane {
			r.flush()
		}
		r.decoded = Unescape(r.decoded, payload)
		r.outPane = pane
		return
	}
	r.flush()
	if r.inBlock {
		r.blockLine(line)
		return
	}
	r.topLine(line)
}

// blockLine handles a line inside a %begin block: the guard that closes it,
// a notification tmux writes inside a reply, or a line of the reply's body.
func (r *controlReader) blockLine(line []byte) {
	if g, ok := parseGuard(line); ok && g.closes(r.blk) {
		r.endBlock(g)
		return
	}
	if r.cur != nil && strings.HasPrefix(r.cur.command, "refresh-client") {
		// 3.3a writes %pause/%continue inside refresh-client's block.
		if n, ok := parseNotification(line); ok && (n.Name == "pause" || n.Name == "continue") {
			r.c.sink.notify(r.c, n)
			return
		}
	}
	r.body = append(r.body, string(line))
}

// closes reports whether g is the %end or %error that closes the block
// begun by begin.
func (g guard) closes(begin guard) bool {
	return g.kind != "begin" && g.time == begin.time && g.number == begin.number
}

// endBlock handles the %end or %error g that closes the current block: it
// answers the block's request, or for a server-originated block reports the
// end of the initial attach on initial the first time.
func (r *controlReader) endBlock(g guard) {
	r.inBlock = false
	if r.cur == nil {
		if !r.gotReady {
			r.gotReady = true
			if g.kind == "error" {
				r.initial <- fmt.Errorf("attach control client to session %s: %s", r.c.session, strings.Join(r.body, "; "))
			} else {
				r.initial <- nil
			}
		}
		r.body = nil
		return
	}
	r.c.finish(r.cur, g.kind == "error", r.body)
	r.cur, r.body = nil, nil
}

// topLine handles a line outside any block: a %begin, a notification, or
// a stray line that is logged and dropped.
func (r *controlReader) topLine(line []byte) {
	if g, ok := parseGuard(line); ok && g.kind == "begin" {
		r.beginBlock(g)
		return
	}
	if n, ok := parseNotification(line); ok {
		if n.Name == "exit" {
			r.c.mu.Lock()
			r.c.exitReason = n.Args
			r.c.mu.Unlock()
		}
		r.c.sink.notify(r.c, n)
		return
	}
	if len(line) > 0 {
		r.c.log.Debug("stray line from tmux", "line", string(line))
	}
}

// beginBlock enters the block begun by g. A block with flags bit 1 set is
// the reply to our oldest pending request; any other is the server's own.
func (r *controlReader) beginBlock(g guard) {
	r.inBlock, r.blk, r.body = true, g, nil
	r.cur = nil
	if g.flags&1 == 1 {
		r.c.mu.Lock()
		if len(r.c.pending) > 0 {
			r.cur = r.c.pending[0]
			r.c.pending = r.c.pending[1:]
		}
		r.c.mu.Unlock()
	}
}
