// Command tmuxbench measures how quickly printed text is detected: from a
// timestamp a program prints in a tmux pane to the moment each observer has
// it. It compares, in one run on one private tmux server:
//
//   - floor: a bare `tmux -C` reader that scans %output lines itself;
//   - tmuxmcp: a wait_for_text tool call through the MCP server (in memory);
//   - polling: `tmux capture-pane` every 100 ms, as polling servers do.
//
// and prints p50/p99 per observer with ratios against the floor.
//
//	go run ./cmd/tmuxbench [-n 200] [-every 20ms]
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/stream"
	"github.com/tmuxmcp/tmuxmcp/tmux"
	"github.com/tmuxmcp/tmuxmcp/tools"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "emit" {
		emit(os.Args[2:])
		return
	}
	n := flag.Int("n", 200, "samples per observer")
	every := flag.Duration("every", 20*time.Millisecond, "spacing of printed timestamps")
	flag.Parse()
	if err := run(*n, *every); err != nil {
		fmt.Fprintln(os.Stderr, "tmuxbench:", err)
		os.Exit(1)
	}
}

// emit prints "LAT <seq> <unix nanos>" lines, the timestamp taken just
// before the write, with the given spacing.
func emit(args []string) {
	fs := flag.NewFlagSet("emit", flag.ExitOnError)
	n := fs.Int("n", 200, "lines")
	every := fs.Duration("every", 20*time.Millisecond, "spacing")
	tag := fs.String("tag", "A", "phase tag printed after LAT")
	_ = fs.Parse(args)
	time.Sleep(300 * time.Millisecond) // let the shell finish echoing the command
	for i := 0; i < *n; i++ {
		fmt.Fprintf(os.Stdout, "LAT%s %d %d\n", *tag, i, time.Now().UnixNano())
		time.Sleep(*every)
	}
}

type phase struct {
	name    string
	samples []time.Duration
}

