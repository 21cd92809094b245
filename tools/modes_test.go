package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/internal/tmuxtest"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// shellEnv is a server whose panes run sh, without fish's first-start man
// page completion generator (a minute of CPU in the background, writing
// into HOME while the test cleans it up).
func shellEnv(t *testing.T, sh string) *env {
	home := t.TempDir()
	if err := tmuxtest.DefaultRC(home); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, ".local/share/fish/generated_completions"), 0o700); err != nil {
		t.Fatal(err)
	}
	target := tmuxtest.ServerWith(t, tmux.SessionSpec{Name: "agent", Width: 120, Height: 40}, home)
	return newEnv(t, envOptions{target: &target, shell: sh})
}

// The ways a command runs: in a pane given by paneId (a create_pane
// shell), in a fresh pane, and each of them in the background, awaited
// with await_command_result.
var modes = []mode{
	{"pane", false, false},
	{"fresh pane", true, false},
	{"background in a pane", false, true},
	{"background in a fresh pane", true, true},
}

type mode struct {
	name       string
	fresh      bool
	background bool
}

// runIn starts command in mode m (in pane unless m is fresh) and returns the
// first result that is not a background command's immediate answer: the
// call's own, or await_command_result's.
func (e *env) runIn(t *testing.T, m mode, pane, command string, extra map[string]any) result {
	t.Helper()
	args := map[string]any{"command": command, "waitMs": 60000}
	if !m.fresh {
		args["paneId"] = pane
	}
	for k, v := range extra {
		args[k] = v
	}
	if m.background {
		delete(args, "waitMs")
		args["background"] = true
	}
	r := e.ok(t, "run_shell_command", args)
	if m.background {
		if r.Str("launchOutcome") != "STARTED" || r.M["cursor"] == nil {
			t.Fatalf("%s: a background command answers STARTED, with a cursor: %v", m.name, r.M)
		}
		r = e.ok(t, "await_command_result", map[string]any{"jobId": r.Str("jobId"), "waitMs": 60000})
	}
	return r
}

// A command that stops to ask (rm -i, the shell's own read) comes back
// within moments saying waitingForInput, with its question, in every mode
// and every shell — not after the call's whole wait — and the answer typed
// into its pane lets it finish.
func TestAQuestionComesBackAtOnceInEveryModeAndShell(t *testing.T) {
	t.Parallel()
	reads := map[string]struct{ command, prompt string }{
		"/bin/bash":     {`read -p 'Name? ' v; echo "got $v"`, "Name?"},
		"/usr/bin/zsh":  {`read 'v?Name? '; echo "got $v"`, "Name?"},
		"/usr/bin/fish": {`read -P 'Name? ' v; echo "got $v"`, "Name?"},
	}
	for sh, read := range reads {
		t.Run(sh, func(t *testing.T) {
			t.Parallel()
			e := shellEnv(t, sh)
			pane, _ := e.shell(t)
			for _, m := range modes {
				for _, q := range []struct{ command, prompt, answer, want string }{
					{read.command, read.prompt, "world", "got world"},
					{"touch f; rm -i f && echo removed", "rm: remove regular empty file 'f'?", "y", "removed"},
				} {
					start := time.Now()
					r := e.runIn(t, m, pane, q.command, map[string]any{"cwd": t.TempDir()})
					took := time.Since(start)
					if took > 20*time.Second || r.Str("status") != "running" || r.M["waitingForInput"] != true || r.Str("prompt") != q.prompt {
						t.Fatalf("%s, %q: want running, waiting for input at %q within moments (took %v): %v", m.name, q.command, q.prompt, took, r.M)
					}
					t.Logf("%s %s: waitingForInput after %v", sh, m.name, took.Round(10*time.Millisecond))
					e.ok(t, "type_text", map[string]any{"paneId": r.Str("paneId"), "text": q.answer, "submit": true})
					a := e.ok(t, "await_command_result", map[string]any{"jobId": r.Str("jobId"), "waitMs": 30000})
					if a.Str("status") != "completed" || !strings.Contains(a.Str("output"), q.want) || a.M["waitingForInput"] != false {
						t.Fatalf("%s, %q: after the answer: %v", m.name, q.command, a.M)
					}
				}
			}
		})
	}
}

