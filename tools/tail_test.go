package tools

import (
	"strings"
	"testing"
)

// capture_since with lastLines reads the end of a pane's recording with no
// cursor arithmetic, and its cursor continues with what comes next; bad
// tail reads are refused naming the field and the fix.
func TestTheLastLinesOfAPaneAreOneCallAway(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	e.runCmd(t, map[string]any{"paneId": pane, "command": "seq 1 500"})
	r := e.ok(t, "capture_since", map[string]any{"paneId": pane, "lastLines": 3})
	lines := strings.Split(r.Str("output"), "\n")
	if len(lines) != 3 || lines[0] != "499" || lines[1] != "500" {
		t.Fatalf("last 3 lines: %q", r.Str("output"))
	}
	e.run(t, pane, "echo after-the-tail")
	w := e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": r.Str("cursor"), "patterns": []string{"^after-the-tail$"}, "regex": true, "timeoutMs": 20000})
	if w.Str("outcome") != "matched" || strings.Contains(w.Str("output"), "500") {
		t.Fatalf("wait from the tail's cursor: %v", w.M)
	}
	for _, bad := range []struct {
		args  map[string]any
		field string
	}{
		{map[string]any{"paneId": pane, "lastLines": 0}, "lastLines"},
		{map[string]any{"paneId": pane, "lastLines": 100001}, "lastLines"},
		{map[string]any{"paneId": pane, "lastLines": 5, "cursor": r.Str("cursor")}, "cursor"},
		{map[string]any{"paneId": pane, "lastLines": 5, "maxLines": 2}, "maxLines"},
	} {
		x := e.call(t, "capture_since", bad.args)
		if !x.IsError || !strings.Contains(x.Text, bad.field) {
			t.Errorf("%v: want a tool error naming %s: %v %s", bad.args, bad.field, x.IsError, x.Text)
		}
	}
	quiet := e.ok(t, "create_pane", map[string]any{"argv": []string{"sleep", "30"}})
	if x := e.call(t, "capture_since", map[string]any{"paneId": quiet.Str("paneId"), "lastLines": 3}); !x.IsError || !strings.Contains(x.Text, "nothing recorded") || !strings.Contains(x.Text, "wait_for_text") {
		t.Errorf("a pane that printed nothing: want an error saying so and what to do: %v %s", x.IsError, x.Text)
	}
	e.ok(t, "kill_pane", map[string]any{"paneId": pane})
	// Once tmuxmcp has seen the pane go (a wait on it ends), reads without
	// a cursor are refused and point to the cursor route.
	if d := e.call(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": w.Str("cursor"), "patterns": []string{"never-printed"}, "timeoutMs": 20000}); !d.IsError && d.Str("outcome") != "pane_died" {
		t.Fatalf("a wait on the killed pane: %v", d.M)
	}
	x := e.call(t, "capture_since", map[string]any{"paneId": pane, "lastLines": 3})
	if !x.IsError || !strings.Contains(x.Text, "cursor you already have") {
		t.Fatalf("a closed pane's error does not point to the cursor route: %s", x.Text)
	}
	if got := e.ok(t, "capture_since", map[string]any{"paneId": pane, "cursor": r.Str("cursor")}); !strings.Contains(got.Str("output"), "after-the-tail") {
		t.Fatalf("a closed pane's output from a cursor: %v", got.M)
	}
}
