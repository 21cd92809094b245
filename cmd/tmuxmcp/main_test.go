package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"github.com/tmuxmcp/tmuxmcp/tools"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/internal/mcptest"
	"github.com/tmuxmcp/tmuxmcp/internal/tmuxtest"
)

// binary is the tmuxmcp binary the tests run: built once, by the first
// test that needs it, into a directory TestMain removes.
var binary struct {
	once      sync.Once
	dir, path string
	out       []byte
	err       error
}

// goCaches are the go command's build and module caches as the invoking
// user has them (TestMain reads them before the process takes a home of
// its own): go build uses them, as go test itself did, instead of
// downloading every module and compiling everything again in that home.
var goCaches []string

func readGoCaches() {
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output()
	if f := strings.Split(strings.TrimSpace(string(out)), "\n"); err == nil && len(f) == 2 {
		goCaches = []string{"GOCACHE=" + f[0], "GOMODCACHE=" + f[1]}
	}
}

func buildBinary(t *testing.T) string {
	t.Helper()
	binary.once.Do(func() {
		if binary.dir, binary.err = os.MkdirTemp("", "tmuxmcp-test-bin"); binary.err != nil {
			return
		}
		binary.path = filepath.Join(binary.dir, "tmuxmcp")
		build := exec.Command("go", "build", "-o", binary.path, ".")
		build.Env = append(os.Environ(), goCaches...)
		binary.out, binary.err = build.CombinedOutput()
	})
	if binary.err != nil {
		t.Fatalf("go build: %v\n%s", binary.err, binary.out)
	}
	return binary.path
}

func TestStdioServerOnAPrivateServer(t *testing.T) {
	t.Parallel()
	target := tmuxtest.Server(t, "agent", 120, 40)
	bin := buildBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.Command(bin, "-L", target.SocketName, "--session", "agent", "--state-dir", t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	if len(names) != len(tools.AllToolNames()) {
		t.Fatalf("tools: %v", names)
	}
	mcptest.OK(ctx, t, cs, "list_panes", map[string]any{})
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	_ = cmd.Wait()
	for _, want := range []string{"serving MCP on stdio", "tmux -L " + target.SocketName + " attach -t agent", "claude mcp add"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr does not tell a person %q:\n%s", want, stderr.String())
		}
	}
}

func TestVersionAndDoctor(t *testing.T) {
	t.Parallel()
	target := tmuxtest.Server(t, "agent", 80, 24)
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"version"}, nil, &out, &errb); err != nil || !strings.HasPrefix(out.String(), "tmuxmcp ") {
		t.Fatalf("version: %v %q", err, out.String())
	}
	out.Reset()
	if err := run(context.Background(), []string{"doctor", "-L", target.SocketName}, nil, &out, &errb); err != nil {
		t.Fatalf("doctor: %v\n%s", err, out.String())
	}
	for _, want := range []string{"ok   tmux", "ok   server", "ok   panes    1 seen"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if err := run(context.Background(), []string{"doctor", "-L", target.SocketName + "-absent"}, nil, &out, &errb); err != nil || !strings.Contains(out.String(), "not running") {
		t.Fatalf("doctor on a server not started yet: %v\n%s", err, out.String())
	}
	if err := run(context.Background(), []string{"version", "--bogus"}, nil, &out, &errb); err == nil {
		t.Fatal("version accepted an unknown argument")
	}
	if err := run(context.Background(), []string{"--retain", "10"}, nil, &out, &errb); err == nil || !strings.Contains(err.Error(), "--retain") {
		t.Fatalf("bad flag: %v", err)
	}
}

