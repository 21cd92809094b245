package tools

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/audit"
	"github.com/tmuxmcp/tmuxmcp/engine"
	"github.com/tmuxmcp/tmuxmcp/internal/mcptest"
	"github.com/tmuxmcp/tmuxmcp/internal/tmuxtest"
	"github.com/tmuxmcp/tmuxmcp/machine"
	"github.com/tmuxmcp/tmuxmcp/policy"
	"github.com/tmuxmcp/tmuxmcp/sandbox"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

func TestMain(m *testing.M) { tmuxtest.Main(m) }

// env is a private tmux server, the engine's host on it, the MCP adapter,
// and an MCP client session connected to it in memory.
type env struct {
	target tmux.Target
	h      *engine.Host
	s      *Server
	cs     *mcp.ClientSession
}

// close stops the adapter and the host (as tmuxmcp does when it exits).
func (e *env) close() {
	e.s.Close()
	e.h.Close()
}

type envOptions struct {
	target   *tmux.Target // an existing server; default: a new private one
	retain   int
	waitMax  time.Duration
	stateDir string
	shell    string // default-shell for new panes (default /bin/bash)
	policy   *policy.Policy
	audit    *audit.Log
	review   time.Duration
	protocol string // MCP protocol version the client asks for ("" = latest)
	restart  bool   // act as the embedded default: restart the server when gone
	client   *mcp.ClientOptions
	via      []string // --approval-via (default tmux, elicitation)
	approver string   // --approval-via exec: program
	host     string   // the host's name (default local)
	// machine, given the state directory, is where the panes run
	// (default this machine).
	machine func(stateDir string) machine.Machine
	sandbox sandbox.Config // --sandbox (default off)
	ingest  string         // --ingest (default pipe)
}

func newEnv(t *testing.T, o envOptions) *env {
	t.Helper()
	var target tmux.Target
	if o.target != nil {
		target = *o.target
	} else {
		target = tmuxtest.Server(t, "agent", 120, 40)
	}
	if o.shell != "" {
		if _, err := exec.LookPath(o.shell); err != nil {
			t.Skipf("%s is not installed", o.shell)
		}
		if _, err := target.Run(context.Background(), "set-option", "-g", "default-shell", o.shell); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	stateDir := o.stateDir
	if stateDir == "" {
		stateDir = t.TempDir()
	}
	var machine machine.Machine
	if o.machine != nil {
		machine = o.machine(stateDir)
	}
	h, err := engine.OpenHost(ctx, engine.Config{Target: target, Retain: o.retain, Log: tmuxtest.Log(t), Session: "agent", WaitMax: o.waitMax, StateDir: stateDir, Policy: o.policy, Audit: o.audit, ReviewTimeout: o.review, ApprovalVia: o.via, Approver: o.approver, RestartServer: restartFunc(t, o.restart, target), Host: o.host, Machine: machine, Sandbox: o.sandbox, Ingest: o.ingest})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	s := New(Engine(engine.NewHosts(h)), Options{Version: "test", CheckResults: true})
	server := s.NewServer()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, o.client)
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: o.protocol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Close()
		s.Close()
		h.Close()
	})
	return &env{target: target, h: h, s: s, cs: cs}
}

func restartFunc(t *testing.T, on bool, target tmux.Target) func(context.Context) error {
	if !on {
		return nil
	}
	return func(context.Context) error {
		tmuxtest.Restart(t, target, "agent", 120, 40)
		return nil
	}
}

// result is a decoded tool result.
type result = mcptest.Result

// call calls a tool and decodes its result (a tool error is a result).
func (e *env) call(t *testing.T, name string, args map[string]any) result {
	t.Helper()
	return mcptest.Call(context.Background(), t, e.cs, name, args)
}

// ok calls a tool and fails the test on a tool error.
func (e *env) ok(t *testing.T, name string, args map[string]any) result {
	t.Helper()
	return mcptest.OK(context.Background(), t, e.cs, name, args)
}

// shell creates a pane running bash with the prompt "$ " and waits for it.
func (e *env) shell(t *testing.T) (pane, cursor string) {
	t.Helper()
	r := e.ok(t, "create_pane", map[string]any{})
	pane, cursor = r.Str("paneId"), r.Str("cursor")
	w := e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": cursor, "patterns": []string{promptPattern}, "regex": true, "timeoutMs": 20000})
	if w.Str("outcome") != "matched" {
		t.Fatalf("no prompt in %s: %v", pane, w)
	}
	return pane, w.Str("cursor")
}

// promptPattern matches the end of a bash prompt ("$ " or root's "# ").
const promptPattern = `[$#] $`

// run types a command with Enter and returns the cursor from before it.
func (e *env) run(t *testing.T, pane, command string) string {
	t.Helper()
	return e.ok(t, "type_text", map[string]any{"paneId": pane, "text": command, "submit": true}).Str("cursor")
}

func token(t *testing.T, prefix string) string {
	return fmt.Sprintf("%s-%d", prefix, time.Now().UnixNano()%1000000007)
}

func mustContain(t *testing.T, what, s, sub string) {
	t.Helper()
	if !strings.Contains(s, sub) {
		t.Fatalf("%s %q does not contain %q", what, s, sub)
	}
}

// homeEnv starts a server whose panes see a HOME with the given files.
func homeEnv(t *testing.T, sh string, files map[string]string) *env {
	return homeEnvWith(t, sh, files, envOptions{})
}

// homeEnvWith is homeEnv with more options (a policy).
func homeEnvWith(t *testing.T, sh string, files map[string]string, o envOptions) *env {
	home := t.TempDir()
	for n, b := range files {
		p := filepath.Join(home, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(b), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	target := tmuxtest.ServerWith(t, tmux.SessionSpec{Name: "agent", Width: 120, Height: 40}, home)
	o.target, o.shell = &target, sh
	return newEnv(t, o)
}

// askingCaller is a caller whose client can ask its user and carries no
// answer yet.
type askingCaller struct{}

func (askingCaller) Progress(context.Context, float64, float64, string) {}
func (askingCaller) WantsProgress() bool                                { return false }
func (askingCaller) CanAsk() bool                                       { return true }
func (askingCaller) Answer() (string, bool, bool)                       { return "", false, false }