func run(n int, every time.Duration) error {
	ctx := context.Background()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	target := tmux.Target{SocketName: "tmuxmcp-bench-" + hex.EncodeToString(b), ConfigFile: "/dev/null"}
	if err := target.EnsureSession(ctx, "bench", 120, 40); err != nil {
		return err
	}
	defer func() {
		// tmux 3.3a leaves the socket file behind: remove exactly ours.
		sock, _ := target.Run(context.Background(), "display-message", "-p", "#{socket_path}")
		_, _ = target.Run(context.Background(), "kill-server")
		if strings.HasSuffix(sock, "/"+target.SocketName) {
			_ = os.Remove(sock)
		}
	}()
	// Shells start with an empty HOME, so the machine's rc files (slow
	// prompt hooks) do not count against any observer.
	home, err := os.MkdirTemp("", "tmuxbench-home")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	if _, err := target.Run(ctx, "set-environment", "-g", "HOME", home); err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	pane, err := target.Run(ctx, "new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "=bench:", "env -i PATH=/usr/bin:/bin PS1='$ ' bash --norc --noprofile")
	if err != nil {
		return err
	}
	// Each phase prints its own tag, so no observer can see another's lines.
	start := func(tag string) error {
		_, err := target.Run(ctx, "send-keys", "-t", pane, "-l", "--", fmt.Sprintf("%s emit -n %d -every %s -tag %s", exe, n, every, tag))
		if err == nil {
			_, err = target.Run(ctx, "send-keys", "-t", pane, "Enter")
		}
		return err
	}
	fmt.Fprintf(os.Stderr, "tmuxbench: %d samples per observer, one every %v, on %s\n", n, every, target)

	floor, err := measureFloor(ctx, target, pane, n, start)
	if err != nil {
		return fmt.Errorf("floor: %w", err)
	}
	viaMCP, err := measureMCP(ctx, target, pane, n, start)
	if err != nil {
		return fmt.Errorf("tmuxmcp: %w", err)
	}
	poll, err := measurePolling(ctx, target, pane, n, start)
	if err != nil {
		return fmt.Errorf("polling: %w", err)
	}
	report(os.Stdout, []phase{floor, viaMCP, poll})

	runs, err := measureRuns(ctx, target, pane, n)
	if err != nil {
		return fmt.Errorf("run_shell_command: %w", err)
	}
	fmt.Println()
	report(os.Stdout, runs)
	return nil
}

// measureRuns times a run_shell_command round trip for `true` in an
// existing pane and in a fresh pane, beside spawning `bash -c true`.
func measureRuns(ctx context.Context, target tmux.Target, pane string, n int) ([]phase, error) {
	spawn := phase{name: "floor: exec bash -c true"}
	for i := 0; i < n; i++ {
		start := time.Now()
		if err := exec.Command("bash", "-c", "true").Run(); err != nil {
			return nil, err
		}
		spawn.samples = append(spawn.samples, time.Since(start))
	}
	state, err := os.MkdirTemp("", "tmuxbench-state")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(state)
	h, err := tools.Start(ctx, target, stream.NewHub(0), tools.Options{Session: "bench", Version: "bench", StateDir: state}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return nil, err
	}
	defer h.Close()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := h.NewServer().Connect(ctx, st, nil)
	if err != nil {
		return nil, err
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	call := func(name string, args map[string]any) (map[string]any, error) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			return nil, err
		}
		if res.IsError {
			return nil, fmt.Errorf("%s: %v", name, res.Content[0].(*mcp.TextContent).Text)
		}
		m, _ := res.StructuredContent.(map[string]any)
		return m, nil
	}
	// A pane with shell integration, as create_pane makes it.
	cp, err := call("create_pane", map[string]any{})
	if err != nil {
		return nil, err
	}
	if _, err := call("wait_for_text", map[string]any{"paneId": cp["paneId"], "cursor": cp["cursor"], "patterns": []string{`[$#] $`}, "regex": true, "timeoutMs": 20000}); err != nil {
		return nil, err
	}
	existing := phase{name: "run_shell_command true, existing pane"}
	for i := 0; i < n; i++ {
		start := time.Now()
		r, err := call("run_shell_command", map[string]any{"paneId": cp["paneId"], "command": "true"})
		if err != nil {
			return nil, err
		}
		if r["status"] != "completed" {
			return nil, fmt.Errorf("status %v", r["status"])
		}
		existing.samples = append(existing.samples, time.Since(start))
	}
	fresh := phase{name: "run_shell_command true, fresh pane"}
	for i := 0; i < max(5, n/10); i++ {
		start := time.Now()
		r, err := call("run_shell_command", map[string]any{"command": "true"})
		if err != nil {
			return nil, err
		}
		if r["status"] != "completed" {
			return nil, fmt.Errorf("status %v", r["status"])
		}
		fresh.samples = append(fresh.samples, time.Since(start))
	}
	return []phase{spawn, existing, fresh}, nil
}

var latLine = regexp.MustCompile(`^LAT([A-Z]) (\d+) (\d+)$`)

// measureFloor reads a bare control client's %output lines.
func measureFloor(ctx context.Context, target tmux.Target, pane string, n int, start func(string) error) (phase, error) {
	cmd := target.Command(ctx, "-C", "attach-session", "-t", "=bench")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		return phase{}, err
	}
	defer func() {
		_, _ = io.WriteString(stdin, "\n")
		_ = stdin.Close()
		go func() { _, _ = io.Copy(io.Discard, stdout) }()
		_ = cmd.Wait()
	}()
	br := bufio.NewReaderSize(stdout, 64<<10)
	// Wait for the attach to finish before typing.
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return phase{}, err
		}
		if strings.HasPrefix(line, "%end") || strings.HasPrefix(line, "%session-changed") {
			break
		}
	}
	if err := start("F"); err != nil {
		return phase{}, err
	}
	prefix := []byte("%output " + pane + " ")
	p := phase{name: "floor: bare tmux -C reader"}
	var pending []byte
	var dec []byte
	for len(p.samples) < n {
		line, err := br.ReadSlice('\n')
		now := time.Now()
		if err != nil && err != bufio.ErrBufferFull {
			return p, err
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
			if m := latLine.FindSubmatch(bytes.TrimSuffix(pending[:i], []byte("\r"))); m != nil && string(m[1]) == "F" {
				ts, _ := strconv.ParseInt(string(m[3]), 10, 64)
				p.samples = append(p.samples, now.Sub(time.Unix(0, ts)))
			}
			pending = pending[i+1:]
		}
	}
	return p, nil
}

