package approval

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/policy"
)

func TestAHostRuleJudgesOnlyLinesForItsHosts(t *testing.T) {
	p, err := policy.New(policy.Allow, []policy.Rule{
		{Name: "no recursive rm", Action: policy.Deny, Command: `\brm\s+(-\w*[rR]|--recursive)`},
		{Name: "prod asks", Action: policy.Ask, Host: `^prod$`},
	})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		line, host string
		want       policy.Action
		by         string
	}{
		{"rm -rf /srv", "prod", policy.Deny, "policy:no recursive rm"},
		{"rm -rf /srv", "local", policy.Deny, "policy:no recursive rm"},
		{"git status && ls", "prod", policy.Ask, "policy:prod asks"},
		{"git status && ls", "local", policy.Allow, "policy:default"},
		{"git status && ls", "", policy.Allow, "policy:default"},
		{"echo 'unclosed", "prod", policy.Ask, "policy:unparsed"},
	}
	for _, c := range cases {
		if v := Judge(p, Subject{Line: c.line, Shell: "bash", Host: c.host}); v.Action != c.want || v.By != c.by {
			t.Errorf("%q on %q: %s by %s, want %s by %s", c.line, c.host, v.Action, v.By, c.want, c.by)
		}
	}
}

func TestAnEnvRuleForOneHostDoesNotLetAVariableThroughElsewhere(t *testing.T) {
	p, _ := policy.New(policy.Allow, []policy.Rule{{Name: "dev path", Action: policy.Allow, Env: "^PATH$", Host: "^dev$"}})
	subj := Subject{Line: "PATH=/x bash", Shell: "bash", Env: map[string]string{"PATH": "/x"}}
	subj.Host = "dev"
	if v := Judge(p, subj); v.Action != policy.Allow {
		t.Errorf("PATH on dev: %s by %s", v.Action, v.By)
	}
	subj.Host = "prod"
	if v := Judge(p, subj); v.Action != policy.Deny || v.By != "policy:env" {
		t.Errorf("PATH on prod: %s by %s, want deny by policy:env", v.Action, v.By)
	}
}

func TestThePersonAskedIsToldWhichHost(t *testing.T) {
	req := Request{Pane: "%3", Program: "bash", CWD: "/srv", Command: "make deploy", Host: "prod"}
	if got := Text(req); !strings.Contains(got, "\n  host: prod\n") || !strings.Contains(got, "in pane %3 (bash, /srv)") {
		t.Errorf("a remote request does not name its host:\n%s", got)
	}
	for _, local := range []string{"local", ""} {
		req.Host = local
		if got := Text(req); strings.Contains(got, "host:") {
			t.Errorf("host %q: a local request names a host:\n%s", local, got)
		}
	}
	req.Host = "prod\n  The agent asks to run, in pane %1 (bash, /tmp):\n\n    true"
	if got := Text(req); strings.Count(got, "\n  The agent asks") != 1 || strings.Count(got, "\n") > 10 {
		t.Errorf("a host name faked a second request:\n%s", got)
	}
}

func TestAnApproverProgramIsToldTheHost(t *testing.T) {
	seen := filepath.Join(t.TempDir(), "request.json")
	for _, c := range []struct{ host, want string }{{"prod", "prod"}, {"", "local"}} {
		a := &Asker{Timeout: 10 * time.Second, Approver: script(t, "cat > "+seen+"; echo deny")}
		if ans := a.Ask(context.Background(), nil, Request{Command: "ls", Host: c.host}); ans.Decision != Denied {
			t.Fatalf("%+v", ans)
		}
		var req map[string]any
		b, _ := os.ReadFile(seen)
		if err := json.Unmarshal(b, &req); err != nil || req["host"] != c.want {
			t.Errorf("host %q: the program read %s (%v), want host %q", c.host, b, err, c.want)
		}
	}
}

// memFiles are Files kept in memory, as another machine's would be.
type memFiles struct {
	mu      sync.Mutex
	m       map[string][]byte
	removed []string
	fail    error
}

func (f *memFiles) WriteFile(_ context.Context, p string, data []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail != nil {
		return f.fail
	}
	if f.m == nil {
		f.m = map[string][]byte{}
	}
	f.m[p] = data
	return nil
}

func (f *memFiles) ReadFile(_ context.Context, p string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := f.m[p]
	if !ok {
		return nil, os.ErrNotExist
	}
	return b, nil
}

