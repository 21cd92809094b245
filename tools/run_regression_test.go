// Regression tests for findings of the run_shell_command reviews.
package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/internal/tmuxtest"
	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

func TestOutputThatPrintsMarksCannotEndAJob(t *testing.T) {
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	r := e.runCmd(t, map[string]any{"paneId": pane, "command": `printf '\033]133;D;0\007\033]133;D;0;tmuxmcp=x\007'; sleep 1; echo real-end`})
	if r.Str("status") != "completed" || !strings.HasSuffix(r.Str("output"), "real-end\n") {
		t.Fatalf("a printed mark ended the job early: %v", r)
	}
}

func TestLinesTheShellDoesNotRunStillEnd(t *testing.T) {
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

func TestInterruptedScriptEndsWithItsSignal(t *testing.T) {
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	r := e.runCmd(t, map[string]any{"paneId": pane, "command": "echo a\nsleep 100", "waitMs": 500})
	if _, err := e.target.Run(t.Context(), "send-keys", "-t", pane, "C-c"); err != nil {
		t.Fatal(err)
	}
	a := e.ok(t, "await_command_result", map[string]any{"jobId": r.Str("jobId"), "waitMs": 10000})
	if a.Str("status") != "completed" || a.Num("exitCode") != 130 || a.Str("signal") != "SIGINT" {
		t.Fatalf("C-c by a person: %v", a)
	}
	pane2, _ := e.shell(t)
	r = e.runCmd(t, map[string]any{"paneId": pane2, "command": "echo a\nsleep 100", "waitMs": 500})
	x := e.ok(t, "cancel_command", map[string]any{"jobId": r.Str("jobId")})
	if x.Str("status") != "interrupted" || x.Str("signal") != "SIGINT" {
		t.Fatalf("cancel_command of a script: %v", x)
	}
}

func TestCancelNeverKillsTheShell(t *testing.T) {
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	r := e.runCmd(t, map[string]any{"paneId": pane, "command": "x=$(trap '' INT TERM; sleep 100)", "waitMs": 500})
	x := e.ok(t, "cancel_command", map[string]any{"jobId": r.Str("jobId")})
	if x.Str("status") != "interrupted" {
		t.Fatalf("cancel: %v", x)
	}
	if r := e.runCmd(t, map[string]any{"paneId": pane, "command": "echo alive"}); r.Str("output") != "alive\n" {
		t.Fatalf("the pane's shell did not survive: %v", r)
	}
}

func TestNestedShellRunsThroughTheScript(t *testing.T) {
	e := newEnv(t, envOptions{})
	pane, c := e.shell(t)
	c = e.run(t, pane, "PS1='nested$ ' bash --norc")
	e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": c, "patterns": []string{"nested$ "}, "timeoutMs": 20000})
	r := e.runCmd(t, map[string]any{"paneId": pane, "command": "echo hi", "waitMs": 10000})
	if r.Str("status") != "completed" || r.Str("output") != "hi\n" {
		t.Fatalf("nested bash: %v", r)
	}
}

func TestCwdConfinesTheWholeCommand(t *testing.T) {
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
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	id := "0123456789abcdef0123456789abcdef"
	e.runCmd(t, map[string]any{"paneId": pane, "command": "echo one", "requestId": id})
	x := e.call(t, "run_shell_command", map[string]any{"paneId": pane, "command": "echo two", "requestId": id})
	if !x.IsError || !strings.Contains(x.Text, "requestId") {
		t.Fatalf("got %v", x)
	}
}

func TestPromptsOfManyShapesAreNotHalfTypedLines(t *testing.T) {
	e := newEnv(t, envOptions{shell: "/bin/zsh"})
	pane, _ := e.shell(t)
	for _, set := range []string{"RPROMPT=right", "RPROMPT=; PS1='%~: '", "PS1='λ '"} {
		c := e.run(t, pane, set)
		e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": c, "timeoutMs": 5000})
		r := e.call(t, "run_shell_command", map[string]any{"paneId": pane, "command": "echo hi"})
		if r.IsError || r.Str("output") != "hi\n" {
			t.Fatalf("after %s: %v", set, r)
		}
	}
}

// homeEnv starts a server whose panes see a HOME with the given files.
func homeEnv(t *testing.T, sh string, files map[string]string) *env {
	return homeEnvWith(t, sh, files, envOptions{})
}

// homeEnvWith is homeEnv with more options (a policy).
func homeEnvWith(t *testing.T, sh string, files map[string]string, o envOptions) *env {
	home := t.TempDir()
	for n, b := range files {
		p := filepath.Join(home, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(b), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	target := tmuxtest.ServerWith(t, tmux.SessionSpec{Name: "agent", Width: 120, Height: 40}, home)
	o.target, o.shell = &target, sh
	return newEnv(t, o)
}

func TestUserStartupFilesAndDynamicPrompts(t *testing.T) {
	e := homeEnv(t, "/bin/bash", map[string]string{".bashrc": "export RC=bash-rc\nPROMPT_COMMAND='PS1=\"\\w \\$ \"'\n",
		".profile": "[ -f ~/.bashrc ] && . ~/.bashrc\n"})
	r := e.runCmd(t, map[string]any{"command": "echo $RC", "waitMs": 30000})
	if r.Str("status") != "completed" || r.Str("output") != "bash-rc\n" {
		t.Fatalf("bash with a dynamic PS1: %v", r)
	}
	z := homeEnv(t, "/bin/zsh", map[string]string{
		".zshenv":            "ZDOTDIR=$HOME/.config/zsh\n",
		".config/zsh/.zshrc": "export RC=zsh-rc\nprecmd() { false }\n",
	})
	r = z.runCmd(t, map[string]any{"command": "echo $RC", "waitMs": 30000})
	if r.Str("output") != "zsh-rc\n" {
		t.Fatalf("zsh with ZDOTDIR set in .zshenv: %v", r)
	}
	r = z.runCmd(t, map[string]any{"command": "true", "waitMs": 30000})
	if r.Num("exitCode") != 0 {
		t.Fatalf("a user precmd spoiled the status: %v", r)
	}
}

func TestJobThatEndedWhileTmuxmcpWasDown(t *testing.T) {
	state := t.TempDir()
	e := newEnv(t, envOptions{stateDir: state})
	pane, _ := e.shell(t)
	// A script job: its status is also written to a file.
	r := e.runCmd(t, map[string]any{"paneId": pane, "command": "sleep 1\necho done\n(exit 4)", "waitMs": 100})
	e.h.Close()
	// Let the command finish while nobody watches.
	if _, err := e.target.Run(t.Context(), "wait-for", "-L", "never-signalled-lock"); err != nil {
		t.Fatal(err)
	}
	_, _ = e.target.Run(t.Context(), "wait-for", "-U", "never-signalled-lock")
	time.Sleep(2 * time.Second) // the command runs 1 s; nothing observes it meanwhile
	e2 := newEnv(t, envOptions{target: &e.target, stateDir: state})
	a := e2.ok(t, "await_command_result", map[string]any{"jobId": r.Str("jobId"), "waitMs": 10000})
	if a.Str("status") != "completed" || a.Num("exitCode") != 4 {
		t.Fatalf("after restart: %v", a)
	}
	if x := e2.runCmd(t, map[string]any{"paneId": pane, "command": "echo next"}); x.Str("output") != "next\n" {
		t.Fatalf("pane still locked: %v", x)
	}
}

func TestCancelDoesNotTypeIntoCopyMode(t *testing.T) {
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	r := e.runCmd(t, map[string]any{"paneId": pane, "command": "sleep 30; echo after-sleep", "waitMs": 300})
	if _, err := e.target.Run(t.Context(), "copy-mode", "-t", pane); err != nil {
		t.Fatal(err)
	}
	x := e.ok(t, "cancel_command", map[string]any{"jobId": r.Str("jobId")})
	if x.Str("status") != "interrupted" || x.Num("exitCode") != 130 {
		t.Fatalf("cancel in copy mode: %v", x)
	}
	if mode, _ := e.target.Run(t.Context(), "display-message", "-p", "-t", pane, "#{pane_in_mode}"); mode != "1" {
		t.Fatalf("the person was thrown out of copy mode")
	}
}

func TestFreshPaneCommandThatExitsTheShellKeepsItsStatus(t *testing.T) {
	e := newEnv(t, envOptions{})
	r := e.runCmd(t, map[string]any{"command": "echo building; false || exit 3"})
	if r.Str("status") != "pane_died" || r.Num("exitCode") != 3 || !strings.HasPrefix(r.Str("output"), "building\n") {
		t.Fatalf("got %v", r)
	}
}

func TestArgvPaneNamesItsProgram(t *testing.T) {
	e := newEnv(t, envOptions{})
	cr := e.ok(t, "create_pane", map[string]any{"argv": []string{"sleep", "30"}})
	for _, p := range e.ok(t, "list_panes", map[string]any{}).M["panes"].([]any) {
		m := p.(map[string]any)
		if m["paneId"] == cr.Str("paneId") && m["currentCommand"] != "sleep" {
			t.Fatalf("currentCommand %v, want sleep", m["currentCommand"])
		}
	}
	if c := e.ok(t, "capture_pane", map[string]any{"paneId": cr.Str("paneId")}); c.Str("currentCommand") != "sleep" {
		t.Fatalf("capture_pane currentCommand %v", c.M["currentCommand"])
	}
}

func TestShutdownLeavesRunningJobsRunning(t *testing.T) {
	state := t.TempDir()
	e := newEnv(t, envOptions{stateDir: state})
	pane, _ := e.shell(t)
	r := e.runCmd(t, map[string]any{"paneId": pane, "command": "sleep 2; echo survived", "waitMs": 200})
	// What SIGTERM does: drain (every stream ends hub_closed), then close.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	<-e.h.Draining(ctx).Done()
	e.h.Close()
	j, _ := e.h.jobs.Get(r.Str("jobId"))
	if j.Status != jobs.Running {
		t.Fatalf("after shutdown the job is %s, want running", j.Status)
	}
	e2 := newEnv(t, envOptions{target: &e.target, stateDir: state})
	a := e2.ok(t, "await_command_result", map[string]any{"jobId": r.Str("jobId"), "waitMs": 20000})
	if a.Str("status") != "completed" || a.Str("output") != "survived\n" {
		t.Fatalf("after restart: %v", a)
	}
}

func TestJobKilledWithTheServerHasNoExitCode(t *testing.T) {
	e := newEnv(t, envOptions{})
	r := e.runCmd(t, map[string]any{"command": "false; sleep 30", "waitMs": 500})
	tmuxtest.Kill(e.target)
	a := e.ok(t, "await_command_result", map[string]any{"jobId": r.Str("jobId"), "waitMs": 20000})
	if a.Str("status") != "pane_died" || a.M["exitCode"] != nil {
		t.Fatalf("got %v", a)
	}
}
