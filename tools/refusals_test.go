package tools

import (
	"strings"
	"testing"

	"github.com/tmuxmcp/tmuxmcp/internal/tmuxtest"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// refused runs command in pane and requires a tool error containing every
// one of want; it returns the error text.
func refused(t *testing.T, e *env, pane, command string, want ...string) string {
	t.Helper()
	r := e.call(t, "run_shell_command", map[string]any{"paneId": pane, "command": command, "waitMs": 3000})
	if !r.IsError {
		t.Fatalf("%q in %s ran: %v", command, pane, r)
	}
	for _, w := range want {
		if !strings.Contains(r.Text, w) {
			t.Fatalf("refusal %q does not say %q", r.Text, w)
		}
	}
	return r.Text
}

// runs runs command in pane and requires it to complete with output.
func runs(t *testing.T, e *env, pane, command, output string) {
	t.Helper()
	r := e.runCmd(t, map[string]any{"paneId": pane, "command": command, "waitMs": 30000})
	if r.Str("status") != "completed" || r.Str("output") != output {
		t.Fatalf("%q: %v", command, r)
	}
}

func TestRefusalsNameTheStateAndTheWayOut(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	t.Run("a continuation prompt", func(t *testing.T) {
		e.run(t, pane, `echo "unclosed`)
		refused(t, e, pane, "echo next", "continuation prompt", `send_keys ["C-c"]`)
		e.ok(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"C-c"}})
		runs(t, e, pane, "echo after-continuation", "after-continuation\n")
	})
	t.Run("text tmuxmcp typed without Enter", func(t *testing.T) {
		e.ok(t, "type_text", map[string]any{"paneId": pane, "text": "echo half"})
		refused(t, e, pane, "echo next", "half-typed", "an earlier type_text left there", `send_keys ["C-c"]`, `["Enter"] runs it`)
		e.ok(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"C-c"}})
		runs(t, e, pane, "echo after-clear", "after-clear\n")
	})
	t.Run("a program in the foreground", func(t *testing.T) {
		e.run(t, pane, "sleep 30")
		refused(t, e, pane, "echo next", "busy: sleep is running", `send_keys ["C-c"]`)
		e.ok(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"C-c"}})
		runs(t, e, pane, "echo after-interrupt", "after-interrupt\n")
	})
	t.Run("a full-screen program", func(t *testing.T) {
		c := e.run(t, pane, `printf '\033[?1049h'; echo in-alt-screen; sleep 30`)
		e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": c, "patterns": []string{"^in-alt-screen$"}, "regex": true, "timeoutMs": 20000})
		refused(t, e, pane, "echo next", "full-screen program", "alternate screen")
		e.ok(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"C-c"}})
		c = e.run(t, pane, `printf '\033[?1049l'; echo left-alt-screen`)
		e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": c, "patterns": []string{"^left-alt-screen$"}, "regex": true, "timeoutMs": 20000})
		runs(t, e, pane, "echo after-alt", "after-alt\n")
	})
	t.Run("copy mode", func(t *testing.T) {
		if _, err := e.target.Run(t.Context(), "copy-mode", "-t", pane); err != nil {
			t.Fatal(err)
		}
		refused(t, e, pane, "echo next", "copy mode")
		if _, err := e.target.Run(t.Context(), "send-keys", "-t", pane, "-X", "cancel"); err != nil {
			t.Fatal(err)
		}
		runs(t, e, pane, "echo after-copy-mode", "after-copy-mode\n")
	})
}

func TestZshCorrectionPromptIsNamed(t *testing.T) {
	t.Parallel()
	e := homeEnv(t, "/usr/bin/zsh", map[string]string{".zshrc": "setopt correct\nPS1='%# '\n"})
	cr := e.ok(t, "create_pane", map[string]any{})
	pane := cr.Str("paneId")
	e.run(t, pane, "ehco hi")
	refused(t, e, pane, "echo next", "spelling correction", `send_keys ["a"]`)
	e.ok(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"a"}})
	runs(t, e, pane, "echo after-correction", "after-correction\n")
}