func TestSIGTERMAnswersOpenWaitsAndLeavesNoClient(t *testing.T) {
	t.Parallel()
	target := tmuxtest.Server(t, "agent", 120, 40)
	bin := buildBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.Command(bin, "-L", target.SocketName, "--session", "agent", "--state-dir", t.TempDir())
	var mu sync.Mutex
	progressed := map[any]bool{}
	all := make(chan struct{})
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			progressed[r.Params.ProgressToken] = true
			if len(progressed) == 10 {
				select {
				case <-all:
				default:
					close(all)
				}
			}
		},
	})
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	pane := mcptest.OK(ctx, t, cs, "list_panes", map[string]any{}).M["panes"].([]any)[0].(map[string]any)["paneId"]
	results := make(chan map[string]any, 10)
	for i := 0; i < 10; i++ {
		go func() {
			r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wait_for_text", Arguments: map[string]any{"paneId": pane, "patterns": []string{"never"}, "timeoutMs": 60000}, Meta: mcp.Meta{"progressToken": i}})
			if err != nil || r.IsError {
				results <- map[string]any{"error": fmt.Sprint(err, r)}
				return
			}
			results <- r.StructuredContent.(map[string]any)
		}()
	}
	select {
	case <-all:
	case <-ctx.Done():
		t.Fatal("the waits did not start")
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		select {
		case r := <-results:
			if r["outcome"] != "stream_lost" || r["streamFailure"] != "hub_closed" {
				t.Errorf("wait %d: %v", i, r)
			}
		case <-ctx.Done():
			t.Fatal("open waits were not answered before exit")
		}
	}
	_ = cs.Close()
	_ = cmd.Wait()
	if out, _ := target.Run(context.Background(), "list-clients", "-F", "#{client_control_mode} #{client_name}"); strings.Contains(out, "1 ") {
		t.Fatalf("control clients left behind: %q", out)
	}
}

// A client that closes stdin and stops reading stdout (it crashed, or its
// pipe filled up) must not keep tmuxmcp and its control client alive: the
// answers blocked on the full pipe are given up and tmuxmcp exits.
func TestExitsWhenStdinEndsAndNobodyReadsStdout(t *testing.T) {
	t.Parallel()
	target := tmuxtest.Server(t, "agent", 120, 40)
	bin := buildBinary(t)
	cmd := exec.Command(bin, "-L", target.SocketName, "--session", "agent", "--state-dir", t.TempDir())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe() // never read
	if err != nil {
		t.Fatal(err)
	}
	defer stdout.Close()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var msgs strings.Builder
	msgs.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}` + "\n")
	msgs.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	for i := 1; i <= 100; i++ { // ~100 tool lists: far more than a pipe holds
		fmt.Fprintf(&msgs, `{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`+"\n", i)
	}
	if _, err := stdin.Write([]byte(msgs.String())); err != nil {
		t.Fatal(err)
	}
	_ = stdin.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("tmuxmcp did not exit after stdin ended with its answers unread")
	}
	if out, _ := target.Run(context.Background(), "list-clients", "-F", "#{client_control_mode} #{client_name}"); strings.Contains(out, "1 ") {
		t.Fatalf("control clients left behind: %q", out)
	}
}

// stdin and stdout may be one socket (socat, inetd, systemd sockets): the
// bounded writes on stdout must not change how stdin is read.
func TestServesWhenStdinAndStdoutAreOneSocket(t *testing.T) {
	t.Parallel()
	target := tmuxtest.Server(t, "agent", 120, 40)
	bin := buildBinary(t)
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	mine, theirs := os.NewFile(uintptr(fds[0]), "client"), os.NewFile(uintptr(fds[1]), "server")
	defer mine.Close()
	cmd := exec.Command(bin, "-L", target.SocketName, "--session", "agent", "--state-dir", t.TempDir())
	cmd.Stdin, cmd.Stdout = theirs, theirs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	theirs.Close()
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	time.Sleep(500 * time.Millisecond) // the server is reading an empty stdin
	if _, err := mine.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}` + "\n")); err != nil {
		t.Fatal(err)
	}
	_ = mine.SetReadDeadline(time.Now().Add(20 * time.Second))
	line, err := bufio.NewReader(mine).ReadString('\n')
	if err != nil || !strings.Contains(line, `"id":1`) || !strings.Contains(line, "serverInfo") {
		t.Fatalf("no initialize answer over a shared socket: %q %v", line, err)
	}
}

