package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/cursor"
	"github.com/tmuxmcp/tmuxmcp/internal/tmuxtest"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// world is one private tmux server with a session "bench", made for one
// section of the suite and killed after it, so sections never share panes.
type world struct {
	cfg    config
	target tmux.Target
	stop   func() // kills exactly this server and removes its socket
	tmp    string

	profiles int // CPU profiles written so far (with -pprof)
}

func newWorld(ctx context.Context, cfg config) (*world, error) {
	tmp, err := os.MkdirTemp("", "tmuxbench")
	if err != nil {
		return nil, err
	}
	// The shells' HOME is empty, so no rc file slows a prompt.
	home := filepath.Join(tmp, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		_ = os.RemoveAll(tmp)
		return nil, err
	}
	if err := tmuxtest.DefaultRC(home); err != nil {
		_ = os.RemoveAll(tmp)
		return nil, err
	}
	target, stop, err := tmuxtest.Start(ctx, "tmuxmcp-bench", tmux.SessionSpec{Name: "bench", Width: 120, Height: 40}, home)
	if err != nil {
		_ = os.RemoveAll(tmp)
		return nil, err
	}
	return &world{cfg: cfg, target: target, stop: stop, tmp: tmp}, nil
}

// close kills exactly this server and removes its socket and files.
func (w *world) close() {
	w.stop()
	_ = os.RemoveAll(w.tmp)
}

const shell = "env -i PATH=/usr/bin:/bin TERM=screen PS1='$ ' bash --norc --noprofile"

// newShellWorld is newWorld with a window running a bare bash, whose
// pane id it returns too.
func newShellWorld(ctx context.Context, cfg config) (*world, string, error) {
	w, err := newWorld(ctx, cfg)
	if err != nil {
		return nil, "", err
	}
	pane, err := w.shellPane(ctx)
	if err != nil {
		w.close()
		return nil, "", err
	}
	return w, pane, nil
}

// shellPane opens a window running a bare bash and returns its pane id.
func (w *world) shellPane(ctx context.Context) (string, error) {
	return w.target.Run(ctx, "new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "=bench:", shell)
}

// typeLine types text and Enter into pane.
func (w *world) typeLine(ctx context.Context, pane, text string) error {
	if _, err := w.target.Run(ctx, "send-keys", "-t", pane, "-l", "--", text); err != nil {
		return err
	}
	_, err := w.target.Run(ctx, "send-keys", "-t", pane, "Enter")
	return err
}

// serverPID is the tmux server's process id.
func (w *world) serverPID(ctx context.Context) (int, error) {
	out, err := w.target.Run(ctx, "display-message", "-p", "#{pid}")
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(out)
}

// client is a tmuxmcp process on this world's server, driven over stdio by
// a real MCP client, as agents run it.
type client struct {
	cs  *mcp.ClientSession
	cmd *exec.Cmd
	// host, when set, is passed as every call's host (a view of the same
	// process's panes on that host: see onHost).
	host string
}

// onHost is c calling the tools on host's panes.
func (c *client) onHost(host string) *client { return &client{cs: c.cs, cmd: c.cmd, host: host} }

// startMCP runs the tmuxmcp binary on this world's server.
func (w *world) startMCP(ctx context.Context, env []string, args ...string) (*client, error) {
	state, err := os.MkdirTemp(w.tmp, "state")
	if err != nil {
		return nil, err
	}
	args = append([]string{"-L", w.target.SocketName, "--tmux-config", "/dev/null", "--session", "bench", "--state-dir", state}, args...)
	cmd := exec.Command(w.cfg.binary, args...)
	cmd.Env = append(os.Environ(), env...)
	if w.cfg.pprof != "" {
		w.profiles++
		cmd.Env = append(cmd.Env, fmt.Sprintf("TMUXMCP_CPUPROFILE=%s/%s-%d.prof", w.cfg.pprof, w.cfg.section, w.profiles))
	}
	cmd.Stderr = io.Discard
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "tmuxbench", Version: "v1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", w.cfg.binary, err)
	}
	return &client{cs: cs, cmd: cmd}, nil
}

func (c *client) close() { _ = c.cs.Close() }

func (c *client) pid() int { return c.cmd.Process.Pid }

// call runs one tool and returns its structured result; a tool error is an
// error here.
func (c *client) call(ctx context.Context, name string, args map[string]any) (map[string]any, error) {
	if c.host != "" {
		args = maps.Clone(args)
		args["host"] = c.host
	}
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if res.IsError {
		var text string
		if len(res.Content) > 0 {
			if t, ok := res.Content[0].(*mcp.TextContent); ok {
				text = t.Text
			}
		}
		return nil, fmt.Errorf("%s: %s", name, text)
	}
	m, _ := res.StructuredContent.(map[string]any)
	return m, nil
}

// cursor returns the pane's current end cursor (a zero-timeout wait).
func (c *client) cursor(ctx context.Context, pane string) (string, error) {
	r, err := c.call(ctx, "wait_for_text", map[string]any{"paneId": pane, "timeoutMs": 1})
	if err != nil {
		return "", err
	}
	cur, _ := r["cursor"].(string)
	return cur, nil
}

