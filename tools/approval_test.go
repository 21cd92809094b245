package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/audit"
	"github.com/tmuxmcp/tmuxmcp/engine"
	"github.com/tmuxmcp/tmuxmcp/host"
	"github.com/tmuxmcp/tmuxmcp/internal/mcptest"
	"github.com/tmuxmcp/tmuxmcp/internal/tmuxtest"
	"github.com/tmuxmcp/tmuxmcp/machine"
	"github.com/tmuxmcp/tmuxmcp/policy"
)

func TestPolicyBlocksAllowsAndRefusesToAskNobody(t *testing.T) {
	t.Parallel()
	pol, err := policy.New(policy.Ask, []policy.Rule{
		{Name: "no rm", Action: policy.Deny, Command: `\brm\b`},
		{Name: "echo ok", Action: policy.Allow, Command: `^echo `},
	})
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "audit.jsonl")
	al, err := audit.Open(logPath)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, envOptions{policy: pol, audit: al})
	pane, before := e.shell(t)

	r := e.runCmd(t, map[string]any{"paneId": pane, "command": "echo API_TOKEN=s3cr3t allowed"})
	if r.Str("decision") != "auto-approved" || r.Str("output") != "API_TOKEN=s3cr3t allowed\n" {
		t.Fatalf("allow rule: %v", r)
	}
	id := "abababababababababababababababab"
	r = e.runCmd(t, map[string]any{"paneId": pane, "command": "rm -rf /tmp/nothing", "requestId": id})
	if r.Str("decision") != "blocked" || r.Str("status") != "not_started" || r.Str("launchOutcome") != "NOT_STARTED" || r.M["exitCode"] != nil {
		t.Fatalf("deny rule: %v", r)
	}
	if again := e.runCmd(t, map[string]any{"paneId": pane, "command": "rm -rf /tmp/nothing", "requestId": id}); again.Str("jobId") != r.Str("jobId") {
		t.Fatalf("retry of a blocked request: %v", again)
	}
	x := e.call(t, "run_shell_command", map[string]any{"paneId": pane, "command": "ls /"})
	if !x.IsError || !strings.Contains(x.Text, "OwnerReviewUnavailable") || !strings.Contains(x.Text, "OWNER_SESSION_UNAVAILABLE") || !strings.Contains(x.Text, "NOT_STARTED") {
		t.Fatalf("ask with nobody to ask: %v", x)
	}
	// type_text that submits is held to the same rules; typing alone is not.
	if y := e.call(t, "type_text", map[string]any{"paneId": pane, "text": "rm -rf /tmp/x", "submit": true}); !y.IsError || !strings.Contains(y.Text, "blocked") {
		t.Fatalf("type_text submit: %v", y)
	}
	if y := e.call(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"ls /", "Enter"}}); !y.IsError || !strings.Contains(y.Text, "OwnerReviewUnavailable") {
		t.Fatalf("send_keys submit: %v", y)
	}
	// Nothing but the allowed command reached the pane.
	out := e.ok(t, "capture_since", map[string]any{"paneId": pane, "cursor": before}).Str("output")
	if strings.Contains(out, "rm -rf") || strings.Contains(out, "ls /") {
		t.Fatalf("refused input reached the pane: %q", out)
	}
	_ = al.Close()
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	log := string(b)
	for _, want := range []string{`"decision":"auto-approved"`, `"decidedBy":"policy:echo ok"`, `"decision":"blocked"`, `"decidedBy":"policy:no rm"`, `"event":"completed"`, `"reason":"OWNER_SESSION_UNAVAILABLE"`, `"host":"local"`} {
		if !strings.Contains(log, want) {
			t.Errorf("audit log lacks %s:\n%s", want, log)
		}
	}
	if strings.Contains(log, "s3cr3t") {
		t.Errorf("audit log holds a secret:\n%s", log)
	}
}