// doctorWith runs tmuxmcp doctor with home as HOME, sh as the shell and
// wait as its --shell-wait.
func doctorWith(t *testing.T, home, sh, wait string, files map[string]string) (string, error) {
	t.Helper()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(home, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	t.Setenv("SHELL", sh)
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"doctor", "-L", "tmuxmcp-absent-" + t.Name(), "--shell-wait", wait}, nil, &out, &errb)
	return out.String(), err
}

func TestDoctorChecksTheUsersShellWithTheIntegration(t *testing.T) {
	// Not parallel: doctorWith sets HOME and SHELL (t.Setenv).
	// A generous wait: a loaded machine may take seconds to start the shell.
	out, err := doctorWith(t, t.TempDir(), "/bin/bash", "30s", map[string]string{".profile": ". ~/.bashrc\n", ".bashrc": "PS1='$ '\n"})
	if err != nil || !strings.Contains(out, "ok   shell    /bin/bash (bash) with tmuxmcp's integration") {
		t.Fatalf("a healthy bash: %v\n%s", err, out)
	}
}

func TestDoctorNamesTheStartupLineThatHangs(t *testing.T) {
	// Not parallel: doctorWith sets HOME and SHELL (t.Setenv).
	home := t.TempDir()
	out, err := doctorWith(t, home, "/bin/bash", "3s", map[string]string{".profile": ". ~/.bashrc\n", ".bashrc": "PS1='$ '\nexport A=1\nsleep 100\n"})
	if err == nil || !strings.Contains(out, "FAIL shell") || !strings.Contains(out, home+"/.bashrc line 3: sleep 100") {
		t.Fatalf("a .bashrc that hangs: %v\n%s", err, out)
	}
}

func TestDoctorQuotesStartupErrors(t *testing.T) {
	// Not parallel: doctorWith sets HOME and SHELL (t.Setenv).
	home := t.TempDir()
	// A generous wait: a loaded machine may take seconds to start the shell.
	out, err := doctorWith(t, home, "/bin/bash", "30s", map[string]string{".profile": ". ~/.bashrc\n", ".bashrc": "PS1='$ '\nif then\n"})
	if err == nil || !strings.Contains(out, "FAIL shell") || !strings.Contains(out, ".bashrc: line 2: syntax error") {
		t.Fatalf("a .bashrc with a syntax error: %v\n%s", err, out)
	}
}

// With $TMUXMCP_LATENCY_TRACE set, each wait that matched leaves one line
// of four times in order: appended, matched, encoded, written.
func TestLatencyTraceTimesEachMatchedWait(t *testing.T) {
	// Not parallel: the wait must be open within the 500 ms before the line
	// is typed, which other tests' load would stretch.
	target := tmuxtest.Server(t, "agent", 120, 40)
	bin := buildBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	trace := filepath.Join(t.TempDir(), "latency.trace")
	cmd := exec.Command(bin, "-L", target.SocketName, "--session", "agent", "--state-dir", t.TempDir())
	cmd.Env = append(os.Environ(), "TMUXMCP_LATENCY_TRACE="+trace)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cs.Close(); _ = cmd.Wait() }()
	out, err := target.Run(ctx, "display-message", "-p", "-t", "agent", "#{pane_id}")
	if err != nil {
		t.Fatal(err)
	}
	pane := strings.TrimSpace(out)
	go func() {
		// Typed straight into tmux after the wait has begun (not through
		// tmuxmcp, whose own typing is masked as echo).
		time.Sleep(500 * time.Millisecond)
		_, _ = target.Run(ctx, "send-keys", "-t", pane, "-l", "echo traced-$((6*7))\r")
	}()
	if w := mcptest.OK(ctx, t, cs, "wait_for_text", map[string]any{"paneId": pane, "patterns": []string{"traced-42"}, "timeoutMs": 30000}); w.Str("outcome") != "matched" {
		t.Fatalf("wait_for_text: %v", w)
	}
	mcptest.Call(ctx, t, cs, "list_panes", map[string]any{})
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 1 {
		t.Fatalf("trace has %d lines, want 1 (one matched wait):\n%s", len(lines), data)
	}
	var at [4]int64
	if n, err := fmt.Sscan(lines[0], &at[0], &at[1], &at[2], &at[3]); n != 4 || err != nil {
		t.Fatalf("trace line %q: %v", lines[0], err)
	}
	for i := 1; i < 4; i++ {
		if at[i] < at[i-1] || at[0] <= 0 {
			t.Fatalf("trace times out of order: %v", at)
		}
	}
}

