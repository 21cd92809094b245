package tools

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/engine"
	"github.com/tmuxmcp/tmuxmcp/internal/mcptest"
	"github.com/tmuxmcp/tmuxmcp/sandbox"
)

// fakeHost is a Host without tmux: the methods a test sets answer, any
// other panics (which the adapter must turn into one failed call).
type fakeHost struct {
	Host // nil: an unset method panics
	wait func(engine.Caller, *engine.WaitForTextRequest) (*engine.WaitForTextResult, error)
	run  func(engine.Caller, *engine.RunShellCommandRequest) (*engine.JobResult, error)
}

func (f *fakeHost) WaitForText(_ context.Context, c engine.Caller, in *engine.WaitForTextRequest) (*engine.WaitForTextResult, error) {
	return f.wait(c, in)
}

func (f *fakeHost) RunShellCommand(_ context.Context, c engine.Caller, in *engine.RunShellCommandRequest) (*engine.JobResult, error) {
	return f.run(c, in)
}

func (f *fakeHost) OnPanes(func([]engine.PaneEntry)) {}
func (f *fakeHost) Recorded() []int                  { return nil }
func (f *fakeHost) CloseStreams()                    {}

// fakeHosts is the local fake host and the names of other hosts, which
// cannot be reached.
type fakeHosts struct {
	Hosts
	local  *fakeHost
	picked []string // the host each call named
	mu     sync.Mutex
}

func (f *fakeHosts) For(_ context.Context, req engine.Routed) (Host, error) {
	f.mu.Lock()
	f.picked = append(f.picked, req.HostName())
	f.mu.Unlock()
	if n := req.HostName(); n != "" && n != "local" {
		return nil, errors.New("host " + n + " cannot be reached now: ssh: connection refused")
	}
	return f.local, nil
}

func (f *fakeHosts) Local() Host           { return f.local }
func (f *fakeHosts) Started() []Host       { return []Host{f.local} }
func (f *fakeHosts) Remote() bool          { return false }
func (f *fakeHosts) Config() engine.Config { return engine.WithDefaults(engine.Config{}) }

// fakeSession serves the tools on hosts to an in-memory MCP client.
func fakeSession(t *testing.T, hosts *fakeHosts, client *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	s := New(hosts, Options{Version: "test", CheckResults: true})
	server := s.NewServer()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := server.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, client).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Close(); s.Close() })
	return cs
}

func matchedAt(in *engine.WaitForTextRequest) *engine.WaitForTextResult {
	m, c := "ready", "ltxc1.00000000000000000000000000000001.5"
	return &engine.WaitForTextResult{Outcome: "matched", Matched: &m, PaneID: in.PaneID, Cursor: &c, EffectiveTimeoutMs: 1000}
}

func TestTheHostArgumentIsTypedAndNamesTheHost(t *testing.T) {
	t.Parallel()
	hosts := &fakeHosts{local: &fakeHost{wait: func(_ engine.Caller, in *engine.WaitForTextRequest) (*engine.WaitForTextResult, error) {
		return matchedAt(in), nil
	}}}
	cs := fakeSession(t, hosts, nil)
	cases := []struct {
		host any
		want string // in the error; "" for a result
	}{
		{nil, ""},
		{"local", ""},
		{42, "host: expected a string, got JSON 42: give a host name such as local"},
		{"", "host is empty: give a host name such as local, or omit host for this machine"},
		{"prod", "host prod cannot be reached now: ssh: connection refused"},
	}
	for _, c := range cases {
		args := map[string]any{"paneId": "%1", "patterns": []string{"ready"}}
		if c.host != nil {
			args["host"] = c.host
		}
		r := mcptest.Call(t.Context(), t, cs, "wait_for_text", args)
		if c.want == "" {
			if r.IsError || r.Str("outcome") != "matched" {
				t.Errorf("host %v: %v", c.host, r)
			}
			continue
		}
		if !r.IsError || !strings.Contains(r.Text, c.want) {
			t.Errorf("host %v: %v, want an error with %q", c.host, r, c.want)
		}
	}
}

