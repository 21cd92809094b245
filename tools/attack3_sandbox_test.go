package tools

import (
	"testing"

	"github.com/tmuxmcp/tmuxmcp/internal/testdir"
	"github.com/tmuxmcp/tmuxmcp/sandbox"
)

// A command in a sandboxed dash pane runs and completes like one in a
// bash pane (found by the third attack: the job script was written to the
// state directory's jobs/, which the sandbox hides, so dash could not open
// it and the job stayed running until cancelled).
func TestACommandInASandboxedDashPaneCompletes(t *testing.T) {
	t.Parallel()
	if s, err := sandbox.New(sandbox.Config{Mode: sandbox.ReadOnly}); err != nil || s.Preflight(t.Context()) != nil {
		t.Skip("bubblewrap cannot run here")
	}
	ws := testdir.Outside(t)
	e := newEnv(t, envOptions{stateDir: testdir.Outside(t), shell: "/bin/dash", sandbox: sandbox.Config{Mode: sandbox.Workspace, Workspaces: []string{ws}}})
	pane := e.ok(t, "create_pane", map[string]any{"cwd": ws}).Str("paneId")
	r := e.runCmd(t, map[string]any{"paneId": pane, "command": "echo plain; false", "waitMs": 30000})
	if got := r.Str("status"); got != "completed" {
		t.Fatalf("status %q, want completed: %v", got, r)
	}
}
