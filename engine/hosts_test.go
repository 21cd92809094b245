package engine

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/approval"
	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/policy"
	"github.com/tmuxmcp/tmuxmcp/stream"
)

// bareHost is a Host with job records and a hub but no tmux: enough for
// routing and the gate's decisions.
func bareHost(t *testing.T, cfg Config) *Host {
	t.Helper()
	store, err := jobs.Open(filepath.Join(t.TempDir(), "jobs"))
	if err != nil {
		t.Fatal(err)
	}
	cfg = WithDefaults(cfg)
	return &Host{jobs: store, hub: stream.NewHub(0), opts: cfg, waits: map[int]int{}, gate: newGate(cfg, nil)}
}

func TestACallIsRoutedToTheHostItsIDsBelongTo(t *testing.T) {
	local := bareHost(t, Config{})
	prodDir := t.TempDir()
	prodStore, err := jobs.Open(prodDir)
	if err != nil {
		t.Fatal(err)
	}
	onProd, err := prodStore.Create(&jobs.Job{Command: "make deploy", RequestID: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", Status: jobs.Running})
	if err != nil {
		t.Fatal(err)
	}
	var starts atomic.Int32
	prod := &Remote{Name: "prod", JobsDir: prodDir, Start: func(context.Context) (*Host, error) {
		starts.Add(1)
		return nil, errors.New("ssh: connect to host prod port 22: Connection refused")
	}}
	hs := NewHosts(local, prod)
	cases := []struct {
		name, host string
		ids        IDs
		want       string // in the error; "" for the local host
	}{
		{"no host is this machine", "", IDs{}, ""},
		{"an unknown host names the hosts there are", "staging", IDs{}, `host "staging" is not configured: the hosts are local, prod`},
		{"a job of another host is refused on this one", "local", IDs{JobID: onProd.ID}, "runs on host prod, not local"},
		{"a requestId of another host is refused", "local", IDs{RequestID: onProd.RequestID}, "already names job " + onProd.ID + " on host prod"},
		{"a host that cannot be reached says why", "prod", IDs{}, "host prod cannot be reached now: ssh: connect to host prod port 22: Connection refused"},
		{"a job's host is its own without a host given", "", IDs{JobID: onProd.ID}, "host prod cannot be reached now"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, err := hs.Pick(t.Context(), c.host, c.ids)
			if c.want == "" {
				if err != nil || h != local {
					t.Fatalf("got %v, %v; want the local host", h, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
	if n := starts.Load(); n != 1 {
		t.Fatalf("a host that is down was tried %d times within %v; want once", n, retryAfter)
	}
}

func TestTheGateJudgesWhatALaunchedProgramWouldRun(t *testing.T) {
	cases := []struct {
		argv []string
		env  map[string]string
		want string
	}{
		{[]string{"git", "status"}, nil, "git status"},
		{[]string{"python3", "-c", "print('hi')"}, nil, `python3 -c 'print('\''hi'\'')'`},
		{[]string{"ls", ""}, nil, "ls ''"},
		{[]string{"env"}, map[string]string{"B": "two words", "A": "1"}, "A='1' B='two words' env"},
	}
	for _, c := range cases {
		if got := launchLine(c.argv, c.env); got != c.want {
			t.Errorf("launchLine(%q, %v) = %q, want %q", c.argv, c.env, got, c.want)
		}
	}
}

func TestAllowForThisSessionNeverAllowsWhatThePolicyCannotParse(t *testing.T) {
	pol, err := policy.New(policy.Ask, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := bareHost(t, Config{Policy: pol})
	if d, _, _ := h.gate.decide(approval.Subject{Line: "echo hi", Shell: "bash"}); d != approval.Ask {
		t.Fatalf("before allow-all: %s, want ask", d)
	}
	if !h.gate.slot.Claim() {
		t.Fatal("the review slot is taken")
	}
	h.gate.slot.Release(true) // the person chose "allow for this session"
	if d, by, _ := h.gate.decide(approval.Subject{Line: "echo hi", Shell: "bash"}); d != approval.AutoApproved || !strings.Contains(by, "allowed for this session") {
		t.Fatalf("after allow-all: %s by %s", d, by)
	}
	if d, by, _ := h.gate.decide(approval.Subject{Line: "echo 'unclosed", Shell: "bash"}); d != approval.Ask {
		t.Fatalf("an unparsable line after allow-all: %s by %s, want ask", d, by)
	}
}

func TestReadyWaitIsTheCallsWaitButAtLeastTwoSeconds(t *testing.T) {
	ms := func(v int64) *int64 { return &v }
	cases := []struct {
		in   RunShellCommandRequest
		want time.Duration
	}{
		{RunShellCommandRequest{}, DefaultWaitMs * time.Millisecond},
		{RunShellCommandRequest{WaitMs: ms(100)}, 2 * time.Second},
		{RunShellCommandRequest{WaitMs: ms(9000)}, 9 * time.Second},
		{RunShellCommandRequest{Background: true}, 2 * time.Second},
	}
	for _, c := range cases {
		if got := readyWait(&c.in); got != c.want {
			t.Errorf("readyWait(%+v) = %v, want %v", c.in, got, c.want)
		}
	}
}
