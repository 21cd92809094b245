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

func TestAHostRuleAppliesOnlyOnItsHosts(t *testing.T) {
	p, err := New(Allow, []Rule{
		{Name: "no rm -rf", Action: Deny, Command: `\brm\s+-[a-z]*r[a-z]*f`},
		{Name: "prod asks", Action: Ask, Host: `^prod$`},
		{Name: "dev builds", Action: Allow, Command: `^make\b`, Host: `^dev`},
		{Name: "make asks", Action: Ask, Command: `^make\b`},
	})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		s    Subject
		want Action
		by   string
	}{
		{Subject{Command: "rm -rf /", Host: "prod"}, Deny, "no rm -rf"},
		{Subject{Command: "rm -rf /", Host: "local"}, Deny, "no rm -rf"},
		{Subject{Command: "ls", Host: "prod"}, Ask, "prod asks"},
		{Subject{Command: "ls", Host: "preprod"}, Allow, "default"},
		{Subject{Command: "ls", Host: "local"}, Allow, "default"},
		{Subject{Command: "make", Host: "dev2"}, Allow, "dev builds"},
		{Subject{Command: "make", Host: "local"}, Ask, "make asks"},
		{Subject{Command: "make", Host: "prod"}, Ask, "prod asks"},
	}
	for _, c := range cases {
		if a, by := p.Decide(c.s); a != c.want || by != c.by {
			t.Errorf("%+v: %s by %s, want %s by %s", c.s, a, by, c.want, c.by)
		}
	}
}

func TestASubjectWithoutAHostIsThisMachine(t *testing.T) {
	p, err := New(Allow, []Rule{{Name: "here", Action: Deny, Host: `^local$`}})
	if err != nil {
		t.Fatal(err)
	}
	if a, by := p.Decide(Subject{Command: "ls"}); a != Deny || by != "here" {
		t.Fatalf("no host: %s by %s, want deny by the rule for local", a, by)
	}
	if _, _, ok := p.DecideEnv(Variable{Name: "PATH"}); ok {
		t.Fatal("a command rule decided a variable")
	}
}

func TestAnEnvRuleWithAHostAppliesOnlyOnItsHosts(t *testing.T) {
	p, err := New(Ask, []Rule{{Name: "dev path", Action: Allow, Env: `^PATH$`, Host: `^dev$`}})
	if err != nil {
		t.Fatal(err)
	}
	if a, rule, ok := p.DecideEnv(Variable{Name: "PATH", Host: "dev"}); !ok || a != Allow || rule != "dev path" {
		t.Errorf("PATH on dev: %s %s %v", a, rule, ok)
	}
	for _, h := range []string{"prod", "local", ""} {
		if _, _, ok := p.DecideEnv(Variable{Name: "PATH", Host: h}); ok {
			t.Errorf("PATH on %q was decided by the rule for dev", h)
		}
	}
}

func TestABadHostPatternIsRefused(t *testing.T) {
	if _, err := New(Allow, []Rule{{Action: Deny, Host: "("}}); err == nil || !strings.Contains(err.Error(), "host") {
		t.Fatalf("a bad host pattern: %v", err)
	}
}

func TestARuleMayMatchThroughAHoleButNeverAllowsOne(t *testing.T) {
	p, err := New(Allow, []Rule{
		{Name: "allow rm", Action: Allow, Command: `^rm`},
		{Name: "no recursive rm", Action: Deny, Command: `^rm .*--recursive`},
		{Name: "no lone rm -x", Action: Ask, Command: `^rm -x$`},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		text  string
		holes []int
		want  bool // a deny or ask rule may match
	}{
		{"rm \n-- x", []int{3}, true},          // rm ⟨⟩: the hole could be --recursive
		{"rm --force\n-- x", nil, false},       // no hole: as written
		{"rm --force\n-- x", []int{14}, false}, // a hole among the operands: .* stops at the newline
		{"echo \n--", []int{5}, false},         // ^rm holds only at the start, never inside a hole
		{"rm -\n--", []int{4}, true},           // -⟨⟩ could be -x, alone on the line
		{"rmdir \n--", []int{6}, false},        // no hole makes rmdir rm
	} {
		s := Subject{Command: c.text, Holes: c.holes}
		r, ok := p.Match(s, Deny, Ask)
		if ok != c.want {
			t.Errorf("%q holes %v: matched %v (%s), want %v", c.text, c.holes, ok, r.Name, c.want)
		}
		if a, by := p.Decide(s); len(c.holes) > 0 && a == Allow && by == "allow rm" {
			t.Errorf("%q: an allow rule approved a subject with holes", c.text)
		}
	}
}

// A file of two policies pasted together is refused: the second's rules
// would otherwise silently not apply (found by the third attack).
func TestAPolicyFileWithMoreThanOneObjectIsRefused(t *testing.T) {
	p := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(p, []byte(`{"rules": [{"action": "allow", "command": "^ls$"}]}
{"rules": [{"action": "deny", "command": "^rm "}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(p, Ask); err == nil || !strings.Contains(err.Error(), "more follows") {
		t.Fatalf("two policies in one file: %v", err)
	}
	if err := os.WriteFile(p, []byte("{\"rules\": []}\n\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(p, Ask); err != nil {
		t.Fatalf("one policy with blank lines after it: %v", err)
	}
}
