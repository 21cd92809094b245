package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmuxmcp/tmuxmcp/audit"
	"github.com/tmuxmcp/tmuxmcp/policy"
)

func TestPolicyBlocksAllowsAndRefusesToAskNobody(t *testing.T) {
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
	if r.str("decision") != "auto-approved" || r.str("output") != "API_TOKEN=s3cr3t allowed\n" {
		t.Fatalf("allow rule: %v", r)
	}
	id := "abababababababababababababababab"
	r = e.runCmd(t, map[string]any{"paneId": pane, "command": "rm -rf /tmp/nothing", "requestId": id})
	if r.str("decision") != "blocked" || r.str("status") != "not_started" || r.str("launchOutcome") != "NOT_STARTED" || r.m["exitCode"] != nil {
		t.Fatalf("deny rule: %v", r)
	}
	if again := e.runCmd(t, map[string]any{"paneId": pane, "command": "rm -rf /tmp/nothing", "requestId": id}); again.str("jobId") != r.str("jobId") {
		t.Fatalf("retry of a blocked request: %v", again)
	}
	x := e.call(t, "run_shell_command", map[string]any{"paneId": pane, "command": "ls /"})
	if !x.isError || !strings.Contains(x.text, "OwnerReviewUnavailable") || !strings.Contains(x.text, "OWNER_SESSION_UNAVAILABLE") || !strings.Contains(x.text, "NOT_STARTED") {
		t.Fatalf("ask with nobody to ask: %v", x)
	}
	// type_text that submits is held to the same rules; typing alone is not.
	if y := e.call(t, "type_text", map[string]any{"paneId": pane, "text": "rm -rf /tmp/x", "submit": true}); !y.isError || !strings.Contains(y.text, "blocked") {
		t.Fatalf("type_text submit: %v", y)
	}
	if y := e.call(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"ls /", "Enter"}}); !y.isError || !strings.Contains(y.text, "OwnerReviewUnavailable") {
		t.Fatalf("send_keys submit: %v", y)
	}
	// Nothing but the allowed command reached the pane.
	out := e.ok(t, "capture_since", map[string]any{"paneId": pane, "cursor": before}).str("output")
	if strings.Contains(out, "rm -rf") || strings.Contains(out, "ls /") {
		t.Fatalf("refused input reached the pane: %q", out)
	}
	_ = al.Close()
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	log := string(b)
	for _, want := range []string{`"decision":"auto-approved"`, `"decidedBy":"policy:echo ok"`, `"decision":"blocked"`, `"decidedBy":"policy:no rm"`, `"event":"completed"`, `"reason":"OWNER_SESSION_UNAVAILABLE"`} {
		if !strings.Contains(log, want) {
			t.Errorf("audit log lacks %s:\n%s", want, log)
		}
	}
	if strings.Contains(log, "s3cr3t") {
		t.Errorf("audit log holds a secret:\n%s", log)
	}
}
