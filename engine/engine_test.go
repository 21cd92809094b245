package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/approval"
	"github.com/tmuxmcp/tmuxmcp/internal/tmuxtest"
	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/policy"
	"github.com/tmuxmcp/tmuxmcp/stream"
)

func TestMain(m *testing.M) { tmuxtest.Main(m) }

// openHost opens a Host on a private tmux server (closed with the test).
func openHost(t *testing.T, cfg Config) *Host {
	t.Helper()
	target := tmuxtest.Server(t, "agent", 120, 40)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg.Session, cfg.Target = "agent", target
	if cfg.StateDir == "" {
		cfg.StateDir = t.TempDir()
	}
	if cfg.Log == nil {
		cfg.Log = tmuxtest.Log(t)
	}
	h, err := OpenHost(ctx, cfg)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(h.Close)
	return h
}

// newShell creates a pane and waits for its shell to be ready.
func newShell(t *testing.T, h *Host) string {
	t.Helper()
	wait := int64(30000)
	p, err := h.CreatePane(t.Context(), nil, &CreatePaneRequest{WaitMs: &wait})
	if err != nil {
		t.Fatal(err)
	}
	if p.Ready == nil || !*p.Ready {
		t.Fatalf("the new pane's shell is not ready: %+v", p)
	}
	return p.PaneID
}

func TestACommandRunsOnceAndItsRetryReturnsTheSameJob(t *testing.T) {
	t.Parallel()
	h := openHost(t, Config{})
	pane := newShell(t, h)
	wait, id := int64(30000), "0123456789abcdef0123456789abcdef"
	req := &RunShellCommandRequest{Command: "echo ran-$((6*7)); false", PaneID: &pane, WaitMs: &wait, RequestID: &id}
	first, err := h.RunShellCommand(t.Context(), nil, req)
	if err != nil {
		t.Fatal(err)
	}
	if first.Status != string(jobs.Completed) || first.ExitCode == nil || *first.ExitCode != 1 || first.Output != "ran-42\n" {
		t.Fatalf("first run: %+v", first)
	}
	again, err := h.RunShellCommand(t.Context(), nil, req)
	if err != nil {
		t.Fatal(err)
	}
	if again.JobID != first.JobID {
		t.Fatalf("the retry made job %s, not the first call's %s", again.JobID, first.JobID)
	}
	other := *req
	other.Command = "echo something else"
	if _, err := h.RunShellCommand(t.Context(), nil, &other); err == nil || !strings.Contains(err.Error(), "different command") {
		t.Fatalf("a requestId reused for another command: %v", err)
	}
}

func TestAWaitIsWokenByTheOutputItWaitsFor(t *testing.T) {
	t.Parallel()
	h := openHost(t, Config{})
	pane := newShell(t, h)
	timeout := int64(30000)
	now, err := h.CapturePane(t.Context(), nil, &CapturePaneRequest{PaneID: pane})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan *WaitForTextResult, 1)
	go func() {
		// From the cursor: output printed before the wait begins counts.
		r, err := h.WaitForText(t.Context(), nil, &WaitForTextRequest{PaneID: pane, Patterns: []string{"ready-7"}, Cursor: &now.Cursor, TimeoutMs: &timeout})
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	if _, err := h.TypeText(t.Context(), nil, &TypeTextRequest{PaneID: pane, Text: "echo ready-$((3+4))", Submit: true}); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r == nil || r.Outcome != string(stream.Matched) || r.Matched == nil || *r.Matched != "ready-7" {
		t.Fatalf("wait: %+v", r)
	}
}

func TestAPolicyDenialRunsNothingAndIsRecorded(t *testing.T) {
	t.Parallel()
	pol, err := policy.New(policy.Allow, []policy.Rule{{Name: "no rm", Action: policy.Deny, Command: `\brm\b`}})
	if err != nil {
		t.Fatal(err)
	}
	h := openHost(t, Config{Policy: pol})
	pane := newShell(t, h)
	r, err := h.RunShellCommand(t.Context(), nil, &RunShellCommandRequest{Command: "rm -rf /tmp/nothing-here", PaneID: &pane})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != string(jobs.NotStarted) || r.Decision != string(approval.Blocked) || r.LaunchOutcome != "NOT_STARTED" {
		t.Fatalf("denied command: %+v", r)
	}
	if j, ok := h.Job(r.JobID); !ok || j.Decision != string(approval.Blocked) {
		t.Fatalf("the refusal was not recorded: %+v", j)
	}
}

func TestACommandThatNeedsAPersonIsPutToTheCallersClient(t *testing.T) {
	t.Parallel()
	pol, _ := policy.New(policy.Ask, nil)
	h := openHost(t, Config{Policy: pol, ApprovalVia: []string{"elicitation"}})
	pane := newShell(t, h)
	req := &RunShellCommandRequest{Command: "echo asked", PaneID: &pane}
	_, err := h.RunShellCommand(t.Context(), nil, req)
	if err == nil || !strings.Contains(err.Error(), "OWNER_SESSION_UNAVAILABLE") {
		t.Fatalf("with nobody to ask: %v", err)
	}
	_, err = h.RunShellCommand(t.Context(), asker{can: true}, req)
	var ask *ClientAsk
	if !errors.As(err, &ask) || !strings.Contains(ask.Message, "echo asked") {
		t.Fatalf("not put to the client: %v", err)
	}
	r, err := h.RunShellCommand(t.Context(), asker{can: true, state: ask.State, approved: true}, req)
	if err != nil || r.Decision != string(approval.Approved) {
		t.Fatalf("approved: %+v %v", r, err)
	}
	if _, err := h.RunShellCommand(t.Context(), asker{can: true, state: ask.State, approved: true}, req); err == nil || !strings.Contains(err.Error(), "denied-timeout") {
		t.Fatalf("an answer used twice: %v", err)
	}
}

func TestCancelStopsARunningCommand(t *testing.T) {
	t.Parallel()
	h := openHost(t, Config{})
	pane := newShell(t, h)
	r, err := h.RunShellCommand(t.Context(), nil, &RunShellCommandRequest{Command: "sleep 300", PaneID: &pane, Background: true})
	if err != nil || r.Status != string(jobs.Running) {
		t.Fatalf("start: %+v %v", r, err)
	}
	c, err := h.CancelCommand(t.Context(), nil, &CancelCommandRequest{JobID: r.JobID})
	if err != nil {
		t.Fatal(err)
	}
	if c.Status != string(jobs.Interrupted) {
		t.Fatalf("cancelled: %+v", c)
	}
}

// asker is a Caller whose client can ask its user, with or without an
// answer.
type asker struct {
	can      bool
	state    string
	approved bool
}

func (asker) Progress(context.Context, float64, float64, string) {}
func (asker) WantsProgress() bool                                { return false }
func (a asker) CanAsk() bool                                     { return a.can }
func (a asker) Answer() (string, bool, bool)                     { return a.state, a.approved, a.state != "" }
