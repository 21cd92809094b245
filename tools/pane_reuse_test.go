package tools

import (
	"strconv"
	"strings"
	"testing"

	"github.com/tmuxmcp/tmuxmcp/internal/tmuxtest"
	"github.com/tmuxmcp/tmuxmcp/policy"
)

// A pane created after a tmux restart may get the id of a pane that had
// a half-typed line: it starts with an empty line, takes input and runs
// commands at once, under a policy that judges typed lines.
func TestNewPaneWithAnOldIDInheritsNothing(t *testing.T) {
	t.Parallel()
	pol, _ := policy.New(policy.Allow, []policy.Rule{{Name: "no rm", Action: policy.Deny, Command: `\brm\b`}})
	e := newEnv(t, envOptions{restart: true, policy: pol})
	old, c := e.shell(t)
	// A line left half-typed: under the policy, the rest of it would be
	// judged with the next text typed.
	e.ok(t, "type_text", map[string]any{"paneId": old, "text": "rm -rf /tmp/nothing-here #"})
	tmuxtest.Kill(e.target)
	if w := e.ok(t, "wait_for_text", map[string]any{"paneId": old, "cursor": c, "timeoutMs": 5000}); w.Str("outcome") != "stream_lost" {
		t.Fatalf("wait across kill-server: %v", w)
	}
	var fresh string
	for range 4 {
		fresh, _ = e.shell(t)
		if fresh == old {
			break
		}
	}
	if fresh != old {
		t.Skipf("tmux did not reuse pane id %s after the restart", old)
	}
	r := e.ok(t, "run_shell_command", map[string]any{"paneId": fresh, "command": "echo FRESH-PANE-OK"})
	if r.Str("status") != "completed" || !strings.Contains(r.Str("output"), "FRESH-PANE-OK") {
		t.Fatalf("run_shell_command in the new %s: %v", fresh, r)
	}
	e.ok(t, "type_text", map[string]any{"paneId": fresh, "text": "echo TYPED-OK", "submit": true})
	// kill_pane forgets a half-typed line too.
	e.ok(t, "type_text", map[string]any{"paneId": fresh, "text": "rm -rf /tmp/nothing-here #"})
	e.ok(t, "kill_pane", map[string]any{"paneId": fresh})
	if st := e.h.TypedLine(mustPane(t, fresh)); st.Text != "" {
		t.Fatalf("kill_pane left the typed line %q", st.Text)
	}
}

func mustPane(t *testing.T, id string) int {
	t.Helper()
	n, err := strconv.Atoi(strings.TrimPrefix(id, "%"))
	if err != nil {
		t.Fatal(err)
	}
	return n
}
