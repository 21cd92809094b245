package tools

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tmuxmcp/tmuxmcp/sandbox"
)

// Attack finding (issue 25, h-attack): under --sandbox, a pane that runs
// outside the sandbox — one that existed before tmuxmcp (the person's own
// session), or the fresh pane of an escalated command kept with keep:
// true — takes run_shell_command and type_text like any other pane,
// auto-approved: one approved escalation (or an existing session) gives
// the agent an unsandboxed shell for good, and no person is asked.
// paneId is a tool argument that leaves the sandbox.
func TestUnderASandboxACommandInAnUnsandboxedPaneIsAskedLikeAnEscalation(t *testing.T) {
	t.Skip("attack finding: under --sandbox, run_shell_command/type_text into an unsandboxed pane (pre-existing, or an escalated one kept) runs outside the sandbox without asking")
	t.Parallel()
	if s, err := sandbox.New(sandbox.Config{Mode: sandbox.ReadOnly}); err != nil || s.Preflight(t.Context()) != nil {
		t.Skip("bubblewrap cannot run here")
	}
	ws, outside := sandboxDir(t), sandboxDir(t)
	e := newEnv(t, envOptions{stateDir: sandboxDir(t), sandbox: sandbox.Config{Mode: sandbox.Workspace, Workspaces: []string{ws}}})
	// %0 existed before tmuxmcp: list_panes reports it unsandboxed.
	f := filepath.Join(outside, "written-outside")
	r := e.call(t, "run_shell_command", map[string]any{"paneId": "%0", "command": "echo x > " + f})
	if _, err := os.Stat(f); err == nil {
		t.Fatalf("a command in an unsandboxed pane ran outside the sandbox without asking anyone: %v", r)
	}
}
