package approval

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// popupAnswering is a Popup that runs the popup script with keys as the
// person's typing, after delay; "" never answers (until ctx ends).
func popupAnswering(keys map[string]string, delay map[string]time.Duration) func(context.Context, string, string) error {
	return func(ctx context.Context, client, cmd string) error {
		k, ok := keys[client]
		if !ok || k == "" {
			<-ctx.Done()
			return ctx.Err()
		}
		if k == "fail" {
			return errors.New("no such client")
		}
		select {
		case <-time.After(delay[client]):
		case <-ctx.Done():
			return ctx.Err()
		}
		c := exec.CommandContext(ctx, "sh", "-c", cmd)
		c.Stdin = strings.NewReader(k)
		return c.Run()
	}
}

func TestTheFirstAnswerWinsAndTheOthersAreWithdrawn(t *testing.T) {
	cases := []struct {
		name     string
		keys     map[string]string
		delay    map[string]time.Duration
		approver string
		timeout  time.Duration
		want     Decision
		by       string
		all      bool
	}{
		{name: "y on one client", keys: map[string]string{"c1": "", "c2": "y"}, want: Approved, by: "tmux:c2"},
		{name: "a allows the session", keys: map[string]string{"c1": "a"}, want: Approved, by: "tmux:c1", all: true},
		{name: "q denies", keys: map[string]string{"c1": "q"}, want: Denied, by: "tmux:c1"},
		{name: "the faster of two", keys: map[string]string{"c1": "y", "c2": "n"}, delay: map[string]time.Duration{"c1": 3 * time.Second}, want: Denied, by: "tmux:c2"},
		{name: "silence", keys: map[string]string{"c1": ""}, timeout: 300 * time.Millisecond, want: DeniedTimeout, by: "tmux"},
		{name: "every popup fails", keys: map[string]string{"c1": "fail", "c2": "fail"}, want: DeniedError, by: "tmux"},
		{name: "the program beats the popup", keys: map[string]string{"c1": ""}, approver: "echo approve", want: Approved, by: "exec:approver"},
		{name: "the popup beats the program", keys: map[string]string{"c1": "n"}, approver: "sleep 30", want: Denied, by: "tmux:c1"},
		{name: "a crashed program leaves the popup", keys: map[string]string{"c1": "y"}, delay: map[string]time.Duration{"c1": 500 * time.Millisecond}, approver: "kill -KILL $$", want: Approved, by: "tmux:c1"},
		{name: "only a crashed program", approver: "kill -KILL $$", want: DeniedError, by: "tmux"},
		{name: "only a silent program", approver: "sleep 30", timeout: 300 * time.Millisecond, want: DeniedTimeout, by: "tmux"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var clients []string
			for k := range c.keys {
				clients = append(clients, k)
			}
			closed := map[string]bool{}
			a := &Asker{Dir: t.TempDir(), Timeout: 30 * time.Second, Popup: popupAnswering(c.keys, c.delay),
				Close: func(_ context.Context, client string) { closed[client] = true }}
			if c.timeout > 0 {
				a.Timeout = c.timeout
			}
			if c.approver != "" {
				a.Approver = script(t, c.approver)
			}
			start := time.Now()
			ans := a.Ask(context.Background(), clients, Request{Tool: "run_shell_command", Command: "ls"})
			if ans.Decision != c.want || ans.By != c.by || ans.AllowAll != c.all {
				t.Fatalf("%+v, want %s by %s (allow all %v)", ans, c.want, c.by, c.all)
			}
			if time.Since(start) > 20*time.Second {
				t.Fatalf("took %v: a losing asker was not withdrawn", time.Since(start))
			}
			for _, cl := range clients {
				if !closed[cl] {
					t.Errorf("the popup on %s was not closed", cl)
				}
			}
		})
	}
}

func TestAWithdrawnReviewIsDeniedAndStopsEveryAsker(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	a := &Asker{Dir: t.TempDir(), Timeout: time.Minute, Approver: script(t, "sleep 60"), Popup: popupAnswering(map[string]string{"c1": ""}, nil)}
	start := time.Now()
	if ans := a.Ask(ctx, []string{"c1"}, Request{Command: "ls"}); ans.Decision != DeniedError {
		t.Fatalf("withdrawn: %+v", ans)
	}
	if time.Since(start) > 15*time.Second {
		t.Fatalf("withdrawal took %v", time.Since(start))
	}
}

func TestOneReviewAtATimeAndAllowForTheSession(t *testing.T) {
	var s Slot
	if !s.Claim() || s.Claim() {
		t.Fatal("the slot is not exclusive")
	}
	s.Release(false)
	if s.AllowedAll() || !s.Claim() {
		t.Fatal("release")
	}
	s.Release(true)
	if !s.AllowedAll() {
		t.Fatal("allow for the session was forgotten")
	}
}

func TestAnElicitedAnswerIsBoundToItsRequestAndUsedOnce(t *testing.T) {
	var es Elicitations
	e := Elicitation{Command: "echo A", Pane: "%1", CWD: "/tmp", RequestID: "r1"}
	state := es.Open(e, time.Minute)
	got, ok := es.Take(state)
	if !ok || !got.Matches(e) {
		t.Fatalf("take: %+v %v", got, ok)
	}
	if _, ok := es.Take(state); ok {
		t.Fatal("an answer was used twice")
	}
	for _, other := range []Elicitation{{Command: "echo B", Pane: "%1", CWD: "/tmp", RequestID: "r1"}, {Command: "echo A", Pane: "%2", CWD: "/tmp", RequestID: "r1"}, {Command: "echo A", Pane: "%1", CWD: "/", RequestID: "r1"}} {
		if e.Matches(other) {
			t.Errorf("%+v matches %+v", e, other)
		}
	}
	if _, ok := es.Take(es.Open(e, -time.Second)); ok {
		t.Fatal("an expired elicitation was taken")
	}
}