// offset is the byte offset a cursor names (0 for a malformed one).
func offset(cur string) int64 {
	c, err := cursor.Parse(cur)
	if err != nil {
		return 0
	}
	return c.Offset
}

// reader is a bare `tmux -C` control client: the floor every observer is
// compared with. It unescapes %output for one pane and hands each complete
// line, with the time it was read, to onLine.
type reader struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader
	pane  string
}

func (w *world) attachReader(ctx context.Context, pane string) (*reader, error) {
	cmd := w.target.Command(ctx, "-C", "attach-session", "-t", "=bench")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	r := &reader{cmd: cmd, stdin: stdin, out: bufio.NewReaderSize(stdout, 64<<10), pane: pane}
	// The attach is done when its first reply block ends.
	for {
		line, err := r.out.ReadString('\n')
		if err != nil {
			r.close()
			return nil, err
		}
		if strings.HasPrefix(line, "%end") || strings.HasPrefix(line, "%session-changed") {
			return r, nil
		}
	}
}

// lines reads until onLine returns false or the client ends.
func (r *reader) lines(onLine func(line []byte, at time.Time) bool) error {
	prefix := []byte("%output " + r.pane + " ")
	var pending, dec []byte
	for {
		line, err := r.out.ReadSlice('\n')
		now := time.Now()
		if err != nil && err != bufio.ErrBufferFull {
			return err
		}
		if !bytes.HasPrefix(line, prefix) {
			continue
		}
		dec = tmux.Unescape(dec[:0], bytes.TrimSuffix(line[len(prefix):], []byte("\n")))
		pending = append(pending, dec...)
		for {
			i := bytes.IndexByte(pending, '\n')
			if i < 0 {
				break
			}
			// What the line shows: the text after its last carriage return.
			l := bytes.TrimSuffix(pending[:i], []byte("\r"))
			if j := bytes.LastIndexByte(l, '\r'); j >= 0 {
				l = l[j+1:]
			}
			if !onLine(l, now) {
				return nil
			}
			pending = pending[i+1:]
		}
		if len(pending) > 0 {
			pending = append(pending[:0:0], pending...)
		}
	}
}

func (r *reader) close() {
	_, _ = io.WriteString(r.stdin, "\n")
	_ = r.stdin.Close()
	go func() { _, _ = io.Copy(io.Discard, r.out) }()
	_ = r.cmd.Wait()
}

// cpuTime is a process's user+system CPU time so far, from /proc.
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command name, which is in parentheses.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / 100, nil // USER_HZ is 100 on Linux
}

// rss is a process's resident set size in bytes, from /proc.
func rss(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("no VmRSS for pid %d", pid)
}

// newShell makes a pane with create_pane (an integrated shell, as agents
// get): it returns once the shell is at its prompt, reading.
func (c *client) newShell(ctx context.Context) (string, error) {
	cp, err := c.call(ctx, "create_pane", map[string]any{"waitMs": 20000})
	if err != nil {
		return "", err
	}
	pane, _ := cp["paneId"].(string)
	if cp["ready"] != true {
		return "", fmt.Errorf("pane %s: not ready (%v)", pane, cp["notReadyReason"])
	}
	return pane, nil
}

// park opens k waits that never match, on panes round robin, each with
// the arguments waitArgs gives wait i (paneId and timeoutMs are added). It
// returns once they have had settle to open, or an error if one ended by
// then; stop cancels them and says how many ended on their own before.
func (c *client) park(ctx context.Context, k int, panes []string, timeout, settle time.Duration, waitArgs func(i int) map[string]any) (stop func() (ended int), err error) {
	return c.parkCalls(ctx, k, settle, func(i int) map[string]any {
		args := waitArgs(i)
		args["paneId"], args["timeoutMs"] = panes[i%len(panes)], timeout.Milliseconds()
		return args
	})
}

// parkCalls is park with each wait_for_text call's whole arguments given by
// args (a peer's, whose arguments are not tmuxmcp's).
func (c *client) parkCalls(ctx context.Context, k int, settle time.Duration, argsFor func(i int) map[string]any) (stop func() (ended int), err error) {
	wctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var endedN atomic.Int64
	for i := 0; i < k; i++ {
		args := argsFor(i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r, err := c.call(wctx, "wait_for_text", args); err == nil && r["outcome"] != "cancelled" {
				endedN.Add(1)
			}
		}()
	}
	stop = func() int {
		n := int(endedN.Load())
		cancel()
		wg.Wait()
		return n
	}
	time.Sleep(settle)
	if n := endedN.Load(); n > 0 {
		stop()
		return nil, fmt.Errorf("%d of %d parked waits ended on their own", n, k)
	}
	return stop, nil
}

// never is a literal pattern wait i will not find.
func never(i int) map[string]any {
	return map[string]any{"patterns": []string{fmt.Sprintf("never-%d", i)}}
}
