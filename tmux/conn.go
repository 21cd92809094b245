package tmux

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// connSink receives what a Conn's reader goroutine decodes. Its methods are
// called from that goroutine and must not block.
type connSink interface {
	output(c *Conn, pane int, data []byte)
	notify(c *Conn, n Notification)
}

// CommandError is the error a tmux command reported in its %error block.
type CommandError struct {
	Command string
	Message string
}

func (e *CommandError) Error() string {
	return fmt.Sprintf("tmux %s: %s", e.Command, e.Message)
}

// ErrClosed is returned for commands on a control connection that has ended.
var ErrClosed = errors.New("tmux control connection closed")

// errNotRun fails the later commands of a batch whose earlier command failed:
// tmux does not run the rest of a command sequence after an error.
var errNotRun = errors.New("not run: an earlier command on the same line failed")

type request struct {
	command   string
	done      chan struct{}
	lines     []string
	err       error
	followers int    // commands after this one on the same line
	mark      func() // run on the reader goroutine when the reply ends
}

// Conn is one control-mode client: a `tmux -u -C attach-session -t <session>`
// child process with its stdin and stdout as pipes.
type Conn struct {
	session string
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	stdout  io.ReadCloser
	sink    connSink
	log     *slog.Logger

	// Lines to write, in the order their requests were queued in pending;
	// one writer goroutine writes them, so no caller ever blocks on the
	// pipe: a wedged server cannot make Exec ignore its context or Close
	// hang.
	outq     [][]byte
	outReady chan struct{} // a token when outq is not empty
	outEnd   bool          // Close queued the final empty line

	mu         sync.Mutex
	pending    []*request
	closed     bool
	exitReason string

	ready chan struct{} // the initial flags=0 block ended
	done  chan struct{} // the reader saw EOF
	stop  sync.Once
}

// dial starts a control client attached to session (an id like "$0" or a
// name) and waits until tmux has answered the attach.
func dial(ctx context.Context, t Target, session string, sink connSink, log *slog.Logger) (*Conn, error) {
	var cmd *exec.Cmd
	if t.Via != nil {
		// The connection outlives ctx: a background context.
		cmd = t.Via.Command(context.Background(), append(append([]string{t.binary(), "-u"}, t.Args()...), "-C", "attach-session", "-t", session))
	} else {
		cmd = exec.Command(t.binary(), append(append([]string{"-u"}, t.Args()...), "-C", "attach-session", "-t", session)...)
		cmd.Env = cleanEnv(t.Env)
	}
	// Own process group, and SIGKILL if we die: a dead reader of tmux -C
	// otherwise leaves a ghost client that wedges kill-server on 3.3a.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("control client for session %s: %w", session, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("control client for session %s: %w", session, err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s -C attach -t %s: %w", t, session, err)
	}
	c := &Conn{
		session:  session,
		cmd:      cmd,
		stdin:    stdin,
		stdout:   stdout,
		sink:     sink,
		log:      log.With("session", session),
		ready:    make(chan struct{}),
		done:     make(chan struct{}),
		outReady: make(chan struct{}, 1),
	}
	initial := make(chan error, 1)
	go c.read(stdout, initial, &stderr)
	go c.write()
	select {
	case err := <-initial:
		if err != nil {
			c.Close()
			return nil, err
		}
		return c, nil
	case <-ctx.Done():
		c.Close()
		return nil, fmt.Errorf("attach control client to session %s: %w", session, ctx.Err())
	}
}

// Session returns the session target this client attached to.
func (c *Conn) Session() string { return c.session }

// Done is closed when the connection has ended.
func (c *Conn) Done() <-chan struct{} { return c.done }

// ExitReason is the reason tmux gave in %exit ("" for a plain detach).
func (c *Conn) ExitReason() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.exitReason
}

// Exec runs one tmux command on this connection and returns its output lines.
// A command that tmux rejects returns a *CommandError.
func (c *Conn) Exec(ctx context.Context, args ...string) ([]string, error) {
	reqs, err := c.send(ctx, nil, [][]string{args})
	if err != nil {
		return nil, err
	}
	return c.wait(ctx, reqs[0])
}

// ExecMark is Exec with mark run on the reader goroutine the moment the
// reply ends: every %output tmux wrote before the reply has been delivered by
// then, so mark can record a stream position that the reply reflects.
func (c *Conn) ExecMark(ctx context.Context, mark func(), args ...string) ([]string, error) {
	reqs, err := c.send(ctx, mark, [][]string{args})
	if err != nil {
		return nil, err
	}
	return c.wait(ctx, reqs[0])
}

// ExecBatch sends several commands on one line, so tmux runs them in one
// event-loop pass with nothing in between. If one fails, tmux skips the rest.
func (c *Conn) ExecBatch(ctx context.Context, cmds ...[]string) ([][]string, error) {
	return c.ExecBatchMark(ctx, nil, cmds...)
}

