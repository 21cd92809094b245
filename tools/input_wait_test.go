package tools

import (
	"strings"
	"testing"
	"time"
)

// A command that stops to ask something comes back at once with
// waitingForInput, the program and its question — not after waitMs — and
// the answer typed with type_text lets it finish.
func TestACommandAskingAQuestionReturnsAtOnceSayingSo(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	start := time.Now()
	r := e.runCmd(t, map[string]any{"paneId": pane, "command": `read -p "Continue? [y/N] " a; echo "got $a"`, "waitMs": 60000})
	if took := time.Since(start); took > 30*time.Second {
		t.Fatalf("the call waited %v of its 60 s waitMs", took)
	}
	if r.Str("status") != "running" || r.M["waitingForInput"] != true || r.M["prompt"] != "Continue? [y/N]" || r.M["foreground"] != "bash" {
		t.Fatalf("want running, waiting for input at the question: %v", r.M)
	}
	e.ok(t, "type_text", map[string]any{"paneId": pane, "text": "y", "submit": true})
	r = e.ok(t, "await_command_result", map[string]any{"jobId": r.Str("jobId"), "waitMs": 20000})
	if r.Str("status") != "completed" || !strings.Contains(r.Str("output"), "got y") || r.M["waitingForInput"] != false {
		t.Fatalf("after the answer: %v", r.M)
	}
}

// A password prompt, a REPL and a pager are each said to wait for input,
// with the program's name; a program that is merely busy is not.
func TestProgramsWaitingToReadTheTerminalAreTold(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	for _, c := range []struct{ command, program, prompt string }{
		{`read -s -p "Password: " pw; echo`, "bash", "Password:"},
		{`python3 -c 'print(input("name? "))'`, "python3", "name?"},
		{`python3 -q`, "python3", ">>>"},
		{`less /etc/services`, "less", ""},
		{`cat`, "cat", ""},
	} {
		r := e.runCmd(t, map[string]any{"paneId": pane, "command": c.command, "waitMs": 60000})
		if r.Str("status") != "running" || r.M["waitingForInput"] != true || r.M["foreground"] != c.program || c.prompt != "" && r.M["prompt"] != c.prompt {
			t.Fatalf("%s: want waiting for input in %s at %q: %v", c.command, c.program, c.prompt, r.M)
		}
		if c.program == "python3" && c.prompt == ">>>" {
			// capture_pane says the same of the pane.
			p := e.ok(t, "capture_pane", map[string]any{"paneId": pane})
			if p.M["waitingForInput"] != true || p.M["foreground"] != "python3" || p.M["prompt"] != ">>>" {
				t.Fatalf("capture_pane of a REPL: %v", p.M)
			}
		}
		e.ok(t, "cancel_command", map[string]any{"jobId": r.Str("jobId")})
		if r = e.ok(t, "await_command_result", map[string]any{"jobId": r.Str("jobId"), "waitMs": 20000}); r.Str("status") == "running" {
			t.Fatalf("%s: not stopped: %v", c.command, r.M)
		}
	}
	r := e.runCmd(t, map[string]any{"paneId": pane, "command": "sleep 3", "waitMs": 1500})
	if r.Str("status") != "running" || r.M["waitingForInput"] != false || r.M["foreground"] != nil {
		t.Fatalf("a busy sleep is not waiting for input: %v", r.M)
	}
	if p := e.ok(t, "capture_pane", map[string]any{"paneId": pane}); p.M["waitingForInput"] != false {
		t.Fatalf("capture_pane during sleep: %v", p.M)
	}
	e.ok(t, "await_command_result", map[string]any{"jobId": r.Str("jobId"), "waitMs": 20000})
	if p := e.ok(t, "capture_pane", map[string]any{"paneId": pane}); p.M["waitingForInput"] != false {
		t.Fatalf("a shell at its prompt is ready, not waiting for input: %v", p.M)
	}
}

// In panes tmuxmcp starts, git log in a repository with 200 commits prints
// all of them and ends, instead of opening less and waiting for a key.
func TestGitLogPrintsEverythingInsteadOfOpeningAPager(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	dir := t.TempDir()
	setup := e.runCmd(t, map[string]any{"paneId": pane, "cwd": dir, "waitMs": 60000, "command": `git init -q . && for i in $(seq 1 200); do git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m "commit number $i"; done; echo made`})
	if setup.Str("status") != "completed" {
		t.Fatalf("setting up the repository: %v", setup.M)
	}
	r := e.runCmd(t, map[string]any{"paneId": pane, "command": "git log --oneline", "waitMs": 60000})
	if r.Str("status") != "completed" || r.Num("exitCode") != 0 {
		t.Fatalf("git log: %v", r.M)
	}
	if n := strings.Count(r.Str("output"), "commit number "); n != 200 || !strings.HasSuffix(r.Str("output"), "commit number 1\n") {
		t.Fatalf("git log printed %d of 200 commits: %v", n, r.M)
	}
	env := e.runCmd(t, map[string]any{"paneId": pane, "command": `echo "$PAGER|$GIT_PAGER|$SYSTEMD_PAGER|$PSQL_PAGER"`})
	if env.Str("output") != "cat|cat||cat\n" {
		t.Fatalf("pager settings in the pane: %q", env.Str("output"))
	}
}

