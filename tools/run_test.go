package tools

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/internal/mcptest"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

func (e *env) runCmd(t *testing.T, args map[string]any) result {
	t.Helper()
	return e.ok(t, "run_shell_command", args)
}

func TestRunShellCommandExitStatusOutputAndState(t *testing.T) {
	t.Parallel()
	for _, sh := range []string{"/bin/bash", "/bin/zsh"} {
		t.Run(sh, func(t *testing.T) { t.Parallel(); testExitStatusOutputAndState(t, sh) })
	}
}

func testExitStatusOutputAndState(t *testing.T, sh string) {
	e := newEnv(t, envOptions{shell: sh})
	pane, _ := e.shell(t)
	cases := []struct {
		cmd    string
		code   int
		signal string
		output string
	}{
		{"false", 1, "", ""},
		{"(exit 3)", 3, "", ""},
		{"sh -c 'kill -TERM $$'", 143, "SIGTERM", "?"}, // the shell may report the signal
		{`printf 'a\nb\n'`, 0, "", "a\nb\n"},
		{"cd /tmp", 0, "", ""},
		{"pwd", 0, "", "/tmp\n"},
		{"export X=1", 0, "", ""},
		{"echo $X", 0, "", "1\n"},
	}
	for _, c := range cases {
		r := e.runCmd(t, map[string]any{"paneId": pane, "command": c.cmd})
		if r.Str("status") != "completed" || r.Num("exitCode") != int64(c.code) || (c.output != "?" && r.Str("output") != c.output) {
			t.Fatalf("%s: %v", c.cmd, r)
		}
		if c.signal != "" && r.Str("signal") != c.signal {
			t.Fatalf("%s: signal %v", c.cmd, r.M["signal"])
		}
		if r.Str("launchOutcome") != "STARTED" || r.Str("decision") != "auto-approved" || r.Str("paneId") != pane {
			t.Fatalf("%s: %v", c.cmd, r)
		}
	}
}

func TestRunShellCommandTextArrivesExactly(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	// The marks' literal form, quotes, a tab, unicode, a leading dash, and
	// several lines.
	cmd := "printf '%s\\n' '\\033]133;D;0\\007' \"it's\" 'a\tb' 'é日😀' -dash\necho second-line"
	r := e.runCmd(t, map[string]any{"paneId": pane, "command": cmd})
	want := "\\033]133;D;0\\007\nit's\na\tb\né日😀\n-dash\nsecond-line\n"
	if r.Str("status") != "completed" || r.Num("exitCode") != 0 || r.Str("output") != want {
		t.Fatalf("got %v\nwant output %q", r, want)
	}
	// In a pane without integration (a plain sh), through the wrapper.
	cr := e.ok(t, "create_pane", map[string]any{"argv": []string{"sh"}})
	w := e.ok(t, "wait_for_text", map[string]any{"paneId": cr.Str("paneId"), "cursor": cr.Str("cursor"), "patterns": []string{promptPattern}, "regex": true, "timeoutMs": 20000})
	if w.Str("outcome") != "matched" {
		t.Fatalf("sh prompt: %v", w)
	}
	r = e.runCmd(t, map[string]any{"paneId": cr.Str("paneId"), "command": cmd})
	if r.Str("status") != "completed" || r.Str("output") != want {
		t.Fatalf("sh: got %v", r)
	}
	r = e.runCmd(t, map[string]any{"paneId": cr.Str("paneId"), "command": "false"})
	if r.Num("exitCode") != 1 {
		t.Fatalf("sh false: %v", r)
	}
}

func TestRunShellCommandPendingJobIsAwaitedNotRerun(t *testing.T) {
	// Not parallel: under other tests' load its job was once seen back at
	// the prompt without its output or end mark (completed, no exit code).
	state := t.TempDir()
	e := newEnv(t, envOptions{stateDir: state})
	pane, _ := e.shell(t)
	r := e.runCmd(t, map[string]any{"paneId": pane, "command": "sleep 3; echo done", "waitMs": 500})
	if r.Str("status") != "running" || r.Str("jobId") == "" {
		t.Fatalf("got %v", r)
	}
	a := e.ok(t, "await_command_result", map[string]any{"jobId": r.Str("jobId"), "waitMs": 20000})
	if a.Str("status") != "completed" || a.Num("exitCode") != 0 || a.Str("output") != "done\n" {
		t.Fatalf("await: %v", a)
	}
	l := e.ok(t, "list_commands", map[string]any{})
	if !strings.Contains(l.String(), r.Str("jobId")) {
		t.Fatalf("list_commands: %v", l)
	}
}

