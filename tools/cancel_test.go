package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/internal/tmuxtest"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// cancel_command racing a command's own end tells the truth: a command
// that ended before the interrupt reached it reports completed and its own
// exit code; one the interrupt stopped reports interrupted, without the
// line it would have printed last (or, when SIGINT came between that line
// and its exit, with exit 130 saying so). Either way the pane takes the
// next command at once.
func TestCancelRacingACommandsOwnEndReportsWhatHappened(t *testing.T) {
	t.Parallel()
	for _, sh := range []string{"/bin/bash", "/bin/zsh", "/usr/bin/fish"} {
		t.Run(sh[strings.LastIndexByte(sh, '/')+1:], func(t *testing.T) { t.Parallel(); testCancelRaces(t, sh) })
	}
}

func testCancelRaces(t *testing.T, sh string) {
	home := t.TempDir()
	if err := tmuxtest.DefaultRC(home); err != nil {
		t.Fatal(err)
	}
	// fish's first interactive start otherwise runs its man page
	// completion generator in the background, in its own process group,
	// for a minute of CPU: not what these races are about.
	if err := os.MkdirAll(filepath.Join(home, ".local/share/fish/generated_completions"), 0o700); err != nil {
		t.Fatal(err)
	}
	target := tmuxtest.ServerWith(t, tmux.SessionSpec{Name: "agent", Width: 120, Height: 40}, home)
	e := newEnv(t, envOptions{target: &target, shell: sh})
	pane := readyPane(t, e)
	counts := map[string]int{}
	const races = 40
	for i := range races {
		last := fmt.Sprintf("last-%d", i)
		ms := 20 + (i*7)%15*10 // the command sleeps 20..160 ms, then prints its last line
		sleep := fmt.Sprintf("%d.%03d", ms/1000, ms%1000)
		cmd, code := fmt.Sprintf("sleep %s; echo %s", sleep, last), 0
		if i%2 == 1 {
			// An external program that prints its last line and exits 3.
			cmd, code = fmt.Sprintf("sh -c 'sleep %s; echo %s; exit 3'", sleep, last), 3
		}
		r := e.call(t, "run_shell_command", map[string]any{"paneId": pane, "command": cmd, "waitMs": 0})
		if r.IsError {
			t.Errorf("race %d (%s): refused after the last cancel: %v", i, cmd, r)
			counts["next refused"]++
			continue
		}
		// The cancel is sent around the command's end: from 10 ms before
		// its sleep ends to 14 ms after.
		time.Sleep(time.Duration(ms-10+(i*3)%25) * time.Millisecond)
		x := e.ok(t, "cancel_command", map[string]any{"jobId": r.Str("jobId")})
		got := strings.Contains(x.Str("output"), last+"\n")
		switch st := x.Str("status"); {
		case st == "completed":
			if !got || x.M["exitCode"] == nil || x.Num("exitCode") != int64(code) {
				t.Errorf("race %d (%s): completed without its last line or its own exit code %d: %v", i, cmd, code, x)
			}
			counts["completed"]++
		case st == "interrupted":
			if x.Num("exitCode") != 130 || x.Str("signal") != "SIGINT" {
				t.Errorf("race %d (%s): interrupted, but not by SIGINT: %v", i, cmd, x)
			}
			if got {
				// Only its own status can say SIGINT came after the line.
				counts["interrupted after its last line"]++
			} else {
				counts["interrupted"]++
			}
		default:
			t.Errorf("race %d (%s): status %s: %v", i, cmd, st, x)
			counts[st]++
		}
		if x.M["shellReady"] != true {
			counts["shellReady false"]++
		}
		// The pane takes the next command at once: run_shell_command, or
		// type_text every fourth time.
		next := fmt.Sprintf("next-%d", i)
		if i%4 == 3 {
			n := e.call(t, "type_text", map[string]any{"paneId": pane, "text": "echo " + next, "submit": true})
			if n.IsError {
				t.Errorf("race %d (%s): type_text after cancel (%s, exit %v): %v", i, cmd, x.Str("status"), x.M["exitCode"], n)
				counts["next refused"]++
				continue
			}
			w := e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": n.Str("cursor"), "patterns": []string{"^" + next + "$"}, "regex": true, "timeoutMs": 20000})
			if w.Str("outcome") != "matched" {
				t.Errorf("race %d (%s): what type_text typed after cancel did not run: %v", i, cmd, w)
			}
			continue
		}
		n := e.call(t, "run_shell_command", map[string]any{"paneId": pane, "command": "echo " + next})
		if n.IsError || n.Str("status") != "completed" || n.Str("output") != next+"\n" {
			t.Errorf("race %d (%s): the next command after cancel (%s, exit %v): %v", i, cmd, x.Str("status"), x.M["exitCode"], n)
			counts["next refused"]++
		}
	}
	t.Logf("%s, %d races: %v", sh, races, counts)
}

