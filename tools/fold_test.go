package tools

import (
	"os"
	"strings"
	"testing"
)

// A progress bar drawn with \r between two log lines is one line, in its
// final state, in output and in the output file; the result says how many
// redraws were folded away.
func TestAProgressBarIsOneLineInOutputAndInTheFile(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	r := e.runCmd(t, map[string]any{"paneId": pane, "command": `echo first log line; for i in $(seq 1 100); do printf '\rprogress %3d%%' $i; done; printf '\n'; echo last log line`})
	if r.Str("status") != "completed" || r.Str("output") != "first log line\nprogress 100%\nlast log line\n" || r.Num("foldedRedraws") != 99 {
		t.Fatalf("a 100-step bar: %v", r)
	}
	t.Logf("100-step bar: outputBytes %d, foldedRedraws %d", r.Num("outputBytes"), r.Num("foldedRedraws"))
	// Cut to 128 bytes: the whole output is in the file, folded the same.
	r = e.runCmd(t, map[string]any{"paneId": pane, "outputLimit": 128, "command": `L=$(printf '%060d' 0); echo "first $L"; for i in $(seq 1 100); do printf '\rprogress %3d%% %s' $i "$L"; done; printf '\n'; echo "last $L"`})
	zeros := strings.Repeat("0", 60)
	want := "first " + zeros + "\nprogress 100% " + zeros + "\nlast " + zeros + "\n"
	file := r.Str("outputFile")
	if file == "" || r.Num("foldedRedraws") != 99 || r.Num("outputBytes") != int64(len(want)) {
		t.Fatalf("a cut bar: %v", r)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != want {
		t.Fatalf("the output file holds %q (%v), want %q", b, err, want)
	}
}

// What a terminal shows is what output holds: a shorter redraw keeps the
// longer line's tail, erase-line clears it, \r\n is an ordinary line end,
// and a bar over two lines redrawn with the cursor moved up is two lines.
func TestOutputIsWhatTheTerminalShows(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	for _, c := range []struct {
		cmd, output string
		folded      int64
	}{
		{`printf 'abcdef\rXY\n'`, "XYcdef\n", 1},
		{`printf 'abcdef\rXY\033[K\n'`, "XY\n", 1},
		{`printf 'abcdef\033[2K\rXY\n'`, "XY\n", 1},
		{`printf 'one\r\ntwo\r\n'`, "one\ntwo\n", 0},
		{`printf 'a 1\nb 1\n'; printf '\033[2A\033[2Ka 2\n\033[2Kb 2\n'; echo end`, "a 2\nb 2\nend\n", 2},
		{`printf 'done: 3/3'`, "done: 3/3", 0},
	} {
		r := e.runCmd(t, map[string]any{"paneId": pane, "command": c.cmd})
		if r.Str("status") != "completed" || r.Str("output") != c.output || r.Num("foldedRedraws") != c.folded {
			t.Errorf("%s: output %q, foldedRedraws %d; want %q, %d", c.cmd, r.Str("output"), r.Num("foldedRedraws"), c.output, c.folded)
		}
	}
}

// A running job's output shows the line being drawn as it is now; waits
// still see every redraw as it happens (they match the stream, not the
// folded output).
func TestARunningBarShowsItsCurrentStateAndWaitsSeeEachStep(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	r := e.runCmd(t, map[string]any{"paneId": pane, "waitMs": 0, "command": `echo started; for i in $(seq 1 60); do printf '\rstep %d/60' $i; sleep 0.02; done; read -r -p ' ok? ' x; echo`})
	w := e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": r.Str("cursor"), "patterns": []string{"step 30/60"}, "timeoutMs": 30000})
	if w.Str("outcome") != "matched" {
		t.Fatalf("a wait for one step of the bar: %v", w)
	}
	a := e.ok(t, "await_command_result", map[string]any{"jobId": r.Str("jobId"), "waitMs": 30000})
	if a.Str("status") != "running" || a.Str("output") != "started\nstep 60/60 ok? " || a.Num("foldedRedraws") != 59 {
		t.Fatalf("while it asks: %v", a)
	}
	e.ok(t, "type_text", map[string]any{"paneId": pane, "text": "y", "submit": true})
	a = e.ok(t, "await_command_result", map[string]any{"jobId": r.Str("jobId"), "waitMs": 30000})
	if a.Str("status") != "completed" || a.Str("output") != "started\nstep 60/60 ok? y\n\n" {
		t.Fatalf("at its end: %v", a)
	}
}

// A full-screen program's text carries no blanks that only pad its rows:
// not in capture_pane (with or without escapes), not in a job's output.
func TestAFullScreenProgramIsNotPaddedWithBlanks(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	r := e.runCmd(t, map[string]any{"paneId": pane, "command": "top -n 1"})
	if r.Str("status") != "completed" || !strings.Contains(r.Str("output"), "PID") {
		t.Fatalf("top -n 1: %v", r)
	}
	padded := func(what, text string) {
		t.Helper()
		lines := strings.Split(text, "\n")
		for i, l := range lines {
			if strings.HasSuffix(l, " ") {
				t.Errorf("%s: line %d ends with blanks: %q", what, i, l)
			}
		}
		if n := len(lines); n > 1 && lines[n-1] == "" && lines[n-2] == "" {
			t.Errorf("%s ends with empty lines: %q", what, text)
		}
	}
	padded("top's output", r.Str("output"))
	top := e.ok(t, "create_pane", map[string]any{"argv": []string{"top", "-d", "60"}})
	w := e.ok(t, "wait_for_text", map[string]any{"paneId": top.Str("paneId"), "cursor": top.Str("cursor"), "patterns": []string{"PID"}, "timeoutMs": 20000})
	if w.Str("outcome") != "matched" {
		t.Fatalf("top never drew: %v", w)
	}
	for _, escapes := range []bool{false, true} {
		c := e.ok(t, "capture_pane", map[string]any{"paneId": top.Str("paneId"), "escapes": escapes})
		if !strings.Contains(c.Str("screen"), "PID") {
			t.Fatalf("capture_pane: %v", c)
		}
		padded("capture_pane", c.Str("screen"))
	}
}
