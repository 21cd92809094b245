package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/internal/tmuxtest"
)

// rawStdio runs the tmuxmcp binary on a private tmux server and speaks
// raw lines to its stdin, reading its answers from stdout.
type rawStdio struct {
	t       *testing.T
	cmd     *exec.Cmd
	in      io.WriteCloser
	answers chan map[string]any
	exited  chan struct{} // closed when the process has exited
	err     error         // its exit, once exited is closed
}

func startRawStdio(t *testing.T) *rawStdio {
	t.Helper()
	target := tmuxtest.Server(t, "agent", 120, 40)
	cmd := exec.Command(buildBinary(t), "-L", target.SocketName, "--session", "agent", "--state-dir", t.TempDir())
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &rawStdio{t: t, cmd: cmd, in: in, answers: make(chan map[string]any, 64), exited: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 8<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				m = map[string]any{"line": sc.Text()}
			}
			if _, isNote := m["method"]; isNote && m["id"] == nil {
				continue // a notification (list_changed, progress): not an answer
			}
			r.answers <- m
		}
		close(r.answers)
		r.err = cmd.Wait()
		close(r.exited)
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-r.exited })
	r.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	if m := r.next(); m["id"] != "init" {
		t.Fatalf("initialize: %v", m)
	}
	r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return r
}

func (r *rawStdio) send(line string) {
	r.t.Helper()
	if _, err := io.WriteString(r.in, line+"\n"); err != nil {
		r.t.Fatalf("the server stopped reading (%v) before %.60q", err, line)
	}
}

// next returns the next answer; it fails the test if the server exited.
func (r *rawStdio) next() map[string]any {
	r.t.Helper()
	select {
	case m, ok := <-r.answers:
		if !ok {
			<-r.exited
			r.t.Fatalf("tmuxmcp exited: %v", r.err)
		}
		return m
	case <-time.After(60 * time.Second):
		r.t.Fatal("no answer in 60 s")
	}
	return nil
}

// peakRSS is the process's peak resident set in bytes (VmHWM).
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmHWM")
	return 0
}

// A careless client's bad lines each get a JSON-RPC error, and the
// session — with a wait open across all of them — goes on.
func TestStdioAnswersEveryBadLineAndKeepsServing(t *testing.T) {
	t.Parallel()
	r := startRawStdio(t)
	r.send(`{"jsonrpc":"2.0","id":"wait","method":"tools/call","params":{"name":"wait_for_text","arguments":{"paneId":"%0","patterns":["tmuxmcp-never-printed"],"timeoutMs":120000}}}`)
	bad := []string{
		`not json at all`, `{}`, `[]`, `"hello"`, `123`, `null`, `true`,
		`{"jsonrpc":"2.0","id":{},"method":"ping"}`, `{"jsonrpc":"2.0","id":[],"method":"ping"}`,
		`{"jsonrpc":"2.0","id":true,"method":"ping"}`, `{"jsonrpc":"1.0","id":5,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":6,"method":7}`, strings.Repeat("[", 1001) + strings.Repeat("]", 1001),
		`{"jsonrpc":"2.0","id":7}`, `[{"jsonrpc":"2.0","id":8,"method":"ping"}]`,
	}
	for i, line := range bad {
		r.send(line)
		m := r.next()
		if m["error"] == nil && !strings.Contains(fmt.Sprint(m["line"]), `"code":-32600`) { // a batch's answer is an array
			t.Errorf("bad line %d (%.40s): answer %v", i, line, m)
		}
		r.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, 100+i))
		if m := r.next(); m["id"] != float64(100+i) || m["result"] == nil {
			t.Fatalf("after bad line %d (%.40s): %v", i, line, m)
		}
	}
	// A 100 MiB line is discarded while it is read.
	if _, err := io.WriteString(r.in, `{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"type_text","arguments":{"paneId":"%0","text":"`); err != nil {
		t.Fatal(err)
	}
	chunk := []byte(strings.Repeat("x", 1<<20))
	for range 100 {
		if _, err := r.in.Write(chunk); err != nil {
			t.Fatalf("the server stopped reading the long line: %v", err)
		}
	}
	r.send(`"}}}`)
	if m := r.next(); m["id"] != "big" || m["error"] == nil {
		t.Fatalf("the 100 MiB line: %v", m)
	}
	rss := peakRSS(t, r.cmd.Process.Pid)
	t.Logf("peak RSS after a 100 MiB line: %.1f MiB", float64(rss)/(1<<20))
	if rss > 64<<20 {
		t.Errorf("peak RSS %d MiB after a 100 MiB line (the bound is 64 MiB)", rss>>20)
	}
	r.send(`{"jsonrpc":"2.0","id":"list","method":"tools/call","params":{"name":"list_panes","arguments":{}}}`)
	if m := r.next(); m["id"] != "list" || m["result"] == nil {
		t.Fatalf("list_panes after it all: %v", m)
	}
	// The wait opened first was never disturbed: it is still open, and
	// ends with the stream when stdin ends.
	_ = r.in.Close()
	m := r.next()
	if m["id"] != "wait" {
		t.Fatalf("want the open wait's answer, got %v", m)
	}
	if sc, _ := m["result"].(map[string]any)["structuredContent"].(map[string]any); sc["outcome"] != "stream_lost" || sc["streamFailure"] != "hub_closed" {
		t.Errorf("the open wait at stdin's end: %v", m)
	}
	select {
	case <-r.exited:
		if r.err != nil {
			t.Errorf("exit: %v", r.err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("tmuxmcp did not exit after stdin ended")
	}
}

// A client that writes its requests and closes stdin at once still gets
// every answer.
func TestStdioAnswersRequestsWrittenJustBeforeStdinCloses(t *testing.T) {
	t.Parallel()
	target := tmuxtest.Server(t, "agent", 120, 40)
	cmd := exec.Command(buildBinary(t), "-L", target.SocketName, "--session", "agent", "--state-dir", t.TempDir())
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_panes","arguments":{}}}
{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"wait_for_text","arguments":{"paneId":"%0","patterns":["never-printed"],"timeoutMs":60000}}}
`)
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.Output(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("tmuxmcp did not exit after stdin ended")
	}
	if err != nil {
		t.Fatalf("exit: %v", err)
	}
	ids := map[float64]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["error"] == nil {
			if id, ok := m["id"].(float64); ok {
				ids[id] = true
			}
		}
	}
	for id := 1.0; id <= 4; id++ {
		if !ids[id] {
			t.Errorf("request %v was not answered; stdout:\n%s", id, out)
		}
	}
}
