package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFirstMatchingRuleWins(t *testing.T) {
	p, err := New(Ask, []Rule{
		{Name: "no rm -rf", Action: Deny, Command: `\brm\s+-[a-z]*r[a-z]*f`},
		{Name: "read-only git", Action: Allow, Command: `^git (status|log|diff)\b`},
		{Name: "python asks", Action: Ask, Program: `^python`},
		{Action: Allow, CWD: `^/tmp(/|$)`},
	})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		s    Subject
		want Action
		by   string
	}{
		{Subject{Command: "rm -rf /"}, Deny, "no rm -rf"},
		{Subject{Command: "git status"}, Allow, "read-only git"},
		{Subject{Command: "print(1)", Program: "python3"}, Ask, "python asks"},
		{Subject{Command: "make", CWD: "/tmp/x"}, Allow, "rule 4"},
		{Subject{Command: "make", CWD: "/home"}, Ask, "default"},
	}
	for _, c := range cases {
		a, by := p.Decide(c.s)
		if a != c.want || by != c.by {
			t.Errorf("%+v: %s by %s, want %s by %s", c.s, a, by, c.want, c.by)
		}
	}
}

func TestLoadRejectsBadRules(t *testing.T) {
	dir := t.TempDir()
	for body, want := range map[string]string{
		`{"rules":[{"action":"maybe"}]}`:              "action",
		`{"rules":[{"action":"deny","command":"("}]}`: "regular expression",
		`{"rules":`: "policy file",
		`{"rules":[{"action":"allow","comand":"^git"}]}`: "comand",
		`{"rulez":[]}`: "rulez",
	} {
		f := filepath.Join(dir, "p.json")
		_ = os.WriteFile(f, []byte(body), 0o600)
		if _, err := Load(f, Allow); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", body, err)
		}
	}
}