func TestRunShellCommandSurvivesRestart(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	e := newEnv(t, envOptions{stateDir: state})
	pane, _ := e.shell(t)
	r := e.runCmd(t, map[string]any{"paneId": pane, "command": "sleep 3; echo done", "waitMs": 500})
	if r.Str("status") != "running" {
		t.Fatalf("got %v", r)
	}
	// A second tmuxmcp on the same server and state directory.
	e.close()
	e2 := newEnv(t, envOptions{target: &e.target, stateDir: state})
	a := e2.ok(t, "await_command_result", map[string]any{"jobId": r.Str("jobId"), "waitMs": 20000})
	if a.Str("status") != "completed" || a.Num("exitCode") != 0 || a.Str("output") != "done\n" {
		t.Fatalf("await after restart: %v", a)
	}
}

// TestASecondTmuxmcpRunsCommandsInThePanesItFindsAtOnce: each MCP
// client session starts its own tmuxmcp on the same server; the next one,
// a moment after the last exits, runs a command in the pane it finds at
// once (not "still starting") and reads the pane raw again.
func TestASecondTmuxmcpRunsCommandsInThePanesItFindsAtOnce(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	e := newEnv(t, envOptions{stateDir: state, ingest: tmux.IngestPipe})
	pane, _ := e.shell(t)
	if r := e.runCmd(t, map[string]any{"paneId": pane, "command": "echo one"}); r.Str("output") != "one\n" {
		t.Fatalf("first: %v", r)
	}
	e.close()
	e2 := newEnv(t, envOptions{target: &e.target, stateDir: state, ingest: tmux.IngestPipe})
	start := time.Now()
	r := e2.runCmd(t, map[string]any{"paneId": pane, "command": "echo two", "waitMs": 20000})
	if r.Str("status") != "completed" || r.Str("output") != "two\n" {
		t.Fatalf("the second tmuxmcp's first command: %v", r)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the second tmuxmcp's first command took %v", d)
	}
	for _, p := range e2.ok(t, "list_panes", map[string]any{}).M["panes"].([]any) {
		if m := p.(map[string]any); m["paneId"] == pane && m["ingest"] != nil && m["ingest"] != tmux.IngestPipe {
			t.Errorf("the second tmuxmcp reads %s through %v: the first left its pipe", pane, m["ingest"])
		}
	}
}

func TestRunShellCommandRequestIDRunsOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	file := filepath.Join(t.TempDir(), "once")
	id := fmt.Sprintf("%032x", time.Now().UnixNano())
	cmd := fmt.Sprintf("sleep 1; echo x >> %s", file)
	first := e.runCmd(t, map[string]any{"paneId": pane, "command": cmd, "requestId": id, "waitMs": 100})
	second := e.runCmd(t, map[string]any{"paneId": pane, "command": cmd, "requestId": id, "waitMs": 20000})
	third := e.runCmd(t, map[string]any{"command": cmd, "requestId": id, "waitMs": 20000})
	if first.Str("jobId") != second.Str("jobId") || second.Str("jobId") != third.Str("jobId") || second.Str("status") != "completed" {
		t.Fatalf("jobs: %v / %v / %v", first, second, third)
	}
	b, err := os.ReadFile(file)
	if err != nil || string(b) != "x\n" {
		t.Fatalf("file %q, %v: the command ran more than once", b, err)
	}
}