// readyPane creates a pane with the default shell, at its prompt.
func readyPane(t *testing.T, e *env) string {
	t.Helper()
	r := e.ok(t, "create_pane", map[string]any{})
	if r.M["ready"] != true {
		t.Fatalf("create_pane: %v", r)
	}
	return r.Str("paneId")
}

// A command the interrupt really stops reports interrupted, exit 130,
// SIGINT, and the pane takes the next command at once: a program (SIGINT
// to its process group), a script's shell, and a loop the pane's shell
// runs itself (C-c typed).
func TestCancelOfARunningCommandReportsInterrupted(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	pane := readyPane(t, e)
	for _, cmd := range []string{"sleep 30", "sleep 30; echo after", "sh -c 'sleep 30; echo after; exit 3'", "while :; do :; done; echo after"} {
		r := e.runCmd(t, map[string]any{"paneId": pane, "command": cmd, "waitMs": 300})
		if r.Str("status") != "running" {
			t.Fatalf("%s: %v", cmd, r)
		}
		x := e.ok(t, "cancel_command", map[string]any{"jobId": r.Str("jobId")})
		if x.Str("status") != "interrupted" || x.Num("exitCode") != 130 || x.Str("signal") != "SIGINT" || strings.Contains(x.Str("output"), "after") {
			t.Fatalf("%s: %v", cmd, x)
		}
		if n := e.call(t, "run_shell_command", map[string]any{"paneId": pane, "command": "echo next"}); n.IsError || n.Str("output") != "next\n" {
			t.Fatalf("%s: the next command: %v", cmd, n)
		}
	}
}

// A command that catches the interrupt and exits with a status of its own
// was still stopped by the request: it reports interrupted, with the exit
// code it chose (not the signal's).
func TestCancelOfACommandThatCatchesTheInterruptReportsItsOwnExitCode(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	r := e.runCmd(t, map[string]any{"paneId": pane, "command": `sh -c 'trap "echo caught; exit 0" INT; sleep 30 & wait'`, "waitMs": 300})
	if r.Str("status") != "running" {
		t.Fatalf("trap: %v", r)
	}
	x := e.ok(t, "cancel_command", map[string]any{"jobId": r.Str("jobId")})
	if x.Str("status") != "interrupted" || x.M["exitCode"] == nil || x.Num("exitCode") != 0 || !strings.Contains(x.Str("output"), "caught") {
		t.Fatalf("a command that caught the interrupt: %v", x)
	}
	if n := e.call(t, "run_shell_command", map[string]any{"paneId": pane, "command": "echo next"}); n.IsError || n.Str("output") != "next\n" {
		t.Fatalf("the next command: %v", n)
	}
}

func TestInterruptedScriptEndsWithItsSignal(t *testing.T) {
	// Not parallel: the script must reach its sleep within waitMs 500 for
	// the C-c to stop it, which other tests' load would stretch.
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
	t.Parallel()
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

func TestCancelInCopyModeInterruptsAndLeavesThePaneInCopyMode(t *testing.T) {
	t.Parallel()
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