// A shell that is still starting is waited for, within waitMs; past it,
// create_pane says so, and names what its startup files are doing.
func TestStartingShellIsWaitedFor(t *testing.T) {
	// Not parallel: the shell must reach its rc's sleep within waitMs 300,
	// which other tests' load would stretch.
	e := homeEnv(t, "/bin/bash", map[string]string{".bash_profile": "sleep 2\nPS1='$ '\n"})
	cr := e.ok(t, "create_pane", map[string]any{"waitMs": 300})
	if cr.M["ready"] != false || !strings.Contains(cr.Str("notReadyReason"), "still starting") || !strings.Contains(cr.Str("notReadyReason"), "sleep") {
		t.Fatalf("create_pane before the rc finished: %v", cr)
	}
	runs(t, e, cr.Str("paneId"), "echo waited", "waited\n")
	if r := e.runCmd(t, map[string]any{"command": "echo fresh", "waitMs": 30000}); r.Str("status") != "completed" || r.Str("output") != "fresh\n" {
		t.Fatalf("a fresh pane with a slow rc: %v", r)
	}
}

func TestShellsThatCannotRunCommandsAreNamed(t *testing.T) {
	t.Parallel()
	t.Run("a default shell that is not a shell", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, envOptions{})
		if _, err := e.target.Run(t.Context(), "set-option", "-g", "default-shell", "/usr/bin/cat"); err != nil {
			t.Fatal(err)
		}
		cr := e.ok(t, "create_pane", map[string]any{"waitMs": 5000})
		if cr.M["ready"] != false || !strings.Contains(cr.Str("notReadyReason"), "runs cat, not a shell") {
			t.Fatalf("create_pane with cat as the shell: %v", cr)
		}
	})
	t.Run("a shell that exits at once", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, envOptions{})
		if _, err := e.target.Run(t.Context(), "set-option", "-g", "default-shell", "/bin/false"); err != nil {
			t.Fatal(err)
		}
		cr := e.ok(t, "create_pane", map[string]any{"waitMs": 5000})
		// Seen after it exited, or in the moment before (false is not a
		// shell): either names the problem.
		if reason := cr.Str("notReadyReason"); cr.M["ready"] != false || !strings.Contains(reason, "exited") && !strings.Contains(reason, "runs false, not a shell") {
			t.Fatalf("create_pane with /bin/false as the shell: %v", cr)
		}
		r := e.runCmd(t, map[string]any{"command": "echo never", "waitMs": 10000})
		// The same race as create_pane's: the fresh pane is read after its
		// shell exited, or in the moment before, when false runs in it.
		// Either way nothing ran and the launch error names why.
		if why := r.Str("launchError"); r.Str("status") != "not_started" || !strings.Contains(why, "exited and the pane closed") && !strings.Contains(why, "runs false, not a shell") {
			t.Fatalf("a fresh pane whose shell exits: %v", r)
		}
	})
	t.Run("argv that does not exist", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, envOptions{})
		r := e.call(t, "create_pane", map[string]any{"argv": []string{"no-such-program-xyz"}})
		if !r.IsError || !strings.Contains(r.Text, "not found on the PATH") {
			t.Fatalf("got %v", r)
		}
	})
}

// A pane tmuxmcp did not start, whose prompt ends in neither $ nor #, is
// not guessed at: the refusal says how to let tmuxmcp learn the prompt,
// and once it has, commands run.
func TestUnknownPromptIsLearntAfterClearingTheLine(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	if err := tmuxtest.DefaultRC(home); err != nil {
		t.Fatal(err)
	}
	target := tmuxtest.ServerWith(t, tmux.SessionSpec{Name: "agent", Width: 120, Height: 40,
		Command: []string{"bash", "--norc", "--noprofile", "-i"}, Env: map[string]string{"PS1": `\W `}}, home)
	e := newEnv(t, envOptions{target: &target})
	var pane string
	for _, p := range e.ok(t, "list_panes", map[string]any{}).M["panes"].([]any) {
		pane = p.(map[string]any)["paneId"].(string)
	}
	refused(t, e, pane, "echo next", "has not seen this shell draw its prompt", `send_keys ["C-c"]`)
	e.ok(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"C-c"}})
	runs(t, e, pane, "echo learnt", "learnt\n")
	runs(t, e, pane, "echo again", "again\n")
}