func TestBadArgumentsNeverReachTheEngine(t *testing.T) {
	t.Parallel()
	reached := false
	hosts := &fakeHosts{local: &fakeHost{wait: func(_ engine.Caller, in *engine.WaitForTextRequest) (*engine.WaitForTextResult, error) {
		reached = true
		return matchedAt(in), nil
	}}}
	cs := fakeSession(t, hosts, nil)
	cases := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"paneId": "%1", "colour": "red"}, `unknown argument "colour"`},
		{map[string]any{"paneId": "1"}, `paneId "1" is not a tmux pane id: write it as %N`},
		{map[string]any{"paneId": "%1", "timeoutMs": 1.5}, "timeoutMs: 1.5 is not a whole number"},
		{map[string]any{"paneId": "%1", "patterns": []string{}}, "patterns: 0 given"},
		{map[string]any{"paneId": "%1", "maxLines": "ten"}, "maxLines: expected an integer"},
	}
	for _, c := range cases {
		r := mcptest.Call(t.Context(), t, cs, "wait_for_text", c.args)
		if !r.IsError || !strings.Contains(r.Text, c.want) {
			t.Errorf("%v: %v, want an error with %q", c.args, r, c.want)
		}
	}
	if reached {
		t.Fatal("a call with bad arguments reached the engine")
	}
}

func TestAFailureInsideTheEngineCostsOneCall(t *testing.T) {
	t.Parallel()
	cs := fakeSession(t, &fakeHosts{local: &fakeHost{}}, nil) // every method panics
	r := mcptest.Call(t.Context(), t, cs, "capture_pane", map[string]any{"paneId": "%1"})
	if !r.IsError || !strings.Contains(r.Text, "capture_pane failed inside tmuxmcp (a bug") {
		t.Fatalf("a panic: %v", r)
	}
	if _, err := cs.ListTools(t.Context(), nil); err != nil {
		t.Fatalf("the server did not survive: %v", err)
	}
}

func TestAQuestionForTheUserGoesThroughTheClientAndItsAnswerComesBack(t *testing.T) {
	t.Parallel()
	var answers []bool
	hosts := &fakeHosts{local: &fakeHost{run: func(c engine.Caller, in *engine.RunShellCommandRequest) (*engine.JobResult, error) {
		state, approved, ok := c.Answer()
		if !ok {
			if !c.CanAsk() {
				return nil, errors.New("the client cannot ask")
			}
			return nil, &engine.ClientAsk{State: "q1", Message: "Run " + in.Command + "?"}
		}
		if state != "q1" {
			return nil, errors.New("the answer came back with state " + state)
		}
		answers = append(answers, approved)
		return &engine.JobResult{JobID: "01j", Status: "completed", Decision: "approved", Cursor: ptr("ltxc1.00000000000000000000000000000001.0"), Host: "local", LaunchOutcome: "STARTED", OutputFileComplete: true}, nil
	}}}
	asked := ""
	cs := fakeSession(t, hosts, &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked = req.Params.Message
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
	}})
	r := mcptest.Call(t.Context(), t, cs, "run_shell_command", map[string]any{"command": "make deploy"})
	if r.IsError || r.Str("decision") != "approved" {
		t.Fatalf("result: %v", r)
	}
	if asked != "Run make deploy?" || len(answers) != 1 || !answers[0] {
		t.Fatalf("asked %q, answers %v", asked, answers)
	}
}

func TestAWaitsProgressReachesAClientThatAskedForIt(t *testing.T) {
	t.Parallel()
	hosts := &fakeHosts{local: &fakeHost{wait: func(c engine.Caller, in *engine.WaitForTextRequest) (*engine.WaitForTextResult, error) {
		if !c.WantsProgress() {
			return nil, errors.New("no progress token")
		}
		c.Progress(context.Background(), 500, 1000, "waiting on %1: 12 bytes of output so far")
		return matchedAt(in), nil
	}}}
	got := make(chan string, 1)
	cs := fakeSession(t, hosts, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
		got <- req.Params.Message
	}})
	r := mcptest.CallParams(t.Context(), t, cs, &mcp.CallToolParams{Name: "wait_for_text", Arguments: map[string]any{"paneId": "%1"}, Meta: mcp.Meta{"progressToken": "p1"}})
	if r.IsError {
		t.Fatal(r)
	}
	if msg := <-got; !strings.Contains(msg, "12 bytes of output") {
		t.Fatalf("progress: %q", msg)
	}
}

func TestTheInstructionsTellAnAgentItsPanesAreSandboxed(t *testing.T) {
	if got := sandboxInstructions(sandbox.Config{}); got != "" {
		t.Fatalf("without a sandbox the instructions say: %q", got)
	}
	got := sandboxInstructions(sandbox.Config{Mode: sandbox.Workspace, Workspaces: []string{"/src/app"}})
	for _, want := range []string{"read-only but /src/app", "no network", "escalate: true", "Read-only file system"} {
		if !strings.Contains(got, want) {
			t.Errorf("the instructions miss %q: %s", want, got)
		}
	}
}