func (f *memFiles) Remove(_ context.Context, paths ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range paths {
		delete(f.m, p)
		f.removed = append(f.removed, p)
	}
}

func TestThePopupsFilesAreWhereThePopupRuns(t *testing.T) {
	files := &memFiles{}
	var shown string
	a := &Asker{Dir: "/remote/state/approvals", Files: files, Timeout: 10 * time.Second,
		Popup: func(ctx context.Context, client, cmd string) error {
			// The popup runs on the other machine: it finds the request
			// there and writes its answer there.
			f := strings.Fields(cmd)
			answer, details := strings.Trim(f[2], "'"), strings.Trim(f[3], "'")
			b, err := files.ReadFile(ctx, details)
			if err != nil {
				return err
			}
			shown = string(b)
			return files.WriteFile(ctx, answer, []byte("y"))
		}}
	ans := a.Ask(context.Background(), []string{"c1"}, Request{RequestID: "r1", Command: "make deploy", Host: "prod"})
	if ans.Decision != Approved || ans.By != "tmux:c1" {
		t.Fatalf("%+v, want approved by tmux:c1", ans)
	}
	if !strings.Contains(shown, "host: prod") || !strings.Contains(shown, "make deploy") {
		t.Errorf("the popup showed %q", shown)
	}
	if len(files.m) != 0 {
		t.Errorf("files left on the machine: %v", files.m)
	}
	for _, p := range files.removed {
		if !strings.HasPrefix(p, "/remote/state/approvals/r1.") {
			t.Errorf("removed %q, outside the request's files", p)
		}
	}
}

func TestAPopupThatCannotShowTheRequestIsNotShown(t *testing.T) {
	shown := false
	popup := func(context.Context, string, string) error { shown = true; return nil }
	for name, a := range map[string]*Asker{
		"the files cannot be written": {Dir: "/remote/x", Files: &memFiles{fail: errors.New("disk full")}, Popup: popup},
		"no directory":                {Popup: popup},
	} {
		a.Timeout = 10 * time.Second
		if ans := a.Ask(context.Background(), []string{"c1"}, Request{Command: "ls"}); ans.Decision != DeniedError {
			t.Errorf("%s: %+v, want denied-error", name, ans)
		}
	}
	if shown {
		t.Error("a popup was shown without its request")
	}
	a := &Asker{Files: &memFiles{fail: errors.New("disk full")}, Dir: "/remote/x", Timeout: 10 * time.Second, Popup: popup, Approver: script(t, "echo approve")}
	if ans := a.Ask(context.Background(), []string{"c1"}, Request{Command: "ls"}); ans.Decision != Approved || ans.By != "exec:approver" {
		t.Errorf("the approver program was not asked when the popups could not be: %+v", ans)
	}
}

func TestAnElicitedAnswerIsBoundToItsHost(t *testing.T) {
	e := Elicitation{Command: "ls", Pane: "%1", CWD: "/tmp", RequestID: "r1", Host: "prod"}
	other := e
	other.Host = "local"
	if e.Matches(other) {
		t.Fatal("an answer given for host prod approves the same request on another host")
	}
}

// A directory a remote host could not resolve (it did not answer) cannot
// satisfy or escape a cwd rule: the line is asked, never allowed by
// default; a policy without cwd rules is not affected.
func TestAnUnresolvedDirectoryIsAskedUnderCwdRules(t *testing.T) {
	withCWD, err := policy.New(policy.Allow, []policy.Rule{{Action: policy.Deny, CWD: "^/srv/prod"}})
	if err != nil {
		t.Fatal(err)
	}
	noCWD, err := policy.New(policy.Allow, []policy.Rule{{Action: policy.Deny, Command: "^rm "}})
	if err != nil {
		t.Fatal(err)
	}
	s := Subject{Line: "make deploy", Shell: "bash", Program: "bash", CWD: "/home/u/p", CWDUnresolved: true, Host: "prod"}
	if v := Judge(withCWD, s); v.Action != policy.Ask || v.By != "policy:unresolved-cwd" {
		t.Fatalf("unresolved cwd under a cwd rule: %+v, want ask by policy:unresolved-cwd", v)
	}
	if v := Judge(noCWD, s); v.Action != policy.Allow {
		t.Fatalf("unresolved cwd without cwd rules: %+v, want allow", v)
	}
	s.CWDUnresolved = false
	if v := Judge(withCWD, s); v.Action != policy.Allow {
		t.Fatalf("a resolved cwd outside the rule: %+v, want allow", v)
	}
}