func TestAskingAPersonInTmux(t *testing.T) {
	// Not parallel: the person's key must reach the popup within the 1 s
	// review, which other tests' load would stretch.
	target := tmuxtest.Server(t, "agent", 120, 40)
	ctx := context.Background()
	if _, err := target.Run(ctx, "set-hook", "-g", "client-attached", "wait-for -S human-attached"); err != nil {
		t.Fatal(err)
	}
	human := tmuxtest.AttachHuman(t, target, "agent", 120, 40)
	tmuxtest.WaitSignal(t, target, "human-attached", "the person's client to attach")
	pol, _ := policy.New(policy.Ask, nil)
	logPath := filepath.Join(t.TempDir(), "audit.jsonl")
	al, _ := audit.Open(logPath)
	e := newEnv(t, envOptions{target: &target, policy: pol, audit: al, review: time.Second})
	pane, before := e.shell(t)
	file := filepath.Join(t.TempDir(), "ran")

	answer := func(cmd, key string) result {
		t.Helper()
		mark := human.Mark()
		rid := fmt.Sprintf("%032x", time.Now().UnixNano())
		r := e.runCmd(t, map[string]any{"paneId": pane, "command": cmd, "waitMs": 100, "reason": "testing approval", "requestId": rid})
		if r.Str("status") != "not_started" || r.Str("decision") != "pending" {
			t.Fatalf("%s: %v", cmd, r)
		}
		// A retry with the requestId gets the pending job, not a second prompt.
		if again := e.runCmd(t, map[string]any{"paneId": pane, "command": cmd, "waitMs": 0, "requestId": rid}); again.Str("jobId") != r.Str("jobId") {
			t.Fatalf("retry: %v", again)
		}
		if !human.WaitFor(mark, "tmuxmcp asks", 20*time.Second) {
			t.Fatalf("no prompt on the person's client:\n%q", human.Screen())
		}
		// The control connection keeps answering while the prompt is open:
		// were it blocked by the popup, this call would return only when the
		// review times out, and the key typed below would answer nothing.
		e.ok(t, "list_panes", map[string]any{})
		if key != "" {
			if err := human.Type(key); err != nil {
				t.Fatal(err)
			}
		}
		return e.ok(t, "await_command_result", map[string]any{"jobId": r.Str("jobId"), "waitMs": 20000})
	}

	if r := answer("echo once >> "+file, "y"); r.Str("decision") != "approved" || r.Str("status") != "completed" || r.Num("exitCode") != 0 {
		t.Fatalf("y: %v", r)
	}
	if r := answer("echo denied >> "+file, "n"); r.Str("decision") != "denied" || r.M["exitCode"] != nil || r.Str("launchOutcome") != "NOT_STARTED" {
		t.Fatalf("n: %v", r)
	}
	if r := answer("echo silent >> "+file, ""); r.Str("decision") != "denied-timeout" || r.M["exitCode"] != nil {
		t.Fatalf("silence: %v", r)
	}
	b, _ := os.ReadFile(file)
	if string(b) != "once\n" {
		t.Fatalf("file %q: only the approved command may run, once", b)
	}
	out := e.ok(t, "capture_since", map[string]any{"paneId": pane, "cursor": before}).Str("output")
	if strings.Contains(out, "denied") || strings.Contains(out, "silent") {
		t.Fatalf("refused commands reached the pane: %q", out)
	}
	_ = al.Close()
	log, _ := os.ReadFile(logPath)
	for _, want := range []string{`"decision":"approved","decidedBy":"tmux:/dev/pts`, `"decision":"denied","decidedBy":"tmux:/dev/pts`, `"decision":"denied-timeout"`, `"event":"completed"`} {
		if !strings.Contains(string(log), want) {
			t.Errorf("audit log lacks %s:\n%s", want, log)
		}
	}
}

func TestAskWithNobodyAttached(t *testing.T) {
	t.Parallel()
	pol, _ := policy.New(policy.Ask, nil)
	e := newEnv(t, envOptions{policy: pol})
	pane, before := e.shell(t)
	x := e.call(t, "run_shell_command", map[string]any{"paneId": pane, "command": "echo nope"})
	if !x.IsError || !strings.Contains(x.Text, "OWNER_SESSION_UNAVAILABLE") || !strings.Contains(x.Text, "NOT_STARTED") {
		t.Fatalf("got %v", x)
	}
	if out := e.ok(t, "capture_since", map[string]any{"paneId": pane, "cursor": before}).Str("output"); out != "" {
		t.Fatalf("something was typed: %q", out)
	}
}

func TestAskingThroughTheMCPClient(t *testing.T) {
	t.Parallel()
	for _, proto := range []string{"", "2025-11-25"} {
		t.Run("protocol="+proto, func(t *testing.T) { t.Parallel(); testAskingThroughTheMCPClient(t, proto) })
	}
}