func TestLongCommandsRunInEveryShell(t *testing.T) {
	t.Parallel()
	for _, sh := range []string{"/bin/bash", "/usr/bin/zsh", "/usr/bin/fish"} {
		t.Run(sh, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, envOptions{shell: sh})
			cr := e.ok(t, "create_pane", map[string]any{})
			long := strings.Repeat("z", 65000)
			r := e.runCmd(t, map[string]any{"paneId": cr.Str("paneId"), "command": "echo " + long + " | wc -c", "waitMs": 60000})
			if r.Str("status") != "completed" || strings.TrimSpace(r.Str("output")) != "65001" || r.Num("exitCode") != 0 {
				t.Fatalf("a 65 KB command: %v", r)
			}
			r = e.runCmd(t, map[string]any{"paneId": cr.Str("paneId"), "command": "sh -c 'exit 7' " + strings.Repeat("#", 600), "waitMs": 60000})
			if r.Num("exitCode") != 7 {
				t.Fatalf("exit status of a long command: %v", r)
			}
		})
	}
}

// A command typed with type_text that has printed more than the 64 KiB
// readiness looks back over is still a busy pane, refused at once: not a
// shell still starting, waited for.
func TestBusyPaneAfterMuchOutputIsNotStarting(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	pane := e.ok(t, "create_pane", map[string]any{}).Str("paneId")
	c := e.run(t, pane, "seq 1 30000; sleep 30")
	e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": c, "patterns": []string{"^30000$"}, "regex": true, "timeoutMs": 20000})
	refused(t, e, pane, "echo next", "busy: sleep is running")
	e.ok(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"C-c"}})
}

// Waiting for one pane's slow shell holds up no other pane's command.
func TestSlowShellDoesNotHoldUpOtherPanes(t *testing.T) {
	// Not parallel: the fast pane's command must end within the slow pane's
	// 5 s start, which other tests' load would stretch.
	// Only the pane created with SLOW set takes 5 s to start.
	e := homeEnv(t, "/bin/bash", map[string]string{".bash_profile": "[ -n \"$SLOW\" ] && sleep 5\nPS1='$ '\n"})
	slow := e.ok(t, "create_pane", map[string]any{"waitMs": 0, "env": map[string]any{"SLOW": "1"}}).Str("paneId")
	fast := e.ok(t, "create_pane", map[string]any{"waitMs": 20000}).Str("paneId")
	done := make(chan result, 1)
	go func() {
		done <- e.call(t, "run_shell_command", map[string]any{"paneId": slow, "command": "echo slow", "waitMs": 20000})
	}()
	r := e.runCmd(t, map[string]any{"paneId": fast, "command": "echo fast", "waitMs": 20000})
	select {
	case <-done:
		t.Fatalf("the fast pane's command waited for the slow pane's shell: %v", r)
	default:
	}
	if r.Str("output") != "fast\n" {
		t.Fatalf("fast pane: %v", r)
	}
	if s := <-done; s.IsError || s.Str("output") != "slow\n" {
		t.Fatalf("slow pane: %v", s)
	}
}

// cancel_command while a fresh pane's shell is still starting: nothing is
// typed, the job says so, and its pane is closed.
func TestCancelBeforeAFreshShellIsReady(t *testing.T) {
	t.Parallel()
	e := homeEnv(t, "/bin/bash", map[string]string{".bash_profile": "sleep 3\nPS1='$ '\n"})
	r := e.runCmd(t, map[string]any{"command": "echo never-typed", "waitMs": 0})
	if r.Str("status") != "running" || r.Str("launchOutcome") != "STARTED" || r.M["cursor"] != nil {
		t.Fatalf("a fresh pane job while its shell starts (waitMs 0): running, to be typed once it is ready, no cursor yet: %v", r)
	}
	x := e.ok(t, "cancel_command", map[string]any{"jobId": r.Str("jobId")})
	if x.Str("status") != "not_started" || !strings.Contains(x.Str("launchError"), "cancelled before its shell was ready") {
		t.Fatalf("cancelled: %v", x)
	}
	for _, p := range e.ok(t, "list_panes", map[string]any{}).M["panes"].([]any) {
		if p.(map[string]any)["paneId"] == r.Str("paneId") {
			t.Fatalf("the cancelled job's fresh pane %s is still open", r.Str("paneId"))
		}
	}
}