// A background job's cursor starts after tmuxmcp's own typed line, in
// every way a command is typed: a wait from it sees the command's output
// and nothing of the line that started it (nor the state directory).
func TestABackgroundJobsCursorStartsAfterTheTypedLine(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	for _, c := range []struct {
		name string
		args map[string]any
	}{
		{"typed as is", map[string]any{"paneId": pane, "command": "sleep 0.5; echo bg-typed-$((40+2))"}},
		{"job script", map[string]any{"paneId": pane, "command": "sleep 0.5\necho bg-script-$((40+2))"}},
		{"job script with cwd", map[string]any{"paneId": pane, "cwd": t.TempDir(), "command": "sleep 0.5; echo bg-cwd-$((40+2))"}},
		// In a fresh pane too: the call returns once its shell has started
		// the command, with the cursor at the command's first byte.
		{"fresh pane", map[string]any{"command": "sleep 1; echo bg-fresh-$((40+2))", "keep": true}},
	} {
		if _, ok := c.args["waitMs"]; !ok {
			c.args["background"] = true
		}
		r := e.runCmd(t, c.args)
		cur := r.M["cursor"]
		if r.Str("status") != "running" || cur == nil {
			t.Fatalf("%s: %v", c.name, r.M)
		}
		w := e.ok(t, "wait_for_text", map[string]any{"paneId": r.Str("paneId"), "cursor": cur, "patterns": []string{`bg-\w+-42`}, "regex": true, "timeoutMs": 20000})
		if w.Str("outcome") != "matched" {
			t.Fatalf("%s: %v", c.name, w.M)
		}
		for _, leak := range []string{".run", "jobs/", "sleep 0.5", "$((40+2))"} {
			if strings.Contains(w.Str("output"), leak) {
				t.Fatalf("%s: the wait from the job's cursor shows tmuxmcp's typed line (%q): %q", c.name, leak, w.Str("output"))
			}
		}
		e.ok(t, "await_command_result", map[string]any{"jobId": r.Str("jobId"), "waitMs": 20000})
	}
}

// An unfinished command typed with type_text (an unclosed quote) leaves
// the shell waiting for the rest: run_shell_command refuses, says tmuxmcp
// typed it and names send_keys ["C-c"]; after it the same pane runs the
// command — in bash, zsh and fish (which keeps the line in its editor).
func TestAnUnfinishedCommandIsRefusedWithTheWayOut(t *testing.T) {
	t.Parallel()
	for _, sh := range []string{"/bin/bash", "/usr/bin/zsh", "/usr/bin/fish"} {
		t.Run(sh, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, envOptions{shell: sh})
			pane, _ := e.shell(t)
			e.ok(t, "type_text", map[string]any{"paneId": pane, "text": `echo "abc`, "submit": true})
			x := e.call(t, "run_shell_command", map[string]any{"paneId": pane, "command": "echo next", "waitMs": 10000})
			if !x.IsError || !strings.Contains(x.Text, "continuation") || !strings.Contains(x.Text, "tmuxmcp typed") || !strings.Contains(x.Text, `send_keys ["C-c"]`) {
				t.Fatalf("want a refusal that names the continuation, who typed it and C-c: %v %s", x.IsError, x.Text)
			}
			e.ok(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"C-c"}})
			r := e.runCmd(t, map[string]any{"paneId": pane, "command": "echo next-ok", "waitMs": 20000})
			if r.Str("status") != "completed" || r.Str("output") != "next-ok\n" {
				t.Fatalf("after C-c in the same pane: %v", r.M)
			}
		})
	}
}

// fish's read asks with fish's own line editor, the shell itself in front
// of the terminal: it is still a question that waits for an answer.
func TestAFishReadIsAQuestionThatWaitsForInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{shell: "/usr/bin/fish"})
	pane, _ := e.shell(t)
	start := time.Now()
	r := e.runCmd(t, map[string]any{"paneId": pane, "command": "read -P 'Name: ' n; echo got $n", "waitMs": 60000})
	if took := time.Since(start); took > 30*time.Second || r.Str("status") != "running" || r.M["waitingForInput"] != true || r.M["prompt"] != "Name:" {
		t.Fatalf("want running, waiting for input at Name: (took %v): %v", took, r.M)
	}
	e.ok(t, "type_text", map[string]any{"paneId": pane, "text": "world", "submit": true})
	r = e.ok(t, "await_command_result", map[string]any{"jobId": r.Str("jobId"), "waitMs": 20000})
	if r.Str("status") != "completed" || !strings.Contains(r.Str("output"), "got world") || r.M["waitingForInput"] != false {
		t.Fatalf("after the answer: %v", r.M)
	}
}