func testAskingThroughTheMCPClient(t *testing.T, proto string) {
	pol, _ := policy.New(policy.Ask, nil)
	answer := "accept"
	e := newEnv(t, envOptions{policy: pol, protocol: proto, client: &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if !strings.Contains(req.Params.Message, "echo") {
				return nil, fmt.Errorf("message does not show the command: %q", req.Params.Message)
			}
			return &mcp.ElicitResult{Action: answer, Content: map[string]any{"approve": answer == "accept"}}, nil
		},
	}})
	pane, before := e.shell(t)
	r := e.runCmd(t, map[string]any{"paneId": pane, "command": "echo approved-run"})
	if r.Str("decision") != "approved" || r.Str("output") != "approved-run\n" {
		t.Fatalf("accept: %v", r)
	}
	answer = "decline"
	r = e.runCmd(t, map[string]any{"paneId": pane, "command": "echo declined-run"})
	if r.Str("decision") != "denied" || r.Str("status") != "not_started" || r.M["exitCode"] != nil {
		t.Fatalf("decline: %v", r)
	}
	// An answer given for command A cannot approve command B.
	_, err := e.h.RunShellCommand(t.Context(), askingCaller{}, &engine.RunShellCommandRequest{Command: "echo A", PaneID: &pane})
	var ask *engine.ClientAsk
	if !errors.As(err, &ask) {
		t.Fatalf("echo A was not put to the client: %v", err)
	}
	state := ask.State
	x := mcptest.CallParams(t.Context(), t, e.cs, &mcp.CallToolParams{Name: "run_shell_command",
		Arguments:      map[string]any{"paneId": pane, "command": "echo B-replayed"},
		RequestState:   state,
		InputResponses: mcp.InputResponseMap{"approval": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}},
	})
	if !x.IsError || !strings.Contains(x.Text, "another command") {
		t.Fatalf("replayed answer: %v", x)
	}
	out := e.ok(t, "capture_since", map[string]any{"paneId": pane, "cursor": before}).Str("output")
	if strings.Contains(out, "declined-run\n") || strings.Contains(out, "B-replayed") {
		t.Fatalf("a refused command ran: %q", out)
	}
}

func TestPolicyJudgesTheWholeLineEnterSubmits(t *testing.T) {
	t.Parallel()
	pol, _ := policy.New(policy.Allow, []policy.Rule{{Name: "no rm", Action: policy.Deny, Command: `\brm\b`}})
	e := newEnv(t, envOptions{policy: pol})
	pane, _ := e.shell(t)
	victim := t.TempDir()
	e.ok(t, "type_text", map[string]any{"paneId": pane, "text": "rm -rf " + victim})
	if x := e.call(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"Enter"}}); !x.IsError || !strings.Contains(x.Text, "blocked") {
		t.Fatalf("Enter after typed rm: %v", x)
	}
	if _, err := os.Stat(victim); err != nil {
		t.Fatalf("the directory is gone: %v", err)
	}
	// Discarding the line (C-u) is not a submission; a later command runs.
	e.ok(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"C-u"}})
	if r := e.runCmd(t, map[string]any{"paneId": pane, "command": "echo fine"}); r.Str("output") != "fine\n" {
		t.Fatalf("after C-u: %v", r)
	}
}

func TestPendingFreshPaneJobHasAJobID(t *testing.T) {
	t.Parallel()
	target := tmuxtest.Server(t, "agent", 120, 40)
	if _, err := target.Run(t.Context(), "set-hook", "-g", "client-attached", "wait-for -S human-attached"); err != nil {
		t.Fatal(err)
	}
	human := tmuxtest.AttachHuman(t, target, "agent", 120, 40)
	tmuxtest.WaitSignal(t, target, "human-attached", "the person's client to attach")
	pol, _ := policy.New(policy.Ask, nil)
	e := newEnv(t, envOptions{target: &target, policy: pol, review: 20 * time.Second})
	mark := human.Mark()
	r := e.runCmd(t, map[string]any{"command": "echo hidden #\rHARMLESS", "waitMs": 0})
	if r.Str("jobId") == "" || r.M["paneId"] != nil || r.Str("decision") != "pending" {
		t.Fatalf("pending fresh-pane job: %v", r)
	}
	if !human.WaitFor(mark, `\x0d`, 20*time.Second) {
		t.Fatalf("the popup does not show the carriage return escaped:\n%q", human.Screen()[mark:])
	}
	if err := human.Type("n"); err != nil {
		t.Fatal(err)
	}
	if a := e.ok(t, "await_command_result", map[string]any{"jobId": r.Str("jobId"), "waitMs": 20000}); a.Str("decision") != "denied" {
		t.Fatalf("n: %v", a)
	}
}

func TestPolicyJudgesProgramsCreatePaneStarts(t *testing.T) {
	t.Parallel()
	pol, _ := policy.New(policy.Allow, []policy.Rule{{Name: "no rm", Action: policy.Deny, Command: `\brm\b`}})
	e := newEnv(t, envOptions{policy: pol})
	victim := t.TempDir()
	x := e.call(t, "create_pane", map[string]any{"argv": []string{"rm", "-rf", victim}})
	if !x.IsError || !strings.Contains(x.Text, "blocked") {
		t.Fatalf("create_pane argv rm: %v", x)
	}
	if _, err := os.Stat(victim); err != nil {
		t.Fatalf("the program ran: %v", err)
	}
	e.ok(t, "create_pane", map[string]any{"argv": []string{"sleep", "5"}})
}

