package engine

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/internal/nettest"
	"github.com/tmuxmcp/tmuxmcp/internal/testdir"
	"github.com/tmuxmcp/tmuxmcp/internal/tmuxtest"
	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/sandbox"
	"github.com/tmuxmcp/tmuxmcp/shell"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// needBwrap skips a test on a machine where bubblewrap cannot run.
func needBwrap(t *testing.T) {
	t.Helper()
	s, err := sandbox.New(sandbox.Config{Mode: sandbox.ReadOnly})
	if err == nil {
		err = s.Preflight(t.Context())
	}
	if err != nil {
		t.Skipf("bubblewrap cannot run here: %v", err)
	}
}

// run runs command in pane (a fresh pane when "") and waits for its end.
func run(t *testing.T, h *Host, pane, command string) *JobResult {
	t.Helper()
	wait := int64(60000)
	req := &RunShellCommandRequest{Command: command, WaitMs: &wait}
	if pane != "" {
		req.PaneID = &pane
	}
	r, err := h.RunShellCommand(t.Context(), nil, req)
	if err != nil {
		t.Fatalf("%s: %v", command, err)
	}
	if r.Status != string(jobs.Completed) {
		t.Fatalf("%s: %+v", command, r)
	}
	return r
}

func exitCode(r *JobResult) int {
	if r.ExitCode == nil {
		return -1
	}
	return *r.ExitCode
}

// sandboxedHost opens a host whose panes run in a sandbox, with its state
// directory outside /tmp.
func sandboxedHost(t *testing.T, cfg sandbox.Config) *Host {
	t.Helper()
	needBwrap(t)
	return openHost(t, Config{Sandbox: cfg, StateDir: testdir.Outside(t)})
}

