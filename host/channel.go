package host

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"syscall"
)

// channel is one long-lived `sh` on the host, over the shared connection:
// small scripts (a probe of a pane's terminal, a job script written, a
// signal) run through it in about a millisecond instead of the tens of
// milliseconds a new ssh session costs. One script runs at a time.
type channel struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader
	gone  chan struct{}
}

// maxScriptOutput bounds what one script may print back.
const maxScriptOutput = 8 << 20

func (s *SSH) openChannel(ctx context.Context) (*channel, error) {
	cmd := s.Command(context.Background(), []string{"/bin/sh"})
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("host %s: start the remote shell: %w", s.spec.Name, err)
	}
	c := &channel{cmd: cmd, stdin: stdin, out: bufio.NewReaderSize(stdout, 64<<10), gone: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(c.gone) }()
	// The first answer proves the shell runs.
	if _, code, err := c.run(ctx, "true"); err != nil || code != 0 {
		c.close()
		if msg := stderr.String(); msg != "" {
			return nil, s.sshError(msg, nil)
		}
		return nil, fmt.Errorf("host %s: the remote shell did not answer: %v", s.spec.Name, err)
	}
	return c, nil
}

// run runs script in a subshell (its exit, cd and variables stay there,
// its stdin is /dev/null, its stderr joins stdout) and returns what it
// printed and its exit status. A context that ends mid-script costs the
// channel: the caller closes it.
func (c *channel) run(ctx context.Context, script string) ([]byte, int, error) {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	mark := "tmuxmcp-end-" + hex.EncodeToString(b)
	req := "(\n" + script + "\n) </dev/null 2>&1; printf '\\n%s %s\\n' " + mark + " \"$?\"\n"
	type answer struct {
		out  []byte
		code int
		err  error
	}
	done := make(chan answer, 1)
	go func() {
		if _, err := io.WriteString(c.stdin, req); err != nil {
			done <- answer{err: errChannelGone}
			return
		}
		var buf bytes.Buffer
		tail := []byte("\n" + mark + " ")
		for {
			start := buf.Len() // where this line starts
			line, err := c.out.ReadSlice('\n')
			buf.Write(line)
			if err == bufio.ErrBufferFull {
				if buf.Len() > maxScriptOutput {
					done <- answer{err: fmt.Errorf("remote script printed over %d bytes", maxScriptOutput)}
					return
				}
				continue
			}
			if err != nil {
				done <- answer{err: errChannelGone}
				return
			}
			// The end line is "\n<mark> <status>\n": only the line just
			// read can end it (no search through all the output).
			if i := start - 1; i >= 0 && bytes.HasPrefix(buf.Bytes()[i:], tail) {
				code, err := strconv.Atoi(string(bytes.TrimSpace(buf.Bytes()[i+len(tail):])))
				if err != nil {
					done <- answer{err: fmt.Errorf("remote shell: bad status line %q", buf.Bytes()[i:])}
					return
				}
				done <- answer{out: bytes.Clone(buf.Bytes()[:i]), code: code}
				return
			}
			if buf.Len() > maxScriptOutput {
				done <- answer{err: fmt.Errorf("remote script printed over %d bytes", maxScriptOutput)}
				return
			}
		}
	}()
	select {
	case a := <-done:
		return a.out, a.code, a.err
	case <-ctx.Done():
		return nil, 0, ctx.Err()
	case <-c.gone:
		return nil, 0, errChannelGone
	}
}

func (c *channel) close() {
	_ = c.stdin.Close()
	if c.cmd.Process != nil {
		_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
	}
	<-c.gone
}

// Run runs a POSIX sh script on the host through the remote shell and
// returns its output (stdout and stderr) and exit status. The remote
// shell is started (and the shell integration installed) on first use
// and again after the connection was lost.
func (s *SSH) Run(ctx context.Context, script string) ([]byte, int, error) {
	s.chMu.Lock()
	defer s.chMu.Unlock()
	for attempt := 0; ; attempt++ {
		if s.ch != nil {
			select {
			case <-s.ch.gone:
				s.ch = nil
			default:
			}
		}
		if s.ch == nil {
			ch, err := s.openChannel(ctx)
			if err != nil {
				return nil, 0, err
			}
			s.ch = ch
			if err := s.setUp(ctx); err != nil {
				s.ch.close()
				s.ch = nil
				return nil, 0, err
			}
		}
		out, code, err := s.ch.run(ctx, script)
		if err == nil {
			return out, code, nil
		}
		s.ch.close()
		s.ch = nil
		if err != errChannelGone || attempt > 0 {
			return nil, 0, fmt.Errorf("host %s: %w", s.spec.Name, err)
		}
		// The connection was lost since the last script: once more, on a
		// new one.
	}
}