func TestCancelCommand(t *testing.T) {
	// Not parallel: it bounds how long cancel_command takes (2 s, 5 s),
	// which other tests' load would stretch.
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	for _, c := range []struct {
		cmd    string
		within time.Duration
	}{
		{"sleep 100", 2 * time.Second},
		{"trap '' INT; sleep 100", 5 * time.Second},
	} {
		r := e.runCmd(t, map[string]any{"paneId": pane, "command": c.cmd, "waitMs": 300})
		if r.Str("status") != "running" {
			t.Fatalf("%s: %v", c.cmd, r)
		}
		start := time.Now()
		x := e.ok(t, "cancel_command", map[string]any{"jobId": r.Str("jobId")})
		if x.Str("status") != "interrupted" || x.M["signal"] == nil {
			t.Fatalf("%s: %v", c.cmd, x)
		}
		if d := time.Since(start); d > c.within {
			t.Fatalf("%s: interrupted after %v", c.cmd, d)
		}
		t.Logf("%s: interrupted by %s after %v", c.cmd, x.Str("signal"), time.Since(start))
	}
	// The shell survives: the pane still runs commands.
	if r := e.runCmd(t, map[string]any{"paneId": pane, "command": "echo alive"}); r.Str("output") != "alive\n" {
		t.Fatalf("after cancel: %v", r)
	}
}

func TestRunShellCommandBoundedOutputKeepsAllOnDisk(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	r := e.runCmd(t, map[string]any{"command": "echo BEGIN; head -c 102400 /dev/zero | tr '\\0' 'x'; echo; echo END", "outputLimit": 1024})
	out := r.Str("output")
	if r.Str("status") != "completed" || len(out) > 1024 || !strings.HasPrefix(out, "BEGIN\n") || !strings.HasSuffix(out, "\nEND\n") || !strings.Contains(out, "\n[… tmuxmcp left out ") {
		t.Fatalf("head and tail: %v", r)
	}
	if r.Num("outputBytes") != 6+102400+5 || r.Num("omittedBytes") <= 0 || r.Num("omittedBytes") >= r.Num("outputBytes") {
		t.Fatalf("counts: %v", r)
	}
	b, err := os.ReadFile(r.Str("outputFile"))
	if err != nil || len(b) != 6+102405 || string(b[:9]) != "BEGIN\nxxx" || !strings.HasSuffix(string(b), "x\nEND\n") {
		t.Fatalf("outputFile %d bytes, %v", len(b), err)
	}
	// The fresh pane is gone once the result is collected.
	if strings.Contains(e.ok(t, "list_panes", map[string]any{}).String(), `"paneId":"`+r.Str("paneId")+`"`) {
		t.Fatalf("fresh pane %s still open", r.Str("paneId"))
	}
}

func TestRunShellCommandRefusesPanesThatAreNotReady(t *testing.T) {
	// Not parallel: the person's half line must be on screen within the
	// 500 ms wait, which other tests' load would stretch.
	e := newEnv(t, envOptions{})
	busy, _ := e.shell(t)
	e.run(t, busy, "sleep 30")
	copyPane, _ := e.shell(t)
	if _, err := e.target.Run(t.Context(), "copy-mode", "-t", copyPane); err != nil {
		t.Fatal(err)
	}
	py := e.ok(t, "create_pane", map[string]any{"argv": []string{"python3", "-q"}})
	half, _ := e.shell(t)
	// A person typing half a line (not through tmuxmcp).
	if _, err := e.target.Run(t.Context(), "send-keys", "-t", half, "-l", "echo half-typed"); err != nil {
		t.Fatal(err)
	}
	e.ok(t, "wait_for_text", map[string]any{"paneId": half, "patterns": []string{"half-typed"}, "timeoutMs": 500})
	for _, c := range []struct{ pane, want string }{
		{busy, "busy"}, {copyPane, "copy mode"}, {py.Str("paneId"), "python"}, {half, "half-typed"},
	} {
		before := e.ok(t, "capture_pane", map[string]any{"paneId": c.pane})
		r := e.call(t, "run_shell_command", map[string]any{"paneId": c.pane, "command": "echo SHOULD-NOT-RUN"})
		if !r.IsError || !strings.Contains(r.Text, c.want) {
			t.Errorf("%s: %v", c.want, r)
			continue
		}
		after := e.ok(t, "capture_since", map[string]any{"paneId": c.pane, "cursor": before.Str("cursor")})
		if strings.Contains(after.Str("output"), "SHOULD-NOT-RUN") {
			t.Errorf("%s: keystrokes reached the pane: %q", c.want, after.Str("output"))
		}
	}
	cp := e.ok(t, "capture_pane", map[string]any{"paneId": half})
	mustContain(t, "the person's half line", cp.Str("screen"), "echo half-typed")
}