// A fresh-pane job a person approves runs in its pane and is awaited to
// its end like any other: the review's run goes on as the job's.
func TestApprovedFreshPaneJobRunsAndIsAwaited(t *testing.T) {
	t.Parallel()
	target := tmuxtest.Server(t, "agent", 120, 40)
	if _, err := target.Run(t.Context(), "set-hook", "-g", "client-attached", "wait-for -S human-attached"); err != nil {
		t.Fatal(err)
	}
	human := tmuxtest.AttachHuman(t, target, "agent", 120, 40)
	tmuxtest.WaitSignal(t, target, "human-attached", "the person's client to attach")
	pol, _ := policy.New(policy.Ask, nil)
	e := newEnv(t, envOptions{target: &target, policy: pol, review: 20 * time.Second})
	for _, c := range []struct{ cmd, want string }{{"echo approved-fresh; exit 3", "pane_died"}, {"echo approved-fresh", "completed"}} {
		mark := human.Mark()
		r := e.runCmd(t, map[string]any{"command": c.cmd, "waitMs": 0})
		if !human.WaitFor(mark, "tmuxmcp asks", 20*time.Second) {
			t.Fatalf("no prompt:\n%q", human.Screen()[mark:])
		}
		if err := human.Type("y"); err != nil {
			t.Fatal(err)
		}
		a := e.ok(t, "await_command_result", map[string]any{"jobId": r.Str("jobId"), "waitMs": 30000})
		if a.Str("status") != c.want || a.Str("output") != "approved-fresh\n" || a.Str("decision") != "approved" {
			t.Fatalf("%s: %v", c.cmd, a)
		}
		if c.want == "pane_died" && a.Num("exitCode") != 3 {
			t.Fatalf("exit 3 in an approved fresh pane: %v", a)
		}
	}
}

// farMachine is this machine standing in for a remote host whose
// directories resolve differently: its panes run here, but ResolveDir
// answers as the host would.
type farMachine struct {
	machine.Local
	resolve func(dir string) (string, error)
}

func (m farMachine) ResolveDir(_ context.Context, dir string) (string, error) { return m.resolve(dir) }

func TestAPolicyJudgesARemoteHostWhereItsPanesRun(t *testing.T) {
	t.Parallel()
	pol, err := policy.New(policy.Ask, []policy.Rule{
		{Name: "prod srv", Action: policy.Deny, CWD: `^/srv/prod(/|$)`, Host: `^prod$`},
		{Name: "local echo", Action: policy.Deny, Command: `^echo `, Host: `^local$`},
		{Name: "echo ok", Action: policy.Allow, Command: `^echo `},
	})
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "audit.jsonl")
	al, err := audit.Open(logPath)
	if err != nil {
		t.Fatal(err)
	}
	var resolveFails, unreachable atomic.Bool
	e := newEnv(t, envOptions{policy: pol, audit: al, host: "prod", machine: func(stateDir string) machine.Machine {
		return farMachine{Local: machine.Local{Dir: filepath.Join(stateDir, "jobs")}, resolve: func(dir string) (string, error) {
			switch {
			case unreachable.Load():
				return "", fmt.Errorf("host prod: %w", context.DeadlineExceeded)
			case resolveFails.Load():
				return "", fmt.Errorf("host prod: resolve %s: %w", dir, host.ErrNoDirectory)
			}
			return "/srv/prod", nil // every directory is a link to /srv/prod there
		}}
	}})
	pane, _ := e.shell(t)
	r := e.runCmd(t, map[string]any{"paneId": pane, "command": "echo on prod"})
	if r.Str("decision") != "blocked" {
		t.Fatalf("the pane's directory was not judged as the host resolves it: %v", r)
	}
	// Unresolvable there: judged cleaned, never as this machine resolves it.
	resolveFails.Store(true)
	r = e.runCmd(t, map[string]any{"paneId": pane, "command": "echo on prod", "cwd": "/tmp/../tmp"})
	if r.Str("decision") != "auto-approved" || r.Str("output") != "on prod\n" {
		t.Fatalf("a host's rule for local applied on prod, or the cwd was not kept cleaned: %v", r)
	}
	// The host did not answer: a cwd rule could not be applied, so the
	// line is asked, never run by default (nobody can be asked here).
	unreachable.Store(true)
	if r := e.call(t, "run_shell_command", map[string]any{"paneId": pane, "command": "echo on prod", "cwd": "/tmp"}); !r.IsError || !strings.Contains(r.Text, "OwnerReviewUnavailable") {
		t.Fatalf("a cwd the host could not resolve, under a cwd rule: %v", r)
	}
	_ = al.Close()
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	log := string(b)
	if strings.Count(log, `"host":"prod"`) != strings.Count(log, "\n") || !strings.Contains(log, `"decidedBy":"policy:prod srv"`) {
		t.Errorf("every line must name host prod:\n%s", log)
	}
}