// measureMCP calls wait_for_text through an in-memory MCP client.
func measureMCP(ctx context.Context, target tmux.Target, pane string, n int, start func(string) error) (phase, error) {
	hub := stream.NewHub(0)
	h, err := tools.Start(ctx, target, hub, tools.Options{Session: "bench", Version: "bench"}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return phase{}, err
	}
	defer h.Close()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := h.NewServer().Connect(ctx, st, nil)
	if err != nil {
		return phase{}, err
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return phase{}, err
	}
	defer cs.Close()
	call := func(args map[string]any) (map[string]any, error) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wait_for_text", Arguments: args})
		if err != nil {
			return nil, err
		}
		if res.IsError {
			return nil, fmt.Errorf("%v", res.Content)
		}
		m, _ := res.StructuredContent.(map[string]any)
		return m, nil
	}
	first, err := call(map[string]any{"paneId": pane, "timeoutMs": 1})
	if err != nil {
		return phase{}, err
	}
	cur, _ := first["cursor"].(string)
	if err := start("M"); err != nil {
		return phase{}, err
	}
	p := phase{name: "tmuxmcp: wait_for_text"}
	for i := 0; i < n; i++ {
		r, err := call(map[string]any{"paneId": pane, "cursor": cur, "patterns": []string{fmt.Sprintf(`^LATM %d (?<ts>\d+)$`, i)}, "regex": true, "timeoutMs": 30000})
		now := time.Now()
		if err != nil {
			return p, err
		}
		if r["outcome"] != "matched" {
			return p, fmt.Errorf("sample %d: outcome %v", i, r["outcome"])
		}
		groups, _ := r["groups"].(map[string]any)
		ts, _ := strconv.ParseInt(fmt.Sprint(groups["ts"]), 10, 64)
		p.samples = append(p.samples, now.Sub(time.Unix(0, ts)))
		cur, _ = r["cursor"].(string)
	}
	return p, nil
}

// measurePolling runs `tmux capture-pane` every 100 ms.
func measurePolling(ctx context.Context, target tmux.Target, pane string, n int, start func(string) error) (phase, error) {
	if err := start("P"); err != nil {
		return phase{}, err
	}
	p := phase{name: "polling: capture-pane every 100 ms"}
	seen := map[string]bool{}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	deadline := time.Now().Add(time.Duration(n)*time.Second + 30*time.Second)
	for len(p.samples) < n && time.Now().Before(deadline) {
		<-tick.C
		out, err := target.Run(ctx, "capture-pane", "-p", "-J", "-S", "-", "-t", pane)
		now := time.Now()
		if err != nil {
			return p, err
		}
		for _, line := range strings.Split(out, "\n") {
			m := latLine.FindStringSubmatch(line)
			if m == nil || m[1] != "P" || seen[m[2]] {
				continue
			}
			seen[m[2]] = true
			ts, _ := strconv.ParseInt(m[3], 10, 64)
			p.samples = append(p.samples, now.Sub(time.Unix(0, ts)))
		}
	}
	return p, nil
}

func percentile(d []time.Duration, q float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	i := int(q * float64(len(s)-1))
	return s[i]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3f", float64(d)/float64(time.Millisecond)) }

func report(w io.Writer, phases []phase) {
	base := phases[0]
	b50, b99 := percentile(base.samples, 0.5), percentile(base.samples, 0.99)
	fmt.Fprintln(w, "| observer | samples | p50 ms | p99 ms | max ms | p50 − floor ms | p50 ÷ floor | p99 ÷ floor |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, p := range phases {
		p50, p99, mx := percentile(p.samples, 0.5), percentile(p.samples, 0.99), percentile(p.samples, 1)
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %.2f | %.2f |\n", p.name, len(p.samples), ms(p50), ms(p99), ms(mx), ms(p50-b50), float64(p50)/float64(b50), float64(p99)/float64(b99))
	}
}