func TestRunShellCommandTimeoutAndPaneDeath(t *testing.T) {
	// Not parallel: it bounds how long timeoutMs 500 takes to end the job
	// (5 s), which other tests' load would stretch.
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	start := time.Now()
	r := e.runCmd(t, map[string]any{"paneId": pane, "command": "sleep 100", "timeoutMs": 500})
	if r.Str("status") != "timed_out" || r.M["signal"] == nil {
		t.Fatalf("timeoutMs: %v", r)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("timed out after %v", d)
	}
	// The pane is usable again.
	if r := e.runCmd(t, map[string]any{"paneId": pane, "command": "echo ok"}); r.Str("output") != "ok\n" {
		t.Fatalf("after timeout: %v", r)
	}
	// Killing the pane under a running job ends it as pane_died.
	r = e.runCmd(t, map[string]any{"paneId": pane, "command": "sleep 100", "waitMs": 200})
	e.ok(t, "kill_pane", map[string]any{"paneId": pane})
	a := e.ok(t, "await_command_result", map[string]any{"jobId": r.Str("jobId"), "waitMs": 20000})
	if a.Str("status") != "pane_died" || a.M["exitCode"] != nil {
		t.Fatalf("killed pane: %v", a)
	}
	// Unknown jobs are a clear error.
	if x := e.call(t, "await_command_result", map[string]any{"jobId": "nope"}); !x.IsError || !strings.Contains(x.Text, "list_commands") {
		t.Fatalf("unknown job: %v", x)
	}
}

// Output reads as the program printed it: < > & are not escaped in the
// text an agent reads.
func TestOutputIsNotHTMLEscaped(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	r := e.runCmd(t, map[string]any{"paneId": pane, "command": "printf '%s\\n' '<a href=\"x\">&amp;</a>'"})
	if !strings.Contains(r.Text, `<a href=\"x\">&amp;</a>`) || strings.Contains(r.Text, `\u003c`) {
		t.Fatalf("text content: %s", r.Text)
	}
}

