package tools

import (
	"strings"
	"testing"
	"time"
)

func TestHugeTimeoutIsClampedNotOverflowed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{waitMax: time.Second})
	pane, _ := e.shell(t)
	r := e.call(t, "wait_for_text", map[string]any{"paneId": pane, "timeoutMs": int64(10000000000000)})
	if r.IsError || r.Str("outcome") != "timed_out" || r.Num("effectiveTimeoutMs") != 1000 {
		t.Fatalf("timeoutMs 1e13: %v", r)
	}
}

func TestAfterQuittingAPagerTheNextCommandsEchoIsStillMasked(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	c := e.run(t, pane, "seq 200 | less")
	e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": c, "patterns": []string{":"}, "timeoutMs": 5000})
	c = e.ok(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"q"}}).Str("cursor")
	e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": c, "patterns": []string{promptPattern}, "regex": true, "timeoutMs": 5000})
	c = e.run(t, pane, "echo MARK")
	w := e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": c, "patterns": []string{"MARK"}, "timeoutMs": 5000})
	lines := strings.Split(w.Str("output"), "\n")
	if last := lines[len(lines)-1]; last != "MARK" {
		t.Fatalf("matched the echo: last line %q, output %q", last, w.Str("output"))
	}
}

func TestOwnEchoPrintedDuringTheWaitIsNotAlreadyOnScreen(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	c := e.ok(t, "type_text", map[string]any{"paneId": pane, "text": "echo ZQX"}).Str("cursor")
	w := e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": c, "patterns": []string{"ZQX"}, "timeoutMs": 500})
	if w.M["alreadyOnScreen"] == true {
		t.Fatalf("alreadyOnScreen for text printed during the wait (own unsubmitted echo): %v", w)
	}
}

func TestAnEmptyWidthRegexNeitherMatchesNorFails(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	c := e.run(t, pane, "echo hi")
	r := e.call(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": c, "patterns": []string{"x*"}, "regex": true, "timeoutMs": 1000})
	if r.IsError || r.Str("outcome") == "matched" || r.M["alreadyOnScreen"] == true {
		t.Fatalf("an empty-width regex: %v", r)
	}
}
