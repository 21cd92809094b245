package tools

import (
	"strings"
	"testing"
)

func TestEverydayUse(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	pane, c := e.shell(t)

	// Any output ends a wait without patterns.
	e.run(t, pane, "echo any-output")
	w := e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": c, "timeoutMs": 20000})
	if w.Str("outcome") != "matched" || w.M["matched"] != nil || w.Str("output") == "" {
		t.Fatalf("no-pattern wait: %v", w)
	}

	// C-c interrupts a running program; the prompt comes back.
	// (Wait until the program runs: a C-c that lands between bash's fork and
	// exec is lost to a known bash race, and sleep would then run 100s.)
	c = e.run(t, pane, "sh -c 'echo sleeper-started; exec sleep 100'")
	if w := e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": c, "patterns": []string{"^sleeper-started$"}, "regex": true, "timeoutMs": 20000}); w.Str("outcome") != "matched" {
		t.Fatalf("sleeper: %v", w)
	}
	k := e.ok(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"C-c"}})
	if k.M["submitted"] == true {
		t.Fatalf("C-c submits no line, yet the result says submitted: %v", k)
	}
	w = e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": k.Str("cursor"), "patterns": []string{promptPattern}, "regex": true, "timeoutMs": 20000})
	if w.Str("outcome") != "matched" {
		t.Fatalf("prompt after C-c: %v", w)
	}

	// Multi-line text is pasted as one unit and runs as a whole on Enter.
	c = e.ok(t, "type_text", map[string]any{"paneId": pane, "text": "echo line-one\necho line-two", "submit": true}).Str("cursor")
	w = e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": c, "patterns": []string{"^line-two$"}, "regex": true, "timeoutMs": 20000})
	if w.Str("outcome") != "matched" {
		t.Fatalf("multi-line: %v", w)
	}
	mustContain(t, "output", w.Str("output"), "\nline-one\n")

	// capture_pane: the screen, its size, and history.
	cp := e.ok(t, "capture_pane", map[string]any{"paneId": pane, "startLine": -50})
	mustContain(t, "screen", cp.Str("screen"), "line-two")
	if cp.Num("width") != 120 || cp.Str("currentCommand") != "bash" || cp.M["dead"] != false {
		t.Fatalf("capture_pane fields: %v", cp)
	}
	// Its cursor reflects the snapshot: a wait from it sees only later output.
	e.run(t, pane, "echo after-snapshot")
	w = e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": cp.Str("cursor"), "patterns": []string{"line-two", "^after-snapshot$"}, "regex": true, "timeoutMs": 20000})
	if w.Str("matched") != "after-snapshot" || w.Num("patternIndex") != 1 {
		t.Fatalf("wait from capture_pane's cursor: %v", w)
	}

	// A program with arguments, environment, directory and window name.
	cr := e.ok(t, "create_pane", map[string]any{"argv": []string{"sh", "-c", `echo "v=$TMUXMCP_V d=$(pwd)"; exec cat`}, "env": map[string]any{"TMUXMCP_V": "42"}, "cwd": "/tmp", "name": "worker"})
	w = e.ok(t, "wait_for_text", map[string]any{"paneId": cr.Str("paneId"), "cursor": cr.Str("cursor"), "patterns": []string{"v=42 d=/tmp"}, "timeoutMs": 20000})
	if w.Str("outcome") != "matched" {
		t.Fatalf("argv/env/cwd: %v", w)
	}
	// Splits, and the session filter of list_panes.
	sp := e.ok(t, "create_pane", map[string]any{"split": "horizontal", "targetPaneId": pane})
	panes := e.ok(t, "list_panes", map[string]any{"session": "agent"}).M["panes"].([]any)
	var sawWorker, sawSplit bool
	for _, p := range panes {
		m := p.(map[string]any)
		sawWorker = sawWorker || (m["paneId"] == cr.Str("paneId") && m["window"] == "worker")
		sawSplit = sawSplit || m["paneId"] == sp.Str("paneId")
		if m["cursor"] == nil {
			t.Errorf("pane %v has no cursor", m["paneId"])
		}
	}
	if !sawWorker || !sawSplit {
		t.Fatalf("list_panes: %v", panes)
	}
	if r := e.call(t, "list_panes", map[string]any{"session": "nope"}); !r.IsError || !strings.Contains(r.Text, "nope") {
		t.Fatalf("unknown session: %v", r)
	}
	e.ok(t, "kill_pane", map[string]any{"paneId": cr.Str("paneId")})
}