// The output file holds every line a flood printed, however small the
// retained window and however busy the machine: it is written from what
// the stream ingests, not read back from the ring later.
func TestTheOutputFileHoldsEveryLineOfAFloodUnderLoad(t *testing.T) {
	// Not parallel: it makes its own load (two busy loops); other tests'
	// load on top of it made tmux drop the flood's output (missedBytes).
	for i := 0; i < 2; i++ {
		burner := exec.Command("sh", "-c", "while :; do :; done")
		if err := burner.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = burner.Process.Kill(); _ = burner.Wait() })
	}
	e := newEnv(t, envOptions{retain: 65536})
	const n = 400000
	r := e.runCmd(t, map[string]any{"command": fmt.Sprintf("seq 1 %d", n), "waitMs": 90000})
	if r.Str("status") == "running" {
		r = e.ok(t, "await_command_result", map[string]any{"jobId": r.Str("jobId"), "waitMs": 90000})
	}
	if r.Str("status") != "completed" || r.Num("exitCode") != 0 {
		t.Fatalf("seq: %v", r)
	}
	b, err := os.ReadFile(r.Str("outputFile"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != n {
		t.Fatalf("outputFile has %d lines, want %d (missedBytes %v)", len(lines), n, r.M["missedBytes"])
	}
	for i, l := range lines {
		if l != strconv.Itoa(i+1) {
			t.Fatalf("line %d is %q, want %d", i+1, l, i+1)
		}
	}
	if r.Num("missedBytes") != 0 || r.M["outputFileComplete"] != true {
		t.Fatalf("counts: %v", r)
	}
}

// await_command_result with the last result's cursor returns only the new
// output, so polling a long job costs what it printed, not all of it.
func TestIncrementalAwaitsReturnOnlyNewOutput(t *testing.T) {
	// Not parallel: the command must print its first line within waitMs 500,
	// which other tests' load would stretch.
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	r := e.runCmd(t, map[string]any{"paneId": pane, "command": "echo first; sleep 1; echo second; sleep 1; echo third", "waitMs": 500})
	if r.Str("status") != "running" || r.Str("output") != "first\n" {
		t.Fatalf("first result: %v", r)
	}
	seen := r.Str("output")
	c := r.Str("cursor")
	for r.Str("status") == "running" {
		r = e.ok(t, "await_command_result", map[string]any{"jobId": r.Str("jobId"), "cursor": c, "waitMs": 800})
		if strings.Contains(r.Str("output"), "first") {
			t.Fatalf("output after the cursor repeats earlier output: %v", r)
		}
		seen += r.Str("output")
		c = r.Str("cursor")
	}
	if seen != "first\nsecond\nthird\n" || r.Num("exitCode") != 0 {
		t.Fatalf("pieces joined: %q (%v)", seen, r)
	}
	if again := e.ok(t, "await_command_result", map[string]any{"jobId": r.Str("jobId"), "cursor": c}); again.Str("output") != "" {
		t.Fatalf("nothing after the last cursor: %v", again)
	}
	otherPane, _ := e.shell(t)
	other := e.runCmd(t, map[string]any{"paneId": otherPane, "command": "echo other"})
	for _, bad := range []map[string]any{
		{"jobId": r.Str("jobId"), "cursor": c[:strings.LastIndexByte(c, '.')] + ".99999999"},
		{"jobId": r.Str("jobId"), "cursor": other.Str("cursor")},
		{"jobId": r.Str("jobId"), "outputLimit": 5},
	} {
		x := e.call(t, "await_command_result", bad)
		if !x.IsError {
			t.Errorf("%v: not refused: %v", bad, x)
			continue
		}
		// The error names the field and what to pass instead.
		field := "cursor"
		if _, ok := bad["outputLimit"]; ok {
			field = "outputLimit"
		}
		if !strings.Contains(x.Text, field) {
			t.Errorf("%v: the error does not name %s: %s", bad, field, x.Text)
		}
	}
	if x := e.ok(t, "await_command_result", map[string]any{"jobId": r.Str("jobId"), "outputLimit": 128}); x.Str("output") != seen {
		t.Errorf("outputLimit re-reads the output: %v", x)
	}
}

// A client that sent a progress token hears how a long command is doing:
// its last line of output, each second.
func TestALongCommandReportsProgressWithItsLastLine(t *testing.T) {
	// Not parallel: the command must print its first line before the first
	// progress tick (1 s), which other tests' load would stretch.
	msgs := make(chan string, 64)
	e := newEnv(t, envOptions{client: &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			select {
			case msgs <- r.Params.Message:
			default:
			}
		},
	}})
	pane, _ := e.shell(t)
	r := mcptest.CallParams(t.Context(), t, e.cs, &mcp.CallToolParams{Name: "run_shell_command",
		Arguments: map[string]any{"paneId": pane, "command": "echo step-one; sleep 3; echo done", "waitMs": 20000},
		Meta:      mcp.Meta{"progressToken": "p1"}})
	if r.Str("status") != "completed" {
		t.Fatalf("result: %v", r)
	}
	var got []string
	for len(msgs) > 0 {
		got = append(got, <-msgs)
	}
	if len(got) == 0 || !strings.Contains(got[0], "step-one") {
		t.Fatalf("progress messages: %q", got)
	}
}

func TestOutputThatPrintsMarksCannotEndAJob(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	r := e.runCmd(t, map[string]any{"paneId": pane, "command": `printf '\033]133;D;0\007\033]133;D;0;tmuxmcp=x\007'; sleep 1; echo real-end`})
	if r.Str("status") != "completed" || !strings.HasSuffix(r.Str("output"), "real-end\n") {
		t.Fatalf("a printed mark ended the job early: %v", r)
	}
}

