package tools

import (
	"context"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/internal/tmuxtest"
	"github.com/tmuxmcp/tmuxmcp/jobs"
)

func TestAJobThatEndedWhileTmuxmcpWasDownIsAwaitedAndFreesItsPane(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	e := newEnv(t, envOptions{stateDir: state})
	pane, _ := e.shell(t)
	// A script job: its status is also written to a file.
	r := e.runCmd(t, map[string]any{"paneId": pane, "command": "sleep 1\necho done\n(exit 4)", "waitMs": 100})
	e.close()
	// Let the command finish while nobody watches.
	if _, err := e.target.Run(t.Context(), "wait-for", "-L", "never-signalled-lock"); err != nil {
		t.Fatal(err)
	}
	_, _ = e.target.Run(t.Context(), "wait-for", "-U", "never-signalled-lock")
	time.Sleep(2 * time.Second) // the command runs 1 s; nothing observes it meanwhile
	e2 := newEnv(t, envOptions{target: &e.target, stateDir: state})
	a := e2.ok(t, "await_command_result", map[string]any{"jobId": r.Str("jobId"), "waitMs": 10000})
	if a.Str("status") != "completed" || a.Num("exitCode") != 4 {
		t.Fatalf("after restart: %v", a)
	}
	if x := e2.runCmd(t, map[string]any{"paneId": pane, "command": "echo next"}); x.Str("output") != "next\n" {
		t.Fatalf("pane still locked: %v", x)
	}
}

func TestShutdownLeavesRunningJobsRunning(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	e := newEnv(t, envOptions{stateDir: state})
	pane, _ := e.shell(t)
	r := e.runCmd(t, map[string]any{"paneId": pane, "command": "sleep 2; echo survived", "waitMs": 200})
	// What SIGTERM does: drain (every stream ends hub_closed), then close.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	<-e.s.Draining(ctx).Done()
	e.close()
	j, _ := e.h.Job(r.Str("jobId"))
	if j.Status != jobs.Running {
		t.Fatalf("after shutdown the job is %s, want running", j.Status)
	}
	e2 := newEnv(t, envOptions{target: &e.target, stateDir: state})
	a := e2.ok(t, "await_command_result", map[string]any{"jobId": r.Str("jobId"), "waitMs": 20000})
	if a.Str("status") != "completed" || a.Str("output") != "survived\n" {
		t.Fatalf("after restart: %v", a)
	}
}

func TestJobKilledWithTheServerHasNoExitCode(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	r := e.runCmd(t, map[string]any{"command": "false; sleep 30", "waitMs": 500})
	tmuxtest.Kill(e.target)
	a := e.ok(t, "await_command_result", map[string]any{"jobId": r.Str("jobId"), "waitMs": 20000})
	if a.Str("status") != "pane_died" || a.M["exitCode"] != nil {
		t.Fatalf("got %v", a)
	}
}
