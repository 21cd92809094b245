package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/internal/tmuxtest"
)

// personOf is list_panes' person field for pane ("" for null).
func (e *env) personOf(t *testing.T, pane string) string {
	t.Helper()
	r := e.ok(t, "list_panes", map[string]any{})
	for _, p := range r.M["panes"].([]any) {
		m := p.(map[string]any)
		if m["paneId"] == pane {
			s, _ := m["person"].(string)
			return s
		}
	}
	t.Fatalf("list_panes has no %s: %v", pane, r)
	return ""
}

// awaitPerson waits until list_panes says want of pane's person (tmux
// tells tmuxmcp of the option within its one-second subscription timer).
func (e *env) awaitPerson(t *testing.T, pane, want string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for e.personOf(t, pane) != want {
		if time.Now().After(deadline) {
			t.Fatalf("%s: person never became %q (now %q)", pane, want, e.personOf(t, pane))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// handOffKey presses prefix T (C-b T) at a person's pace: keys that come
// within tmux's assume-paste-time of the one before are taken as pasted
// text, and go to the pane instead of starting a binding.
func handOffKey(t *testing.T, human *tmuxtest.Human) {
	t.Helper()
	for _, k := range []string{"\x02", "T"} {
		time.Sleep(100 * time.Millisecond)
		if err := human.Type(k); err != nil {
			t.Fatal(err)
		}
	}
}

// handOffWorld is a server tmuxmcp started itself (the hand-off key is
// bound there), a person's client attached, and a bash pane the person
// looks at.
func handOffWorld(t *testing.T) (*env, *tmuxtest.Human, string) {
	target := tmuxtest.Server(t, "agent", 120, 40)
	ctx := context.Background()
	e := newEnv(t, envOptions{target: &target, restart: true})
	human := tmuxtest.AttachHuman(t, target, "agent", 120, 40)
	pane, _ := e.shell(t)
	deadline := time.Now().Add(20 * time.Second)
	for {
		// Attached once tmux lists a client that is not tmuxmcp's.
		out, err := target.Run(ctx, "list-clients", "-F", "#{client_control_mode}")
		if err == nil && strings.Contains(out, "0") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the person's client never attached: %q %v", out, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := target.Run(ctx, "select-window", "-t", pane); err != nil {
		t.Fatal(err)
	}
	return e, human, pane
}

// A person takes a pane with prefix T: run_shell_command, type_text and
// send_keys refuse it (saying why and how to wait), reads go on, and
// list_panes shows it; prefix T again gives it back and commands run.
func TestAPersonTakesAPaneWithTheKeyAndGivesItBack(t *testing.T) {
	t.Parallel()
	e, human, pane := handOffWorld(t)
	mark := human.Mark()
	handOffKey(t, human)
	if !human.WaitFor(mark, "this pane is yours", 20*time.Second) {
		t.Fatalf("the person was not told the pane is theirs:\n%q", human.Screen())
	}
	e.awaitPerson(t, pane, "took")
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"run_shell_command", map[string]any{"paneId": pane, "command": "echo AGENT-RAN"}},
		{"type_text", map[string]any{"paneId": pane, "text": "echo AGENT-TYPED", "submit": true}},
		{"send_keys", map[string]any{"paneId": pane, "keys": []string{"C-c"}}},
	} {
		r := e.call(t, c.tool, c.args)
		if !r.IsError || !strings.Contains(r.Text, "person") || !strings.Contains(r.Text, "ask_person") {
			t.Fatalf("%s into a person's pane: %v", c.tool, r)
		}
	}
	e.ok(t, "capture_pane", map[string]any{"paneId": pane})
	if screen := e.ok(t, "capture_pane", map[string]any{"paneId": pane}).Str("screen"); strings.Contains(screen, "AGENT-") {
		t.Fatalf("the agent's text reached the person's pane:\n%s", screen)
	}
	mark = human.Mark()
	handOffKey(t, human)
	if !human.WaitFor(mark, "given back", 20*time.Second) {
		t.Fatalf("the person was not told the pane is given back:\n%q", human.Screen())
	}
	e.awaitPerson(t, pane, "")
	if r := e.runCmd(t, map[string]any{"paneId": pane, "command": "echo after", "waitMs": 20000}); r.Str("output") != "after\n" {
		t.Fatalf("after the give-back: %v", r)
	}
}

// ask_person shows the agent's message on the person's terminal, keeps
// the pane from the agent's input, and returns when the person gives it
// back, with what the pane printed meanwhile; what the person typed at a
// prompt with echo off (a password) is nowhere: not in the result, not in
// tmuxmcp's state directory.
func TestAskPersonWaitsForThePaneBackAndNeverReturnsWhatTheyTypedUnseen(t *testing.T) {
	t.Parallel()
	e, human, pane := handOffWorld(t)
	cur := e.run(t, pane, `read -r -s -p 'Password: ' PW; echo; echo "read ${#PW} characters"`)
	w := e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": cur, "patterns": []string{"Password: "}, "timeoutMs": 20000})
	if w.Str("outcome") != "matched" {
		t.Fatalf("no password prompt: %v", w)
	}
	mark := human.Mark()
	done := make(chan result, 1)
	go func() {
		done <- e.ok(t, "ask_person", map[string]any{"paneId": pane, "message": "type the test password, then press prefix T", "timeoutMs": 60000})
	}()
	if !human.WaitFor(mark, "type the test password", 20*time.Second) {
		t.Fatalf("the person never saw the message:\n%q", human.Screen())
	}
	e.awaitPerson(t, pane, "asked")
	if r := e.call(t, "type_text", map[string]any{"paneId": pane, "text": "x"}); !r.IsError {
		t.Fatalf("type_text while the person has the pane: %v", r)
	}
	const secret = "hunter2-SECRET-typed"
	if err := human.Type(secret + "\r"); err != nil {
		t.Fatal(err)
	}
	if !human.WaitFor(mark, "read 20 characters", 20*time.Second) {
		t.Fatalf("the read did not end:\n%q", human.Screen())
	}
	handOffKey(t, human)
	var r result
	select {
	case r = <-done:
	case <-time.After(60 * time.Second):
		t.Fatalf("ask_person did not return after the give-back:\n%q", human.Screen()[max(0, len(human.Screen())-3000):])
	}
	if r.Str("outcome") != "given_back" || r.Num("shownTo") != 1 || !strings.Contains(r.Str("output"), "read 20 characters") {
		t.Fatalf("ask_person: %v", r)
	}
	if strings.Contains(r.Text, secret) {
		t.Fatalf("the password is in the result: %v", r)
	}
	e.awaitPerson(t, pane, "")
	stateDir := e.h.Config().StateDir
	_ = filepath.WalkDir(stateDir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, rerr := os.ReadFile(path); rerr == nil && strings.Contains(string(b), secret) {
				t.Errorf("the password is in %s", path)
			}
		}
		return nil
	})
}