// A command's result gives one cursor, at the command's first byte while
// it has printed nothing, that wait_for_text, capture_since and
// await_command_result all take — a background command in a fresh pane's
// too — and none of them shows tmuxmcp's own typed line from it.
func TestOneCursorServesEveryToolInEveryMode(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	for _, m := range []struct {
		name  string
		fresh bool
	}{{"pane", false}, {"fresh pane", true}} {
		args := map[string]any{"command": "sleep 1; echo one-$((1+1)); sleep 1; echo two-$((2+2))", "background": true}
		if !m.fresh {
			args["paneId"] = pane
		} else {
			args["keep"] = true
		}
		r := e.runCmd(t, args)
		c := r.Str("cursor")
		if r.Str("status") != "running" || r.Str("launchOutcome") != "STARTED" || c == "" || r.Str("output") != "" {
			t.Fatalf("%s: a background command answers running, STARTED, one cursor: %v", m.name, r.M)
		}
		p := r.Str("paneId")
		w := e.ok(t, "wait_for_text", map[string]any{"paneId": p, "cursor": c, "patterns": []string{"one-2"}, "timeoutMs": 30000})
		if w.Str("outcome") != "matched" {
			t.Fatalf("%s: wait_for_text from the job's cursor: %v", m.name, w.M)
		}
		since := e.ok(t, "capture_since", map[string]any{"paneId": p, "cursor": c})
		if !strings.HasPrefix(since.Str("output"), "one-2\n") {
			t.Fatalf("%s: capture_since from the job's cursor starts at the command's first byte: %q", m.name, since.Str("output"))
		}
		a := e.ok(t, "await_command_result", map[string]any{"jobId": r.Str("jobId"), "cursor": c, "waitMs": 30000})
		if a.Str("status") != "completed" || a.Str("output") != "one-2\ntwo-4\n" {
			t.Fatalf("%s: await_command_result from the job's first cursor: %v", m.name, a.M)
		}
		// A wait's cursor is taken too: what follows it, perhaps a little
		// before, never tmuxmcp's typed line.
		fromWait := e.ok(t, "await_command_result", map[string]any{"jobId": r.Str("jobId"), "cursor": w.Str("cursor")})
		if !strings.HasSuffix(fromWait.Str("output"), "two-4\n") {
			t.Fatalf("%s: await_command_result from a wait's cursor: %v", m.name, fromWait.M)
		}
		if end := e.ok(t, "await_command_result", map[string]any{"jobId": r.Str("jobId"), "cursor": a.Str("cursor")}); end.Str("output") != "" {
			t.Fatalf("%s: nothing after the last cursor: %v", m.name, end.M)
		}
		for _, out := range []string{w.Str("output"), since.Str("output"), a.Str("output"), fromWait.Str("output")} {
			for _, leak := range []string{".run", "jobs/", "sleep 1", "$((1+1))"} {
				if strings.Contains(out, leak) {
					t.Fatalf("%s: output from the job's cursor shows tmuxmcp's typed line (%q): %q", m.name, leak, out)
				}
			}
		}
	}
}

// A shell that ends while it runs a command — exit 3, or killed — says
// how, from what tmux knows of the dead pane, the same in every mode:
// pane_died with exitCode 3, or with signal SIGKILL. A pane that would
// have closed by itself is closed.
func TestAShellThatEndsDuringACommandSaysHowInEveryMode(t *testing.T) {
	t.Parallel()
	for _, sh := range []string{"/bin/bash", "/usr/bin/zsh", "/usr/bin/fish"} {
		t.Run(sh, func(t *testing.T) {
			t.Parallel()
			e := shellEnv(t, sh)
			self := "$$"
			if strings.HasSuffix(sh, "fish") {
				self = "$fish_pid"
			}
			for _, m := range modes {
				for _, c := range []struct {
					command string
					code    any
					signal  any
				}{
					{"echo bye; exit 3", float64(3), nil},
					{"echo bye; kill -KILL " + self, nil, "SIGKILL"},
				} {
					pane, _ := e.shell(t)
					r := e.runIn(t, m, pane, c.command, nil)
					if strings.HasSuffix(sh, "fish") && m.fresh && c.signal == nil {
						// fish's exit in a sourced script ends the script, not
						// the shell (docs/tools.md).
						if r.Str("status") != "completed" || r.M["exitCode"] != c.code {
							t.Fatalf("%s, %q: %v", m.name, c.command, r.M)
						}
						continue
					}
					if r.Str("status") != "pane_died" || r.M["exitCode"] != c.code || r.M["signal"] != c.signal {
						t.Fatalf("%s, %q: want pane_died with exitCode %v, signal %v: %v", m.name, c.command, c.code, c.signal, r.M)
					}
					for _, p := range e.ok(t, "list_panes", map[string]any{}).M["panes"].([]any) {
						if p.(map[string]any)["paneId"] == r.Str("paneId") {
							t.Fatalf("%s, %q: the dead pane was left open: %v", m.name, c.command, p)
						}
					}
				}
			}
		})
	}
}
