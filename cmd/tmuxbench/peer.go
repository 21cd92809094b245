package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// peer is another MCP server for tmux, measured beside tmuxmcp by section
// 10: libtmux-go's libtmux-mcp (make peer builds it). Its tools are
// libtmux-mcp's: wait_for_text (patterns, regex, timeoutSeconds; it
// matches what the pane already shows, then watches a control client of
// its own opened for the wait) and run_command (command, paneId).
type peer struct {
	name  string // the binary's base name
	path  string
	shown string // the path as given (bin/peers/NAME for a name)
	rev   string // what it was built from: the .rev make peer wrote
}

// short is the peer's name with its revision cut to 12 characters.
func (p peer) short() string {
	rev := p.rev
	if len(rev) >= 40 && !strings.Contains(rev, " ") {
		rev = rev[:12]
	}
	return p.name + " @ " + rev
}

// resolvePeers turns -peers (names in bin/peers, or paths, comma-separated)
// into peers, with their revisions.
func resolvePeers(list string) ([]peer, error) {
	var peers []peer
	for _, item := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' }) {
		item = strings.TrimSpace(item)
		path := item
		if !strings.ContainsRune(item, '/') {
			path = filepath.Join("bin", "peers", item)
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, err
		}
		if fi, err := os.Stat(abs); err != nil || fi.IsDir() {
			return nil, fmt.Errorf("-peers %q: no binary at %s (build it: make peer PEER_SRC=/path/to/libtmux-go, or give the binary's path)", item, abs)
		}
		peers = append(peers, peer{name: filepath.Base(abs), path: abs, shown: path, rev: peerRevision(abs)})
	}
	return peers, nil
}

// peerRevision is the revision in the .rev file beside the binary (make
// peer writes it), else what the binary's -version says.
func peerRevision(path string) string {
	if b, err := os.ReadFile(path + ".rev"); err == nil && len(strings.TrimSpace(string(b))) > 0 {
		return strings.TrimSpace(string(b))
	}
	out, _ := exec.Command(path, "-version").Output()
	v := strings.TrimSpace(string(out))
	if v == "" {
		v = "unknown version"
	}
	return v + ", commit unknown (no " + filepath.Base(path) + ".rev beside it)"
}

// startPeer runs the peer on this world's server, driven over stdio by a
// real MCP client as tmuxmcp is, with the UTF-8 locale its README asks for
// and a wait ceiling above the idle window.
func (w *world) startPeer(ctx context.Context, p peer, env ...string) (*client, error) {
	cmd := exec.Command(p.path, "-socket-name", w.target.SocketName)
	cmd.Env = append(os.Environ(), "LANG=C.UTF-8", "LC_ALL=C.UTF-8",
		fmt.Sprintf("LIBTMUX_MCP_WAIT_MAX_SECONDS=%d", int((w.cfg.idle+10*time.Minute).Seconds())))
	cmd.Env = append(cmd.Env, env...)
	cmd.Stderr = io.Discard
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "tmuxbench", Version: "v1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", p.path, err)
	}
	c := &client{cs: cs, cmd: cmd}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		c.close()
		return nil, err
	}
	var names []string
	for _, t := range tools.Tools {
		names = append(names, t.Name)
	}
	for _, want := range []string{"wait_for_text", "run_command"} {
		if !slices.Contains(names, want) {
			c.close()
			return nil, fmt.Errorf("%s has no %s tool: not libtmux-mcp's tools (%v)", p.path, want, names)
		}
	}
	return c, nil
}