func TestLinesTheShellRefusesOrIgnoresStillCompleteAndLeaveThePaneUsable(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	for _, c := range []struct{ cmd, out string }{
		{"echo )", "syntax error"},
		{`echo "unterminated`, "unexpected EOF"},
		{"# just a comment", ""},
		{`echo "fix!important"`, "fix!important"},
		{"echo trailing \\", "trailing"},
		{"printf '%s\\n' 'a\tb'", "a\tb\n"},
		{"echo \u0003 ctrl-c-char", "ctrl-c-char"},
	} {
		r := e.runCmd(t, map[string]any{"paneId": pane, "command": c.cmd, "waitMs": 10000})
		if r.Str("status") != "completed" || !strings.Contains(r.Str("output"), c.out) {
			t.Fatalf("%q: %v", c.cmd, r)
		}
	}
	// The pane is still usable, and the screen shows no continuation prompt.
	if r := e.runCmd(t, map[string]any{"paneId": pane, "command": "echo next"}); r.Str("output") != "next\n" {
		t.Fatalf("after: %v", r)
	}
}

func TestCwdAppliesToTheWholeCommandAndAMissingOneIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	dir := t.TempDir()
	r := e.runCmd(t, map[string]any{"paneId": pane, "cwd": dir, "command": "true; pwd"})
	if r.Str("output") != dir+"\n" {
		t.Fatalf("paneId+cwd: %v", r)
	}
	for _, args := range []map[string]any{
		{"paneId": pane, "cwd": "/nonexistent", "command": "echo RAN"},
		{"cwd": "/nonexistent", "command": "echo RAN"},
	} {
		if x := e.call(t, "run_shell_command", args); !x.IsError || !strings.Contains(x.Text, "cwd") {
			t.Fatalf("%v: %v", args, x)
		}
	}
}

func TestRequestIDForAnotherCommandIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	id := "0123456789abcdef0123456789abcdef"
	e.runCmd(t, map[string]any{"paneId": pane, "command": "echo one", "requestId": id})
	x := e.call(t, "run_shell_command", map[string]any{"paneId": pane, "command": "echo two", "requestId": id})
	if !x.IsError || !strings.Contains(x.Text, "requestId") {
		t.Fatalf("got %v", x)
	}
}

func TestFreshPaneCommandThatExitsTheShellKeepsItsStatus(t *testing.T) {
	// Not parallel: under other tests' load the shell's exit was taken for
	// its return to the prompt (completed, not pane_died).
	e := newEnv(t, envOptions{})
	r := e.runCmd(t, map[string]any{"command": "echo building; false || exit 3"})
	if r.Str("status") != "pane_died" || r.Num("exitCode") != 3 || !strings.HasPrefix(r.Str("output"), "building\n") {
		t.Fatalf("got %v", r)
	}
}

// TestAPaneLeftOnTheAlternateScreenSaysHowToLeaveIt: a full-screen program
// killed without leaving the alternate screen leaves the shell in front of
// a screen tmuxmcp cannot read a prompt from; the refusal names the way
// out, and after it the pane takes commands again.
func TestAPaneLeftOnTheAlternateScreenSaysHowToLeaveIt(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	pane, c := e.shell(t)
	e.run(t, pane, `printf '\033[?1049h'`)
	deadline := time.Now().Add(20 * time.Second)
	var r result
	for {
		r = e.call(t, "run_shell_command", map[string]any{"paneId": pane, "command": "echo hi"})
		if r.IsError || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond) // the alternate screen is on once tmux drew it
	}
	if !r.IsError {
		t.Fatalf("a pane on the alternate screen took a command: %v", r)
	}
	mustContain(t, "the refusal", r.Text, "alternate screen")
	mustContain(t, "the refusal", r.Text, "tput rmcup")
	e.ok(t, "type_text", map[string]any{"paneId": pane, "text": "tput rmcup", "submit": true})
	word := token(t, "BACK")
	for deadline := time.Now().Add(20 * time.Second); ; {
		r = e.call(t, "run_shell_command", map[string]any{"paneId": pane, "command": "echo " + word})
		if !r.IsError {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after tput rmcup the pane still refuses: %s", r.Text)
		}
		time.Sleep(100 * time.Millisecond) // the shell runs tput and draws its prompt
	}
	mustContain(t, "the command after leaving the alternate screen", r.Str("output"), word)
	_ = c
}
