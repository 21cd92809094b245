package tools

import (
	"strings"
	"testing"

	"github.com/tmuxmcp/tmuxmcp/internal/testdir"
	"github.com/tmuxmcp/tmuxmcp/sandbox"
)

func TestASandboxedServerSaysWhereEachPaneRuns(t *testing.T) {
	t.Parallel()
	if s, err := sandbox.New(sandbox.Config{Mode: sandbox.ReadOnly}); err != nil || s.Preflight(t.Context()) != nil {
		t.Skip("bubblewrap cannot run here")
	}
	ws := testdir.Outside(t)
	e := newEnv(t, envOptions{stateDir: testdir.Outside(t), sandbox: sandbox.Config{Mode: sandbox.Workspace, Workspaces: []string{ws}}})
	p := e.ok(t, "create_pane", map[string]any{})
	if p.Str("sandbox") != "workspace" {
		t.Fatalf("create_pane: %v", p)
	}
	modes := map[string]string{}
	for _, lp := range e.ok(t, "list_panes", map[string]any{}).M["panes"].([]any) {
		m := lp.(map[string]any)
		modes[m["paneId"].(string)] = m["sandbox"].(string)
	}
	if modes[p.Str("paneId")] != "workspace" || modes["%0"] != "unsandboxed" {
		t.Fatalf("list_panes: %v", modes)
	}
	r := e.ok(t, "run_shell_command", map[string]any{"paneId": p.Str("paneId"), "command": "echo x > " + ws + "/ok && echo x > /usr/no"})
	if r.Num("exitCode") == 0 || !strings.Contains(r.Str("output"), "Read-only file system") {
		t.Fatalf("a write outside the workspace: %v", r)
	}
	if r := e.call(t, "run_shell_command", map[string]any{"command": "true", "escalate": true}); !r.IsError || !strings.Contains(r.Text, "needs a reason") {
		t.Fatalf("escalate without a reason: %v", r)
	}
}

func TestWithoutBwrapCreatePaneSaysNotStartedAndWhy(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{sandbox: sandbox.Config{Mode: sandbox.ReadOnly, Bwrap: "/nowhere/bwrap"}})
	r := e.call(t, "create_pane", map[string]any{})
	if !r.IsError || !strings.Contains(r.Text, "SandboxUnavailable: launchOutcome=NOT_STARTED") || !strings.Contains(r.Text, "apt-get install bubblewrap") {
		t.Fatalf("create_pane without bwrap: %v", r)
	}
	if panes := e.ok(t, "list_panes", map[string]any{}).M["panes"].([]any); len(panes) != 1 {
		t.Fatalf("a pane was created: %v", panes)
	}
}