// doctor checks the state directory, the token and the --http port, and
// names the fix for each problem.
func TestDoctorNamesTheFixForTheStateDirectoryTokenAndPort(t *testing.T) {
	// Not parallel: it sets HOME, SHELL and TMUXMCP_TOKEN (t.Setenv).
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("SHELL", "/bin/sh")
	t.Setenv("TMUXMCP_TOKEN", "")
	state := filepath.Join(home, "state")
	if err := os.Mkdir(state, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(state, 0o775); err != nil { // its group may write there
		t.Fatal(err)
	}
	token := filepath.Join(state, "http-token")
	if err := os.WriteFile(token, []byte("0123456789abcdef0123\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := busy.Addr().String()
	doctor := func() (string, error) {
		var out, errb bytes.Buffer
		err := run(context.Background(), []string{"doctor", "-L", "tmuxmcp-absent-" + t.Name(), "--shell-wait", "30s", "--state-dir", state, "--http", addr}, nil, &out, &errb)
		return out.String(), err
	}
	out, err := doctor()
	if err == nil {
		t.Errorf("doctor found no problem:\n%s", out)
	}
	for _, want := range []string{"FAIL state", "chmod 700 " + state, "FAIL token", "chmod 600 " + token, "FAIL port", addr, "ok   shell"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}
	_ = busy.Close()
	if err := os.Chmod(state, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(token, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := doctor(); err != nil || strings.Contains(out, "FAIL") {
		t.Fatalf("after the fixes: %v\n%s", err, out)
	}
}

func TestDoctorSaysWhichShellsWorkWhenTheDefaultShellIsTcsh(t *testing.T) {
	// Not parallel: doctorWith sets HOME and SHELL (t.Setenv).
	tcsh, err := exec.LookPath("tcsh")
	if err != nil {
		if os.Getenv("TMUXMCP_REQUIRE_SHELLS") != "" {
			t.Fatal("tcsh is not installed (TMUXMCP_REQUIRE_SHELLS is set)")
		}
		t.Skip("tcsh is not installed")
	}
	out, err := doctorWith(t, t.TempDir(), tcsh, "10s", nil)
	if err == nil || !strings.Contains(out, "FAIL shell") {
		t.Fatalf("doctor with tcsh: %v\n%s", err, out)
	}
	for _, want := range []string{"cannot run commands in", "bash, zsh and fish", "--shell ", "default-shell"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor does not say %q:\n%s", want, out)
		}
	}
}

func TestTheShellFlagTakesOnlyAShellTmuxmcpRunsCommandsIn(t *testing.T) {
	t.Parallel()
	c, err := parseFlags("tmuxmcp", []string{"--shell", "sh"}, io.Discard)
	if err != nil || !filepath.IsAbs(c.shell) {
		t.Fatalf("--shell sh: %+v %v", c, err)
	}
	for _, bad := range []string{"tcsh", "/no/such/shell", "python3"} {
		if _, err := exec.LookPath(bad); err != nil && bad == "tcsh" {
			continue
		}
		_, err := parseFlags("tmuxmcp", []string{"--shell", bad}, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "--shell "+bad) || !strings.Contains(err.Error(), "bash, zsh and fish") {
			t.Errorf("--shell %s: %v", bad, err)
		}
	}
}

func TestABadKeepFinishedIsRefusedNamingTheFlagAndTheRange(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"-1s", "25h"} {
		var out, errb bytes.Buffer
		err := run(context.Background(), []string{"-L", "tmuxmcp-absent-" + t.Name(), "--state-dir", t.TempDir(), "--keep-finished", bad}, nil, &out, &errb)
		if err == nil || !strings.Contains(err.Error(), "--keep-finished "+strings.TrimSuffix(bad, "s")) || !strings.Contains(err.Error(), "0 (close at once) to 24h") {
			t.Fatalf("--keep-finished %s: %v", bad, err)
		}
	}
}