// peerWaitFrom: one libtmux-mcp wait_for_text per line of tag from from,
// each opened right after the previous one returned, as measureWaitFrom
// does for tmuxmcp, each sample appended to s. The peer has no cursor: a
// line already on the screen when its wait starts is matched there
// (atEntry counts those), and one printed between that screen read and the
// control client the wait opens is not seen at all: the wait times out
// (missed counts those) and the next wait is for the line after the last
// one on the screen.
func (w *world) peerWaitFrom(ctx context.Context, c *client, pane, tag string, from, n int, every time.Duration, s *sample) (atEntry, missed int, err error) {
	if err := w.startEmitterFrom(ctx, pane, tag, from, n, every); err != nil {
		return 0, 0, err
	}
	for i := from; i < from+n; i++ {
		// After the block's first line, the next comes within every: a
		// wait that has seen nothing in ten times that has missed it, and
		// is given up (the peer's own timeout is whole seconds).
		callCtx, cancel := ctx, context.CancelFunc(func() {})
		if i > from {
			callCtx, cancel = context.WithTimeout(ctx, max(250*time.Millisecond, 10*every))
		}
		r, err := c.call(callCtx, "wait_for_text", map[string]any{"paneId": pane, "patterns": []string{fmt.Sprintf(`LAT%s %d \d+\r?$`, tag, i)}, "regex": true, "timeoutSeconds": peerWaitTimeout})
		now := time.Now()
		gaveUp := err != nil && ctx.Err() == nil && callCtx.Err() != nil
		cancel()
		if err != nil && !gaveUp {
			return atEntry, missed, err
		}
		if gaveUp || r["outcome"] == "timeout" {
			missed++
			top, err := w.lastOnScreen(ctx, pane, tag, from+n-1)
			if err != nil {
				return atEntry, missed, err
			}
			i = max(i, top)
			continue
		}
		if r["outcome"] != "matched" {
			return atEntry, missed, fmt.Errorf("sample %d: outcome %v", i, r["outcome"])
		}
		if r["matchedAtEntry"] == true {
			atEntry++
		}
		ts, ok := peerStamp(r["lines"], tag, i)
		if !ok {
			return atEntry, missed, fmt.Errorf("sample %d: the matched line is not in the reply's lines %v", i, r["lines"])
		}
		s.d = append(s.d, now.Sub(time.Unix(0, ts)))
	}
	return atEntry, missed, nil
}

// peerWaitTimeout is the peer's wait timeout in seconds, for the first
// line of a block (the emitter starts 300 ms after it is typed): lines
// come every few tens of milliseconds, so a wait that has seen nothing in
// this long has missed its line.
const peerWaitTimeout = 2

// lastOnScreen is the highest line number of tag the pane shows (last
// once the emitter has printed its last line): a missed sample's recovery,
// not a measured path.
func (w *world) lastOnScreen(ctx context.Context, pane, tag string, last int) (int, error) {
	re := regexp.MustCompile(fmt.Sprintf(`LAT%s (\d+) \d+`, tag))
	out, err := w.target.Run(ctx, "capture-pane", "-p", "-t", pane)
	if err != nil {
		return 0, err
	}
	top := -1
	for _, m := range re.FindAllStringSubmatch(out, -1) {
		if k, _ := strconv.Atoi(m[1]); k > top {
			top = k
		}
	}
	if top >= last {
		// The emitter has printed its last line: the next block may start.
		return last, nil
	}
	return top, nil
}

// peerStamp finds line i of tag in a libtmux-mcp reply's lines and returns
// its timestamp.
func peerStamp(lines any, tag string, i int) (int64, bool) {
	list, _ := lines.([]any)
	re := regexp.MustCompile(fmt.Sprintf(`LAT%s %d (\d+)`, tag, i))
	for _, l := range list {
		if m := re.FindStringSubmatch(fmt.Sprint(l)); m != nil {
			ts, err := strconv.ParseInt(m[1], 10, 64)
			return ts, err == nil
		}
	}
	return 0, false
}

// peerRun is one libtmux-mcp run_command true in pane, which must end with
// status 0.
func peerRun(ctx context.Context, c *client, pane string) (time.Duration, error) {
	start := time.Now()
	r, err := c.call(ctx, "run_command", map[string]any{"paneId": pane, "command": "true", "timeoutSeconds": 30})
	d := time.Since(start)
	if err != nil {
		return d, err
	}
	if r["timedOut"] == true || fmt.Sprint(r["exitStatus"]) != "0" {
		return d, fmt.Errorf("run_command true: timedOut %v, exitStatus %v", r["timedOut"], r["exitStatus"])
	}
	return d, nil
}

// defaultPane opens a window running tmux's default shell (bash, with the
// world's rc files, as tmuxmcp's panes have) for the peer, and returns
// its pane id once the shell has drawn its prompt.
func (w *world) defaultPane(ctx context.Context) (string, error) {
	pane, err := w.target.Run(ctx, "new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "=bench:")
	if err != nil {
		return "", err
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		out, err := w.target.Run(ctx, "capture-pane", "-p", "-t", pane)
		if err != nil {
			return "", err
		}
		if strings.Contains(out, "$") {
			return pane, nil
		}
		time.Sleep(20 * time.Millisecond) // set-up only: not a measured path
	}
	return "", fmt.Errorf("pane %s: no prompt in 20s", pane)
}
