package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/internal/mcptest"
)

// Over SSH as here: a command that asks comes back within moments saying
// waitingForInput, in a pane, a fresh pane and in the background of each;
// a background command's cursor serves wait_for_text and
// await_command_result; a shell that ends during a command says how.
func TestOverSSHEveryModeTellsAQuestionACursorAndAShellsEnd(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	w := startRemoteWorld(t, bin)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	call := func(name string, args map[string]any) mcptest.Result {
		args["host"] = "box"
		return mcptest.OK(ctx, t, w.cs, name, args)
	}
	for _, m := range []struct {
		name              string
		fresh, background bool
	}{{"pane", false, false}, {"fresh pane", true, false}, {"background in a pane", false, true}, {"background in a fresh pane", true, true}} {
		args := map[string]any{"command": `read -p 'Name? ' v; echo "got $v"`, "waitMs": 60000}
		if !m.fresh {
			args["paneId"] = w.boxPane
		}
		if m.background {
			delete(args, "waitMs")
			args["background"] = true
		}
		start := time.Now()
		r := call("run_shell_command", args)
		if m.background {
			if r.Str("launchOutcome") != "STARTED" || r.M["cursor"] == nil {
				t.Fatalf("%s: a background command answers STARTED with a cursor: %v", m.name, r.M)
			}
			r = call("await_command_result", map[string]any{"jobId": r.Str("jobId"), "waitMs": 60000})
		}
		took := time.Since(start)
		if took > 20*time.Second || r.Str("status") != "running" || r.M["waitingForInput"] != true || r.Str("prompt") != "Name?" {
			t.Fatalf("%s: want waiting for input at Name? within moments (took %v): %v", m.name, took, r.M)
		}
		t.Logf("over ssh, %s: waitingForInput after %v", m.name, took.Round(10*time.Millisecond))
		call("type_text", map[string]any{"paneId": r.Str("paneId"), "text": "box", "submit": true})
		if a := call("await_command_result", map[string]any{"jobId": r.Str("jobId"), "waitMs": 30000}); a.Str("status") != "completed" || !strings.Contains(a.Str("output"), "got box") {
			t.Fatalf("%s: after the answer: %v", m.name, a.M)
		}
	}
	bg := call("run_shell_command", map[string]any{"command": "sleep 1; echo remote-$((6*7))", "background": true, "keep": true})
	if wt := call("wait_for_text", map[string]any{"paneId": bg.Str("paneId"), "cursor": bg.Str("cursor"), "patterns": []string{"remote-42"}, "timeoutMs": 30000}); wt.Str("outcome") != "matched" {
		t.Fatalf("wait_for_text from a background fresh pane's cursor over ssh: %v", wt.M)
	}
	if a := call("await_command_result", map[string]any{"jobId": bg.Str("jobId"), "cursor": bg.Str("cursor"), "waitMs": 30000}); a.Str("output") != "remote-42\n" {
		t.Fatalf("await_command_result from the same cursor over ssh: %v", a.M)
	}
	cp := call("create_pane", map[string]any{"waitMs": 30000})
	for _, c := range []struct {
		args   map[string]any
		code   any
		signal any
	}{
		{map[string]any{"command": "exit 3"}, float64(3), nil},
		{map[string]any{"command": "kill -KILL $$", "paneId": cp.Str("paneId")}, nil, "SIGKILL"},
	} {
		if r := call("run_shell_command", c.args); r.Str("status") != "pane_died" || r.M["exitCode"] != c.code || r.M["signal"] != c.signal {
			t.Fatalf("%v over ssh: want pane_died, exitCode %v, signal %v: %v", c.args, c.code, c.signal, r.M)
		}
	}
}
