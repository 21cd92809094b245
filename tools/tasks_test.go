package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// agent counts the calls an agent makes for one everyday task, choosing
// each from the results alone.
type agent struct {
	t     *testing.T
	e     *env
	calls int
}

func (a *agent) ok(name string, args map[string]any) result {
	a.t.Helper()
	a.calls++
	return a.e.ok(a.t, name, args)
}

func (a *agent) done(task string, minimum int) {
	a.t.Helper()
	a.t.Logf("%s: %d calls (minimum %d)", task, a.calls, minimum)
	if a.calls > minimum {
		a.t.Errorf("%s took %d calls, the minimum is %d", task, a.calls, minimum)
	}
}

func script(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// everydayTask is one task an agent does, in the fewest calls the tools
// allow, in pane (a bash at its prompt).
type everydayTask struct {
	name string
	do   func(t *testing.T, e *env, pane string)
}

// Everyday tasks, each done in the fewest calls the tools allow.
func TestEverydayTasksTakeTheFewestCalls(t *testing.T) {
	// Not parallel: its 20 MB of output and its runaway loop keep the
	// process's stream decoders busy (other tests' panes fall behind tmux),
	// and the loop must stop within cancel_command's 10 s.
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	for _, task := range []everydayTask{
		{"a dev server that becomes ready after a delay", taskDevServer},
		{"a failing test suite", taskFailingTests},
		{"a build longer than one call waits", taskLongBuild},
		{"a script that asks a name and a password", taskPrompts},
		{"a REPL", taskREPL},
		{"a runaway command", taskRunaway},
		{"a pager opened by mistake", taskPager},
		{"git log in a repository of 200 commits", taskGitLog},
		{"20 MB of output", taskHugeOutput},
		{"an unclosed quote", taskUnclosedQuote},
		{"the end of what a pane printed", taskTail},
	} {
		t.Run(task.name, func(t *testing.T) { task.do(t, e, pane) })
	}
}

// taskDevServer: a dev server that becomes ready after a delay.
func taskDevServer(t *testing.T, e *env, pane string) {
	a := &agent{t: t, e: e}
	srv := script(t, "serve.sh", "#!/bin/sh\necho starting the server\nsleep 2\necho 'Listening on http://127.0.0.1:8080'\nexec sleep 600\n")
	r := a.ok("run_shell_command", map[string]any{"command": srv, "waitMs": 1000})
	w := a.ok("wait_for_text", map[string]any{"paneId": r.Str("paneId"), "cursor": r.Str("cursor"), "patterns": []string{"Listening on"}, "timeoutMs": 30000})
	if w.Str("outcome") != "matched" || strings.Contains(w.Str("output"), "serve.sh") {
		t.Fatalf("the server's ready line: %v", w.M)
	}
	if c := a.ok("cancel_command", map[string]any{"jobId": r.Str("jobId")}); c.Str("status") != "interrupted" {
		t.Fatalf("stopping it: %v", c.M)
	}
	a.done("dev server", 3)
}

// taskFailingTests: a failing test suite.
func taskFailingTests(t *testing.T, e *env, pane string) {
	a := &agent{t: t, e: e}
	dir := t.TempDir()
	test := "import unittest\nclass T(unittest.TestCase):\n    def test_ok(self):\n        self.assertEqual(1, 1)\n    def test_broken(self):\n        self.assertEqual(2 + 2, 5)\nunittest.main()\n"
	if err := os.WriteFile(filepath.Join(dir, "test_x.py"), []byte(test), 0o644); err != nil {
		t.Fatal(err)
	}
	r := a.ok("run_shell_command", map[string]any{"paneId": pane, "cwd": dir, "command": "python3 test_x.py"})
	if r.Str("status") != "completed" || r.Num("exitCode") != 1 || !strings.Contains(r.Str("output"), "FAILED (failures=1)") || !strings.Contains(r.Str("output"), "test_broken") {
		t.Fatalf("the suite's result: %v", r.M)
	}
	a.done("failing tests", 1)
}

// taskLongBuild: a build longer than one call waits.
func taskLongBuild(t *testing.T, e *env, pane string) {
	a := &agent{t: t, e: e}
	build := script(t, "build.sh", "#!/bin/sh\nfor i in 1 2 3 4; do echo \"compiling unit $i\"; sleep 0.7; done\necho 'build ok'\n")
	r := a.ok("run_shell_command", map[string]any{"paneId": pane, "command": build, "waitMs": 500})
	if r.Str("status") != "running" || r.M["waitingForInput"] != false {
		t.Fatalf("first result: %v", r.M)
	}
	r = a.ok("await_command_result", map[string]any{"jobId": r.Str("jobId"), "cursor": r.Str("cursor"), "waitMs": 30000})
	if r.Str("status") != "completed" || !strings.HasSuffix(r.Str("output"), "build ok\n") {
		t.Fatalf("the build's end: %v", r.M)
	}
	a.done("build", 2)
}

// taskPrompts: a script that asks a name and a password.
func taskPrompts(t *testing.T, e *env, pane string) {
	a := &agent{t: t, e: e}
	ask := script(t, "ask.sh", "#!/bin/bash\nread -p 'Name: ' name\nread -s -p 'Password: ' pw\necho\necho \"hello $name, ${#pw} characters\"\n")
	r := a.ok("run_shell_command", map[string]any{"paneId": pane, "command": ask, "waitMs": 30000})
	if r.M["waitingForInput"] != true || r.M["prompt"] != "Name:" {
		t.Fatalf("the name question: %v", r.M)
	}
	a.ok("type_text", map[string]any{"paneId": pane, "text": "alice", "submit": true})
	r = a.ok("await_command_result", map[string]any{"jobId": r.Str("jobId"), "waitMs": 30000})
	if r.M["waitingForInput"] != true || r.M["prompt"] != "Password:" {
		t.Fatalf("the password question: %v", r.M)
	}
	a.ok("type_text", map[string]any{"paneId": pane, "text": "s3cret", "submit": true})
	r = a.ok("await_command_result", map[string]any{"jobId": r.Str("jobId"), "waitMs": 30000})
	if r.Str("status") != "completed" || !strings.Contains(r.Str("output"), "hello alice, 6 characters") {
		t.Fatalf("the script's end: %v", r.M)
	}
	a.done("prompts", 5)
}

// taskREPL: a REPL.
func taskREPL(t *testing.T, e *env, pane string) {
	a := &agent{t: t, e: e}
	p := a.ok("create_pane", map[string]any{"argv": []string{"python3", "-q"}})
	w := a.ok("wait_for_text", map[string]any{"paneId": p.Str("paneId"), "cursor": p.Str("cursor"), "patterns": []string{">>> "}, "timeoutMs": 30000})
	if w.Str("outcome") != "matched" {
		t.Fatalf("the REPL's prompt: %v", w.M)
	}
	in := a.ok("type_text", map[string]any{"paneId": p.Str("paneId"), "text": "print(6 * 7)", "submit": true})
	w = a.ok("wait_for_text", map[string]any{"paneId": p.Str("paneId"), "cursor": in.Str("cursor"), "patterns": []string{"^42$"}, "regex": true, "timeoutMs": 30000})
	if w.Str("outcome") != "matched" {
		t.Fatalf("the REPL's answer: %v", w.M)
	}
	a.ok("kill_pane", map[string]any{"paneId": p.Str("paneId")})
	a.done("REPL", 5)
}

// taskRunaway: a runaway command.
func taskRunaway(t *testing.T, e *env, pane string) {
	a := &agent{t: t, e: e}
	// A loop printing without end (yes itself would push hundreds of
	// MB a second through the race detector's slowed decoder).
	r := a.ok("run_shell_command", map[string]any{"paneId": pane, "command": "while :; do echo runaway; done", "waitMs": 1000, "outputLimit": 1024})
	if r.Str("status") != "running" || r.M["waitingForInput"] != false {
		t.Fatalf("the loop: %v", r.M)
	}
	if c := a.ok("cancel_command", map[string]any{"jobId": r.Str("jobId")}); c.Str("status") != "interrupted" {
		t.Fatalf("stopping the loop: %v", c.M)
	}
	if r := a.ok("run_shell_command", map[string]any{"paneId": pane, "command": "echo the pane works"}); r.Str("output") != "the pane works\n" {
		t.Fatalf("the pane after the loop: %v", r.M)
	}
	a.done("runaway", 3)
}

// taskPager: a pager opened by mistake.
func taskPager(t *testing.T, e *env, pane string) {
	a := &agent{t: t, e: e}
	r := a.ok("run_shell_command", map[string]any{"paneId": pane, "command": "less /etc/services", "waitMs": 30000})
	if r.M["waitingForInput"] != true || r.M["foreground"] != "less" {
		t.Fatalf("less: %v", r.M)
	}
	a.ok("send_keys", map[string]any{"paneId": pane, "keys": []string{"q"}})
	if r = a.ok("await_command_result", map[string]any{"jobId": r.Str("jobId"), "waitMs": 30000}); r.Str("status") != "completed" {
		t.Fatalf("after q: %v", r.M)
	}
	a.done("pager", 3)
}

// taskGitLog: git log in a repository of 200 commits.
func taskGitLog(t *testing.T, e *env, pane string) {
	a := &agent{t: t, e: e}
	dir := t.TempDir()
	e.runCmd(t, map[string]any{"paneId": pane, "cwd": dir, "waitMs": 60000, "command": `git init -q . && for i in $(seq 1 200); do git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m "change $i"; done`})
	r := a.ok("run_shell_command", map[string]any{"paneId": pane, "command": "git log --oneline"})
	if r.Str("status") != "completed" || strings.Count(r.Str("output"), "change ") != 200 {
		t.Fatalf("git log: %v", r.M)
	}
	a.done("git log", 1)
}

// taskHugeOutput: 20 MB of output.
func taskHugeOutput(t *testing.T, e *env, pane string) {
	a := &agent{t: t, e: e}
	r := a.ok("run_shell_command", map[string]any{"paneId": pane, "command": "seq 1 2600000", "waitMs": 90000})
	if r.Str("status") != "completed" || r.M["outputFileComplete"] != true || r.Num("missedBytes") != 0 || !strings.HasSuffix(r.Str("output"), "2600000\n") || len(r.Str("output")) > 9000 {
		t.Fatalf("seq: status %v, %d bytes of output, %v", r.M["status"], len(r.Str("output")), r.M["outputFile"])
	}
	b, err := os.ReadFile(r.Str("outputFile"))
	if err != nil || strings.Count(string(b), "\n") != 2600000 {
		t.Fatalf("outputFile: %d lines, %v", strings.Count(string(b), "\n"), err)
	}
	a.done("20 MB", 1)
}

// taskUnclosedQuote: an unclosed quote.
func taskUnclosedQuote(t *testing.T, e *env, pane string) {
	a := &agent{t: t, e: e}
	a.ok("type_text", map[string]any{"paneId": pane, "text": `echo "abc`, "submit": true})
	a.calls++
	if x := e.call(t, "run_shell_command", map[string]any{"paneId": pane, "command": "echo fine", "waitMs": 10000}); !x.IsError || !strings.Contains(x.Text, `send_keys ["C-c"]`) {
		t.Fatalf("the refusal: %s", x.Text)
	}
	a.ok("send_keys", map[string]any{"paneId": pane, "keys": []string{"C-c"}})
	if r := a.ok("run_shell_command", map[string]any{"paneId": pane, "command": "echo fine", "waitMs": 20000}); r.Str("output") != "fine\n" {
		t.Fatalf("after C-c: %v", r.M)
	}
	a.done("unclosed quote", 4)
}

// taskTail: the end of what a pane printed.
func taskTail(t *testing.T, e *env, pane string) {
	a := &agent{t: t, e: e}
	a.e.runCmd(t, map[string]any{"paneId": pane, "command": "seq 1 2000"})
	r := a.ok("capture_since", map[string]any{"paneId": pane, "lastLines": 3})
	if !strings.HasPrefix(r.Str("output"), "1999\n2000\n") {
		t.Fatalf("the last lines: %q", r.Str("output"))
	}
	a.done("tail", 1)
}
