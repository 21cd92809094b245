package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmuxmcp/tmuxmcp/internal/testdir"
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
	t.Parallel()
	if s, err := sandbox.New(sandbox.Config{Mode: sandbox.ReadOnly}); err != nil || s.Preflight(t.Context()) != nil {
		t.Skip("bubblewrap cannot run here")
	}
	ws, outside := testdir.Outside(t), testdir.Outside(t)
	e := newEnv(t, envOptions{stateDir: testdir.Outside(t), sandbox: sandbox.Config{Mode: sandbox.Workspace, Workspaces: []string{ws}}})
	// %0 existed before tmuxmcp: list_panes reports it unsandboxed.
	f := filepath.Join(outside, "written-outside")
	r := e.call(t, "run_shell_command", map[string]any{"paneId": "%0", "command": "echo x > " + f})
	if _, err := os.Stat(f); err == nil {
		t.Fatalf("a command in an unsandboxed pane ran outside the sandbox without asking anyone: %v", r)
	}
	if !strings.Contains(fmt.Sprint(r), "OwnerReviewUnavailable") {
		t.Fatalf("nobody can be asked, so the command must be refused as needing a person: %v", r)
	}
	// Typed text that submits is asked too.
	r = e.call(t, "type_text", map[string]any{"paneId": "%0", "text": "echo y > " + f + "-typed", "submit": true})
	if _, err := os.Stat(f + "-typed"); err == nil {
		t.Fatalf("text typed into an unsandboxed pane ran outside the sandbox without asking anyone: %v", r)
	}
}