func TestASandboxedPaneWritesOnlyInItsWorkspaceAndHasItsOwnTmp(t *testing.T) {
	t.Parallel()
	ws, outside := testdir.Outside(t), testdir.Outside(t)
	marker := filepath.Join("/tmp", "tmuxmcp-host-only-"+filepath.Base(ws))
	if err := os.WriteFile(marker, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(marker)
	h := sandboxedHost(t, sandbox.Config{Mode: sandbox.Workspace, Workspaces: []string{ws}})
	wait := int64(30000)
	p, err := h.CreatePane(t.Context(), nil, &CreatePaneRequest{WaitMs: &wait})
	if err != nil || p.Ready == nil || !*p.Ready || p.Sandbox != "workspace" || !p.Integrated {
		t.Fatalf("create_pane: %+v %v", p, err)
	}
	if r := run(t, h, p.PaneID, "echo in > "+ws+"/inside && echo wrote"); exitCode(r) != 0 || !strings.Contains(r.Output, "wrote") {
		t.Fatalf("a write in the workspace: %+v", r)
	}
	if r := run(t, h, p.PaneID, "echo out > "+outside+"/outside"); exitCode(r) == 0 || !strings.Contains(r.Output, "Read-only file system") {
		t.Fatalf("a write outside the workspace: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(outside, "outside")); err == nil {
		t.Fatal("a file was written outside the workspace")
	}
	if b, err := os.ReadFile(filepath.Join(ws, "inside")); err != nil || string(b) != "in\n" {
		t.Fatalf("the workspace file: %q %v", b, err)
	}
	if r := run(t, h, p.PaneID, "ls "+marker+"; echo tmp > /tmp/mine && cat /tmp/mine"); exitCode(r) != 0 || strings.Contains(r.Output, marker+"\n") || !strings.Contains(r.Output, "tmp") {
		t.Fatalf("/tmp inside: %+v", r)
	}
	if _, err := os.Stat("/tmp/mine"); err == nil {
		t.Error("the sandbox's /tmp is the host's")
	}
	listed, err := h.ListPanes(t.Context(), nil, &ListPanesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	modes := map[string]string{}
	for _, lp := range listed.Panes {
		modes[lp.PaneID] = lp.Sandbox
	}
	if modes[p.PaneID] != "workspace" || modes["%0"] != "unsandboxed" {
		t.Fatalf("list_panes sandbox: %v", modes)
	}
}

func TestASandboxedPaneReachesNeitherTmuxNorSecretsNorOtherProcesses(t *testing.T) {
	t.Parallel()
	state := testdir.Outside(t)
	home := testdir.Outside(t)
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(filepath.Join(home, ".ssh", "id_test"), []byte("ssh-secret"), 0o600)
	token := filepath.Join(testdir.Outside(t), "token")
	_ = os.WriteFile(token, []byte("token-secret"), 0o600)
	_ = os.WriteFile(filepath.Join(state, "state-secret"), []byte("state-secret"), 0o600)
	needBwrap(t)
	h := openHost(t, Config{Sandbox: sandbox.Config{Mode: sandbox.ReadOnly, Home: home, Hide: []string{token}}, StateDir: state})
	socket, err := h.fleet.ServerSocket(t.Context())
	if err != nil || socket != h.opts.Target.SocketFile() {
		t.Fatalf("the socket is %q (%v), the sandbox hides %q", socket, err, h.opts.Target.SocketFile())
	}
	sleeper := exec.Command("sleep", "300")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sleeper.Process.Kill(); _ = sleeper.Wait() }()
	pane := newShell(t, h)
	pid := strconv.Itoa(sleeper.Process.Pid)
	r := run(t, h, pane, fmt.Sprintf(`echo "TMUX=${TMUX-unset}"; tmux -S %s ls; echo "tmux:$?"; kill %s; echo "kill:$?"; cat %s %s %s; echo "cat:$?"`,
		socket, pid, filepath.Join(state, "state-secret"), token, filepath.Join(home, ".ssh", "id_test")))
	for _, want := range []string{"TMUX=unset", "tmux:1", "kill:1"} {
		if !strings.Contains(r.Output, want) {
			t.Errorf("missing %q in %q", want, r.Output)
		}
	}
	for _, secret := range []string{"state-secret\n", "token-secret", "ssh-secret"} {
		if strings.Contains(strings.ReplaceAll(r.Output, "/state-secret", ""), secret) {
			t.Errorf("read %q from inside: %q", secret, r.Output)
		}
	}
	if err := sleeper.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("the process outside was signalled: %v", err)
	}
}

func TestLoopbackOnTheHostIsReachedOnlyWithSandboxNetwork(t *testing.T) {
	t.Parallel()
	port := nettest.Greeter(t, "reached-the-host")
	probe := fmt.Sprintf(`bash -c 'exec 3<>/dev/tcp/127.0.0.1/%d && cat <&3'`, port)
	for _, network := range []bool{false, true} {
		h := sandboxedHost(t, sandbox.Config{Mode: sandbox.ReadOnly, Network: network})
		r := run(t, h, newShell(t, h), probe)
		if got := strings.Contains(r.Output, "reached-the-host"); got != network {
			t.Errorf("network %v: reached %v: %+v", network, got, r)
		}
	}
}

func TestWithoutBwrapNoPaneIsCreatedAndNothingRuns(t *testing.T) {
	t.Parallel()
	state := testdir.Outside(t)
	h := openHost(t, Config{Sandbox: sandbox.Config{Mode: sandbox.ReadOnly, Path: testdir.Outside(t)}, StateDir: state})
	before, err := h.ListPanes(t.Context(), nil, &ListPanesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(state, "ran")
	for _, req := range []*CreatePaneRequest{{}, {Argv: []string{"touch", marker}}} {
		_, err := h.CreatePane(t.Context(), nil, req)
		if err == nil || !strings.Contains(err.Error(), "launchOutcome=NOT_STARTED") || !strings.Contains(err.Error(), "not found") || !strings.Contains(err.Error(), "apt-get install bubblewrap") {
			t.Fatalf("create_pane %v without bwrap: %v", req.Argv, err)
		}
	}
	_, err = h.RunShellCommand(t.Context(), nil, &RunShellCommandRequest{Command: "touch " + marker})
	if err == nil || !strings.Contains(err.Error(), "launchOutcome=NOT_STARTED") {
		t.Fatalf("a fresh-pane command without bwrap: %v", err)
	}
	after, err := h.ListPanes(t.Context(), nil, &ListPanesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Panes) != len(before.Panes) {
		t.Fatalf("panes before %d, after %d", len(before.Panes), len(after.Panes))
	}
	time.Sleep(300 * time.Millisecond) // a pane started by mistake would have run by now
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("something ran")
	}
}

func TestExitStatusCancelAndFreshPanesWorkInTheSandbox(t *testing.T) {
	t.Parallel()
	ws := testdir.Outside(t)
	h := sandboxedHost(t, sandbox.Config{Mode: sandbox.Workspace, Workspaces: []string{ws}})
	pane := newShell(t, h)
	if r := run(t, h, pane, "(exit 7)"); exitCode(r) != 7 {
		t.Fatalf("exit status: %+v", r)
	}
	// Through a job script (a cwd), whose status file is in the pane's
	// own job directory.
	wait, cwd := int64(60000), ws
	r, err := h.RunShellCommand(t.Context(), nil, &RunShellCommandRequest{Command: "pwd; (exit 4)", PaneID: &pane, CWD: &cwd, WaitMs: &wait})
	if err != nil || r.Status != string(jobs.Completed) || exitCode(r) != 4 || !strings.Contains(r.Output, ws) {
		t.Fatalf("a job script: %+v %v", r, err)
	}
	bg, err := h.RunShellCommand(t.Context(), nil, &RunShellCommandRequest{Command: "sleep 300", PaneID: &pane, Background: true})
	if err != nil {
		t.Fatal(err)
	}
	c, err := h.CancelCommand(t.Context(), nil, &CancelCommandRequest{JobID: bg.JobID})
	if err != nil || c.Status != string(jobs.Interrupted) {
		t.Fatalf("cancel: %+v %v", c, err)
	}
	if r := run(t, h, pane, "echo after-cancel"); !strings.Contains(r.Output, "after-cancel") {
		t.Fatalf("after cancel: %+v", r)
	}
	if r := run(t, h, "", "touch "+ws+"/fresh && echo fresh-$((2+3))"); exitCode(r) != 0 || !strings.Contains(r.Output, "fresh-5") {
		t.Fatalf("a fresh pane: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(ws, "fresh")); err != nil {
		t.Fatalf("the fresh pane's write: %v", err)
	}
	// A command that exits the fresh pane's shell: its status comes from
	// the status file the job script wrote inside.
	r, err = h.RunShellCommand(t.Context(), nil, &RunShellCommandRequest{Command: "exit 3", WaitMs: &wait})
	if err != nil || r.Status != string(jobs.PaneDied) || exitCode(r) != 3 {
		t.Fatalf("exit 3 in a fresh pane: %+v %v", r, err)
	}
}

func TestZshAndFishRunCommandsInTheSandbox(t *testing.T) {
	t.Parallel()
	needBwrap(t)
	for _, sh := range []string{"zsh", "fish"} {
		path, err := exec.LookPath(sh)
		if err != nil {
			t.Logf("%s is not installed", sh)
			continue
		}
		t.Run(sh, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			if err := tmuxtest.DefaultRC(home); err != nil {
				t.Fatal(err)
			}
			target := tmuxtest.ServerWith(t, tmux.SessionSpec{Name: "agent", Width: 120, Height: 40}, home, "SHELL="+path)
			ws := testdir.Outside(t)
			h, err := OpenHost(t.Context(), Config{Target: target, Session: "agent", StateDir: testdir.Outside(t), Sandbox: sandbox.Config{Mode: sandbox.Workspace, Workspaces: []string{ws}}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(h.Close)
			pane := newShell(t, h)
			if r := run(t, h, pane, "echo in > "+ws+"/f; false"); exitCode(r) != 1 {
				t.Fatalf("exit status: %+v", r)
			}
			if r := run(t, h, "", "cat "+ws+"/f"); exitCode(r) != 0 || !strings.Contains(r.Output, "in") {
				t.Fatalf("a fresh pane: %+v", r)
			}
		})
	}
}

func TestTheSessionsFirstPaneStartsInTheSandbox(t *testing.T) {
	t.Parallel()
	needBwrap(t)
	target := tmuxtest.Server(t, "other", 120, 40)
	state := testdir.Outside(t)
	integ, err := shell.Install(filepath.Join(state, "shell"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := sandbox.Config{Mode: sandbox.ReadOnly}
	s := Session{Name: "agent", Width: 120, Height: 40, Shell: integ, Sandbox: NewPaneSandbox(cfg, state, target, integ)}
	if err := s.Ensure(t.Context(), target); err != nil {
		t.Fatal(err)
	}
	h, err := OpenHost(t.Context(), Config{Target: target, Session: "agent", StateDir: state, Shell: integ, Sandbox: cfg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	agent := "agent"
	listed, err := h.ListPanes(t.Context(), nil, &ListPanesRequest{Session: &agent})
	if err != nil || len(listed.Panes) != 1 || listed.Panes[0].Sandbox != "read-only" {
		t.Fatalf("the first pane: %+v %v", listed, err)
	}
	if r := run(t, h, listed.Panes[0].PaneID, `echo "TMUX=${TMUX-unset} $TMUXMCP_SANDBOX"; touch /usr/x`); exitCode(r) == 0 || !strings.Contains(r.Output, "TMUX=unset read-only") {
		t.Fatalf("in the first pane: %+v", r)
	}
}

// approverScript writes a --approval-via exec: program that answers
// answer.
func approverScript(t *testing.T, answer string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "approver")
	if err := os.WriteFile(p, []byte("#!/bin/sh\ncat >/dev/null\necho "+answer+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestAnEscalatedCommandIsAlwaysAskedAndRunsOutsideOnlyWhenApproved(t *testing.T) {
	t.Parallel()
	needBwrap(t)
	outside := testdir.Outside(t)
	reason := "it must write outside the workspace"
	escalated := func(h *Host, file string) (*JobResult, error) {
		wait := int64(60000)
		r, err := h.RunShellCommand(t.Context(), nil, &RunShellCommandRequest{Command: "touch " + filepath.Join(outside, file) + " && echo $TMUXMCP_SANDBOX-outside", Escalate: true, Reason: &reason, WaitMs: &wait})
		if err == nil && r.Status == string(jobs.Running) {
			r, err = h.AwaitCommandResult(t.Context(), nil, &AwaitCommandResultRequest{JobID: r.JobID, WaitMs: &wait})
		}
		return r, err
	}
	sb := sandbox.Config{Mode: sandbox.ReadOnly}
	// Under auto (no policy): asked all the same; approved, it runs outside.
	h := openHost(t, Config{Sandbox: sb, StateDir: testdir.Outside(t), ApprovalVia: []string{"exec"}, Approver: approverScript(t, "approve")})
	r, err := escalated(h, "approved")
	if err != nil || r.Status != string(jobs.Completed) || r.Decision != "approved" || !strings.HasPrefix(r.Output, "-outside") {
		t.Fatalf("approved: %+v %v", r, err)
	}
	if _, err := os.Stat(filepath.Join(outside, "approved")); err != nil {
		t.Fatalf("the approved command did not write outside: %v", err)
	}
	// Denied: nothing runs.
	h = openHost(t, Config{Sandbox: sb, StateDir: testdir.Outside(t), ApprovalVia: []string{"exec"}, Approver: approverScript(t, "deny")})
	r, err = escalated(h, "denied")
	if err != nil || r.Status != string(jobs.NotStarted) || r.Decision != "denied" {
		t.Fatalf("denied: %+v %v", r, err)
	}
	// Nobody to ask: nothing runs.
	h = openHost(t, Config{Sandbox: sb, StateDir: testdir.Outside(t)})
	if _, err := escalated(h, "nobody"); err == nil || !strings.Contains(err.Error(), "OWNER_SESSION_UNAVAILABLE") {
		t.Fatalf("with nobody to ask: %v", err)
	}
	for _, f := range []string{"denied", "nobody"} {
		if _, err := os.Stat(filepath.Join(outside, f)); err == nil {
			t.Errorf("%s: the command ran", f)
		}
	}
	// escalate needs a reason, and never goes into an existing pane.
	pane := "%0"
	for _, bad := range []RunShellCommandRequest{{Command: "true", Escalate: true}, {Command: "true", Escalate: true, Reason: &reason, PaneID: &pane}} {
		if err := bad.Check(); err == nil {
			t.Errorf("accepted: %+v", bad)
		}
	}
}

func TestWithoutASandboxEscalateIsAnOrdinaryCommand(t *testing.T) {
	t.Parallel()
	h := openHost(t, Config{})
	reason, wait := "no sandbox here", int64(60000)
	r, err := h.RunShellCommand(t.Context(), nil, &RunShellCommandRequest{Command: "echo plain", Escalate: true, Reason: &reason, WaitMs: &wait})
	if err != nil || r.Status != string(jobs.Completed) || r.Decision != "auto-approved" {
		t.Fatalf("escalate without a sandbox: %+v %v", r, err)
	}
}

func TestTmuxsDefaultCommandRunsInTheSandboxToo(t *testing.T) {
	t.Parallel()
	h := sandboxedHost(t, sandbox.Config{Mode: sandbox.ReadOnly})
	if _, err := h.opts.Target.Run(t.Context(), "set-option", "-g", "default-command", `echo "DC-$TMUXMCP_SANDBOX-${TMUX-unset}"; sleep 60`); err != nil {
		t.Fatal(err)
	}
	zero := int64(0)
	p, err := h.CreatePane(t.Context(), nil, &CreatePaneRequest{WaitMs: &zero})
	if err != nil || p.Sandbox != "read-only" {
		t.Fatalf("create_pane: %+v %v", p, err)
	}
	timeout := int64(30000)
	r, err := h.WaitForText(t.Context(), nil, &WaitForTextRequest{PaneID: p.PaneID, Patterns: []string{"DC-read-only-unset"}, Cursor: &p.Cursor, TimeoutMs: &timeout})
	if err != nil || r.Outcome != "matched" {
		t.Fatalf("the default-command in the sandbox: %+v %v", r, err)
	}
}
