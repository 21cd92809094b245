// Package stdio is tmuxmcp's MCP stdio transport: newline-delimited
// JSON-RPC 2.0 read from one stream and written to another, owning the
// framing so that a careless client cannot end the session.
//
// Every line gets an answer or reaches the server: a line that is not
// JSON is answered -32700, JSON that is not one JSON-RPC message (a
// string, a number, an array, an id that is an object, a wrong version)
// is answered -32600 with the line's id when it has one, and a line over
// the frame limit is discarded while it is read — never held whole — and
// answered -32600. When the input ends, the transport tells its owner
// (Ended) and keeps writing, so the calls already read are answered.
//
// Output is the writer for stdout: at shutdown GiveUp bounds how long an
// answer may wait on a client that stopped reading, and Quiet tells when
// the last answers have been written.
//
// It knows nothing of tmux or of the tools: it moves messages.
package stdio

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Transport is an mcp.Transport over newline-delimited JSON-RPC. It
// connects once.
type Transport struct {
	// Reader is the input (stdin); Writer the output (stdout).
	Reader io.Reader
	Writer io.Writer
	// MaxLine bounds a line in bytes (0: DefaultMaxLine).
	MaxLine int
	// Log receives a line per refused input line; nil logs nothing.
	Log *slog.Logger
	// Ended, when set, is called once when the input ends. The session
	// then stays open — calls already read are answered — until the
	// server's context ends; without it the session ends at once, as
	// with the SDK's own transport.
	Ended func()

	mu   sync.Mutex
	conn *conn
}

// Connect implements mcp.Transport.
func (t *Transport) Connect(context.Context) (mcp.Connection, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.conn != nil {
		return nil, errors.New("stdio: the transport is already connected")
	}
	log := t.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &conn{
		w:        t.Writer,
		log:      log,
		incoming: make(chan jsonrpc.Message),
		closed:   make(chan struct{}),
		eof:      make(chan struct{}),
		pending:  map[any]bool{},
		changed:  make(chan struct{}, 1),
	}
	t.conn = c
	limit := t.MaxLine
	if limit <= 0 {
		limit = DefaultMaxLine
	}
	go c.readLoop(newFrameReader(t.Reader, limit), limit, t.Ended)
	return c, nil
}

// WaitAnswered blocks until every call read so far has been answered, or
// ctx ends; it reports which. Use it after Ended, before closing.
func (t *Transport) WaitAnswered(ctx context.Context) bool {
	t.mu.Lock()
	c := t.conn
	t.mu.Unlock()
	if c == nil {
		return true
	}
	for {
		c.mu.Lock()
		n := len(c.pending)
		c.mu.Unlock()
		if n == 0 {
			return true
		}
		select {
		case <-c.changed:
		case <-ctx.Done():
			return false
		}
	}
}

// conn is the connection: one goroutine reads and judges lines, Read
// hands the server what passed, Write encodes answers.
type conn struct {
	w   io.Writer
	log *slog.Logger

	incoming chan jsonrpc.Message
	closed   chan struct{}
	eof      chan struct{} // closed when the input ended and the session should end
	once     sync.Once

	writeMu sync.Mutex // one line at a time

	mu      sync.Mutex
	pending map[any]bool  // ids of calls read and not yet answered
	changed chan struct{} // signalled when pending shrinks
}

func (c *conn) readLoop(fr *frameReader, max int, ended func()) {
	for {
		f, err := fr.next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				c.log.Warn("stdin read failed; no more requests will be read", "err", err)
			}
			if ended != nil {
				ended()
				return
			}
			close(c.eof)
			return
		}
		v := judge(f, max)
		switch {
		case v.reply != nil:
			c.log.Warn("answered a line on stdin that is not a JSON-RPC message with an error", "why", v.why, "bytes", f.length, "head", head(f.line))
			if err := c.writeLine(v.reply); err != nil {
				c.log.Warn("could not answer a bad line", "err", err)
			}
		case v.msg != nil:
			if r, ok := v.msg.(*jsonrpc.Request); ok && r.IsCall() {
				c.mu.Lock()
				c.pending[r.ID.Raw()] = true
				c.mu.Unlock()
			}
			select {
			case c.incoming <- v.msg:
			case <-c.closed:
				return
			}
		}
	}
}

// head is the start of a line, for the log.
func head(line []byte) string {
	const n = 80
	if len(line) > n {
		return string(line[:n]) + "…"
	}
	return string(line)
}

// Read implements mcp.Connection.
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-c.incoming:
		return m, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case <-c.eof:
		return nil, io.EOF
	}
}

// Write implements mcp.Connection.
func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	err = c.writeLine(b)
	if r, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		delete(c.pending, r.ID.Raw())
		c.mu.Unlock()
		select {
		case c.changed <- struct{}{}:
		default:
		}
	}
	return err
}

func (c *conn) writeLine(b []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	line := make([]byte, 0, len(b)+1)
	line = append(append(line, b...), '\n')
	_, err := c.w.Write(line)
	return err
}

// Close implements mcp.Connection. It does not close the input (stdin
// is not ours to close): the reading goroutine ends with the process.
func (c *conn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

// SessionID implements mcp.Connection: stdio has no session id.
func (c *conn) SessionID() string { return "" }
