package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmuxmcp/tmuxmcp/approval"
	"github.com/tmuxmcp/tmuxmcp/audit"
	"github.com/tmuxmcp/tmuxmcp/policy"
)

func TestTheGateDecidesByTheFirstRuleThatMatchesOnItsHost(t *testing.T) {
	pol, err := policy.New(policy.Ask, []policy.Rule{
		{Name: "no rm", Action: policy.Deny, Command: `\brm\b`},
		{Name: "prod is read-only", Action: policy.Deny, Host: "^prod$", Command: `\b(make|kubectl)\b`},
		{Name: "git status", Action: policy.Allow, Command: `^git status$`},
	})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		host, line string
		want       approval.Decision
		by         string
	}{
		{"local", "git status", approval.AutoApproved, "policy:git status"},
		{"local", "rm -rf build", approval.Blocked, "policy:no rm"},
		{"local", "echo ok && rm -rf /", approval.Blocked, "policy:no rm"}, // each simple command is judged
		{"local", "make deploy", approval.Ask, "policy:default"},
		{"prod", "make deploy", approval.Blocked, "policy:prod is read-only"},
		{"prod", "git status", approval.AutoApproved, "policy:git status"},
		{"local", "echo 'unclosed", approval.Ask, "policy:unparsed"}, // what does not parse is asked
	}
	for _, c := range cases {
		g := newGate(Config{Host: c.host, Policy: pol}, nil)
		d, by, _ := g.decide(approval.Subject{Line: c.line, Shell: "bash"})
		if d != c.want || by != c.by {
			t.Errorf("%s on %s: %s by %s, want %s by %s", c.line, c.host, d, by, c.want, c.by)
		}
	}
}

func TestEveryDecisionIsRecordedOnceWithItsHost(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	log, err := audit.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	g := newGate(Config{Host: "prod", Audit: log}, nil)
	g.record(verdict{Tool: "run_shell_command", JobID: "01j", Pane: "%3", Command: "make API_TOKEN=abc123 deploy", Decision: approval.Blocked, By: "policy:prod is read-only"})
	g.record(verdict{Tool: "send_keys", Pane: "%3", Command: "ls", Decision: approval.Rejected, By: "nobody", Refusal: "REVIEW_BUSY"})
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2:\n%s", len(lines), b)
	}
	var first, second audit.Event
	if json.Unmarshal([]byte(lines[0]), &first) != nil || json.Unmarshal([]byte(lines[1]), &second) != nil {
		t.Fatalf("not JSON lines:\n%s", b)
	}
	if first.Event != "decision" || first.Host != "prod" || first.Decision != "blocked" || first.DecidedBy != "policy:prod is read-only" || first.JobID != "01j" {
		t.Errorf("first line: %+v", first)
	}
	if strings.Contains(lines[0], "abc123") {
		t.Errorf("a secret reached the audit log: %s", lines[0])
	}
	if second.Refusal != "REVIEW_BUSY" || second.Host != "prod" || second.Tool != "send_keys" {
		t.Errorf("second line: %+v", second)
	}
}