// ExecBatchMark is ExecBatch with mark run on the reader goroutine when
// the last reply ends (see ExecMark).
func (c *Conn) ExecBatchMark(ctx context.Context, mark func(), cmds ...[]string) ([][]string, error) {
	reqs, err := c.send(ctx, mark, cmds)
	if err != nil {
		return nil, err
	}
	out := make([][]string, len(reqs))
	for i, r := range reqs {
		lines, err := c.wait(ctx, r)
		if err != nil {
			return out, err
		}
		out[i] = lines
	}
	return out, nil
}

func (c *Conn) wait(ctx context.Context, r *request) ([]string, error) {
	select {
	case <-r.done:
		return r.lines, r.err
	case <-ctx.Done():
		// The request stays queued so later replies still correlate.
		return nil, fmt.Errorf("tmux %s: %w", r.command, ctx.Err())
	}
}

// commandName is what a tmux command name looks like; anything else (an
// empty string would detach the client) is refused before it is written.
func commandName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c == '-' && i > 0) {
			return false
		}
	}
	return true
}

func (c *Conn) send(ctx context.Context, mark func(), cmds [][]string) ([]*request, error) {
	if len(cmds) == 0 {
		return nil, errors.New("tmux: no command to send")
	}
	var line strings.Builder
	reqs := make([]*request, len(cmds))
	for i, args := range cmds {
		if len(args) == 0 || !commandName(args[0]) {
			return nil, fmt.Errorf("tmux: %q is not a command name", strings.Join(args, " "))
		}
		if i > 0 {
			line.WriteString(" ; ")
		}
		for j, a := range args {
			if j > 0 {
				line.WriteByte(' ')
			}
			if j == 0 {
				line.WriteString(a) // the command name, never user text
			} else {
				line.WriteString(Quote(a))
			}
		}
		reqs[i] = &request{command: args[0], done: make(chan struct{}), followers: len(cmds) - 1 - i}
	}
	reqs[len(reqs)-1].mark = mark
	line.WriteByte('\n')

	c.mu.Lock()
	if c.closed || c.outEnd {
		err := c.closedErr() // exitReason is written under mu
		c.mu.Unlock()
		return nil, err
	}
	c.pending = append(c.pending, reqs...)
	c.outq = append(c.outq, []byte(line.String()))
	c.mu.Unlock()
	select {
	case c.outReady <- struct{}{}:
	default:
	}
	return reqs, nil
}

// write is the connection's only writer.
func (c *Conn) write() {
	for {
		select {
		case <-c.outReady:
		case <-c.done:
			return
		}
		for {
			c.mu.Lock()
			if len(c.outq) == 0 {
				end := c.outEnd
				c.mu.Unlock()
				if end {
					_ = c.stdin.Close()
					return
				}
				break
			}
			line := c.outq[0]
			c.outq = c.outq[1:]
			c.mu.Unlock()
			if _, err := c.stdin.Write(line); err != nil {
				// A line that did not reach tmux leaves replies and
				// requests out of step: end the client instead.
				c.log.Warn("write to tmux control client failed", "err", err)
				c.kill()
				return
			}
		}
	}
}

func (c *Conn) kill() {
	if c.cmd.Process != nil {
		_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
	}
}

func (c *Conn) closedErr() error {
	if c.exitReason != "" {
		return fmt.Errorf("%w (tmux said: %s)", ErrClosed, c.exitReason)
	}
	return ErrClosed
}

// Close detaches the client: it writes an empty line and keeps draining
// stdout until tmux closes it, so no ghost client is left behind. If that
// takes over two seconds it kills the client's process group, and if the
// server still holds the pipe open (stopped or wedged) two seconds later,
// it closes the pipe itself. Close always returns within about 4 s.
func (c *Conn) Close() {
	c.stop.Do(func() {
		c.mu.Lock()
		if !c.outEnd {
			c.outq = append(c.outq, []byte("\n")) // an empty line detaches
			c.outEnd = true
		}
		c.mu.Unlock()
		select {
		case c.outReady <- struct{}{}:
		default:
		}
		select {
		case <-c.done:
			return
		case <-time.After(2 * time.Second):
		}
		c.kill()
		select {
		case <-c.done:
		case <-time.After(2 * time.Second):
			_ = c.stdout.Close()
			<-c.done
		}
	})
}

func (c *Conn) finish(r *request, failed bool, body []string) {
	if r.mark != nil {
		r.mark()
	}
	r.lines = body
	if failed {
		r.err = &CommandError{Command: r.command, Message: strings.Join(body, "; ")}
		if r.followers > 0 {
			c.mu.Lock()
			n := min(r.followers, len(c.pending))
			skipped := c.pending[:n]
			c.pending = c.pending[n:]
			c.mu.Unlock()
			for _, s := range skipped {
				s.err = errNotRun
				close(s.done)
			}
		}
	}
	close(r.done)
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
