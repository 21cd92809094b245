package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/asciicast"
	"github.com/tmuxmcp/tmuxmcp/internal/mcptest"
	"github.com/tmuxmcp/tmuxmcp/internal/tmuxtest"
)

// `tmuxmcp record` saves a pane's recording from the tmuxmcp serving an
// MCP client, with the agent's command marked; asked about a tmux server
// no tmuxmcp records, it says so and what to give.
func TestRecordSavesAPanesRecordingFromTheRunningTmuxmcp(t *testing.T) {
	t.Parallel()
	target := tmuxtest.Server(t, "agent", 100, 30)
	bin := buildBinary(t)
	state := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.Command(bin, "-L", target.SocketName, "--session", "agent", "--state-dir", state)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cs.Close(); _ = cmd.Wait() }()
	pane := mcptest.OK(ctx, t, cs, "create_pane", map[string]any{"waitMs": 30000}).Str("paneId")
	run := mcptest.OK(ctx, t, cs, "run_shell_command", map[string]any{"paneId": pane, "command": "echo recorded-$((6*7))"})
	if run.Str("status") != "completed" {
		t.Fatalf("run: %v", run)
	}
	file := filepath.Join(t.TempDir(), "pane.cast")
	var stderr bytes.Buffer
	rec := exec.CommandContext(ctx, bin, "record", "-L", target.SocketName, "--state-dir", state, "--pane", pane, "-o", file)
	rec.Stderr = &stderr
	if err := rec.Run(); err != nil {
		t.Fatalf("record: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "asciinema play "+file) {
		t.Fatalf("record does not say how to play it: %s", stderr.String())
	}
	fi, err := os.Stat(file)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the recording %v (%v): want a 0600 file", fi, err)
	}
	f, _ := os.Open(file)
	defer f.Close()
	hdr, ev, err := asciicast.Read(f)
	if err != nil || hdr.Width != 100 || hdr.Height != 30 {
		t.Fatalf("the saved recording: %+v %v", hdr, err)
	}
	var out strings.Builder
	marked := false
	for _, e := range ev {
		marked = marked || e.Code == asciicast.Marker && e.Data == "$ echo recorded-$((6*7))"
		if e.Code == asciicast.Output {
			out.WriteString(e.Data)
		}
	}
	if !marked || !strings.Contains(out.String(), "recorded-42\r\n") {
		t.Fatalf("the command is not marked or its output is missing: %v", ev)
	}
	for _, args := range [][]string{
		{"record", "-L", target.SocketName, "--state-dir", t.TempDir(), "--pane", pane},
		{"record", "-L", target.SocketName + "-other", "--state-dir", state, "--pane", pane},
	} {
		b, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
		if err == nil || !strings.Contains(string(b), "no running tmuxmcp records") || !strings.Contains(string(b), "--state-dir") {
			t.Fatalf("%v: %v\n%s", args, err, b)
		}
	}
	b, err := exec.CommandContext(ctx, bin, "record", "-L", target.SocketName, "--state-dir", state).CombinedOutput()
	if err == nil || !strings.Contains(string(b), "--pane is required") {
		t.Fatalf("record without --pane: %v\n%s", err, b)
	}
}