// ask_person's timeout leaves the pane with the person (the agent is told
// to wait on or withdraw), and withdraw takes it back.
func TestAskPersonTimesOutWithThePaneStillThePersonsUntilWithdrawn(t *testing.T) {
	t.Parallel()
	e, _, pane := handOffWorld(t)
	r := e.ok(t, "ask_person", map[string]any{"paneId": pane, "message": "look at this", "timeoutMs": 300})
	if r.Str("outcome") != "timeout" {
		t.Fatalf("ask_person: %v", r)
	}
	if e.personOf(t, pane) != "asked" {
		t.Fatal("the pane went back to the agent on timeout")
	}
	if r := e.call(t, "ask_person", map[string]any{"paneId": pane, "message": strings.Repeat("x", 201)}); !r.IsError || !strings.Contains(r.Text, "message") {
		t.Fatalf("a long message: %v", r)
	}
	if r := e.ok(t, "ask_person", map[string]any{"paneId": pane, "withdraw": true}); r.Str("outcome") != "withdrawn" {
		t.Fatalf("withdraw: %v", r)
	}
	if r := e.runCmd(t, map[string]any{"paneId": pane, "command": "echo mine", "waitMs": 20000}); r.Str("output") != "mine\n" {
		t.Fatalf("after withdraw: %v", r)
	}
}

// Keys a person types into a pane while an agent's command runs there are
// flagged in that command's result (personInput); a command nobody typed
// into is not flagged.
func TestKeysAPersonTypesDuringACommandAreFlaggedInItsResult(t *testing.T) {
	t.Parallel()
	e, human, pane := handOffWorld(t)
	if r := e.runCmd(t, map[string]any{"paneId": pane, "command": "sleep 1.2; echo alone", "waitMs": 20000}); r.Str("output") != "alone\n" || r.M["personInput"] != false {
		t.Fatalf("nobody typed: %v", r)
	}
	r := e.runCmd(t, map[string]any{"paneId": pane, "command": "sleep 3; echo watched", "waitMs": 100})
	time.Sleep(1200 * time.Millisecond) // a person's pace: keys in a later second than the start
	if err := human.Type("xyz"); err != nil {
		t.Fatal(err)
	}
	r = e.ok(t, "await_command_result", map[string]any{"jobId": r.Str("jobId"), "waitMs": 20000})
	if r.Str("status") != "completed" || r.M["personInput"] != true {
		t.Fatalf("a person typed during the command: %v", r)
	}
}
