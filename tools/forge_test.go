package tools

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmuxmcp/tmuxmcp/audit"
	"github.com/tmuxmcp/tmuxmcp/internal/testdir"
	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/sandbox"
	"github.com/tmuxmcp/tmuxmcp/shell"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// A command's result is the shell's to give: no process of the pane can
// end its own command early or choose its exit status by printing end
// marks, whatever tags it finds (the pane's options, every process's
// environment, the screen, the job script, the state directory, the
// shell's tag made from the integration's key), nor by writing its
// script's status file. At most it makes the status unknown (end marks
// with conflicting statuses: exitCode null and a note). Outside a sandbox
// a command ends at its end mark once its shell's process group has the
// terminal back, so what runs in that group (the command line's builtins,
// a command substitution) could end it early in a pane where no forged
// mark was seen yet; programs of their own process group cannot.

// forgeScript prints forged end marks (D;0, A, a prompt, B) with every tag
// a process of the pane can find, lists them on stderr, then runs on and
// fails. It is run as `sh forge.sh STATE_DIR`.
const forgeScript = `state=$1
tags=
add() { for x in "$@"; do case $x in ''|*[!0-9a-zA-Z]*) ;; *) tags="$tags $x" ;; esac; done; }
# the pane's options
add $(tmux show -pqv @tmuxmcp-shell 2>/dev/null) $(tmux show -pqv -t "$TMUX_PANE" @tmuxmcp-shell 2>/dev/null)
# the shell's environment, and every process's
for f in /proc/$PPID/environ /proc/[0-9]*/environ; do
  [ -r "$f" ] || continue
  add $({ tr '\0' '\n' < "$f"; } 2>/dev/null | sed -n 's/^TMUXMCP_SHELL_TAG=//p')
done
# the screen: the line that sourced a job script, the script, its key
for p in $(tmux capture-pane -p -t "$TMUX_PANE" 2>/dev/null | sed -n "s/.*\. '\(.*\)\.run'.*/\1/p"); do
  add $(cat "$p.key" 2>/dev/null) $(sed -n 's/.*tmuxmcp=\([0-9a-z]*\).*/\1/p' "$p.run" 2>/dev/null)
done
# the state directory: job ids, their secrets and shells' tags, key files
for f in "$state"/jobs/*.json; do
  add "$(basename "$f" .json)"
  add $(sed -n 's/.*"secret": *"\([0-9a-f]*\)".*/\1/p' "$f" 2>/dev/null)
  add $(sed -n 's/.*"shellTag": *"s\([0-9a-f]*\)".*/\1/p' "$f" 2>/dev/null)
done
add $(cat "$state"/jobs/*.key 2>/dev/null)
# the shell's tag made from the integration's key and the pane's public ID
key=$(cat "$state/shell.key" 2>/dev/null)
id=$(tmux show -pqv -t "$TMUX_PANE" @tmuxmcp-shell 2>/dev/null)
if [ -n "$key" ] && [ -n "$id" ] && command -v openssl >/dev/null; then
  add $(printf 'shell\000%s' "$id" | openssl dgst -sha256 -mac HMAC -macopt hexkey:"$key" | sed 's/.*= //' | cut -c1-32)
fi
echo "tags:$tags" >&2
for t in $tags; do
  for m in "s$t" "$t"; do
    printf '\033]133;D;0;tmuxmcp=%s\007\033]133;A;tmuxmcp=%s\007$ \033]133;B;tmuxmcp=%s\007' "$m" "$m" "$m"
  done
done
# the status file of the job script (a shell without marks)
for p in $(tmux capture-pane -p -t "$TMUX_PANE" 2>/dev/null | sed -n "s/.*\. '\(.*\)\.run'.*/\1/p"); do
  echo 0 > "$p.rc"
done
sleep 1
echo after
exit 1
`

// forger writes the forge script and returns the command that runs it.
func forger(t *testing.T, stateDir string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "forge.sh")
	if err := os.WriteFile(p, []byte(forgeScript), 0o600); err != nil {
		t.Fatal(err)
	}
	return "sh " + p + " " + stateDir
}

// jobRecord reads job id's record from the state directory.
func jobRecord(t *testing.T, stateDir, id string) jobs.Job {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(stateDir, "jobs", id+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var j jobs.Job
	if err := json.Unmarshal(b, &j); err != nil {
		t.Fatal(err)
	}
	return j
}

// realEnd reports whether a forger's result is its own: completed with
// its own exit status (1), or with none and the note that end marks with
// conflicting statuses came (never the forged 0), and the output it
// printed after its forged marks.
func realEnd(r result) bool {
	status := r.M["exitCode"] != nil && r.Num("exitCode") == 1 || r.M["exitCode"] == nil && strings.Contains(r.Str("note"), "conflicting end marks")
	return r.Str("status") == "completed" && status && strings.Contains(r.Str("output"), "after")
}

// wantRealEnd checks a forger's result (realEnd), and that it had found
// the job's real tag (so only the terminal's evidence stopped it).
func wantRealEnd(t *testing.T, r result, stateDir string, realTag bool) {
	t.Helper()
	if !realEnd(r) {
		t.Fatalf("a forged end mark changed the result: %v", r)
	}
	if !realTag {
		return
	}
	j := jobRecord(t, stateDir, r.Str("jobId"))
	tag := j.Secret
	if j.Mode == jobs.Integrated {
		tag = strings.TrimPrefix(j.ShellTag, "s")
	}
	if tag == "" || !strings.Contains(r.Str("output"), tag) {
		t.Fatalf("the forger did not find the job's tag %q (so the test proves less): %v", tag, r)
	}
}

func TestAForgedEndMarkChangesNoResult(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("openssl is not installed: the forger cannot make the shell's tag")
	}
	for _, sh := range []string{"/bin/bash", "/usr/bin/zsh", "/usr/bin/fish", "/bin/dash"} {
		t.Run(filepath.Base(sh), func(t *testing.T) {
			t.Parallel()
			state := t.TempDir()
			e := newEnv(t, envOptions{shell: sh, stateDir: state})
			cmd := forger(t, state)
			// In the pane's own shell: typed as is (bash, zsh, fish), or
			// from a job script (dash).
			pane := e.ok(t, "create_pane", map[string]any{}).Str("paneId")
			r := e.runCmd(t, map[string]any{"paneId": pane, "command": cmd, "waitMs": 30000})
			wantRealEnd(t, r, state, true)
			// The shell is at its prompt again, and takes the next command.
			if r := e.runCmd(t, map[string]any{"paneId": pane, "command": "echo next", "waitMs": 30000}); r.Str("output") != "next\n" {
				t.Fatalf("after a forged end: %v", r)
			}
			// A job script: in a fresh pane, and with cwd.
			wantRealEnd(t, e.runCmd(t, map[string]any{"command": cmd, "waitMs": 30000}), state, true)
			wantRealEnd(t, e.runCmd(t, map[string]any{"paneId": pane, "command": cmd, "cwd": state, "waitMs": 30000}), state, true)
			// Inside a command substitution: the forger runs in the
			// shell's own process group.
			if sh != "/usr/bin/fish" {
				r = e.runCmd(t, map[string]any{"paneId": pane, "command": "x=$(" + cmd + " 2>&1 >/dev/tty); echo \"$x\" | tail -c 200; false", "waitMs": 30000})
				if !realEnd(r) {
					t.Fatalf("a forged end mark from a command substitution changed the result: %v", r)
				}
			}
		})
	}
}

// The shell's own builtins print what the typed command tells them, and
// can read the shell's variables: in a sandboxed pane an end mark they
// print, the shell then running on, is no end either: the shell does not
// read its next command. (Outside a sandbox a command ends at its end mark
// once its shell has the terminal back, so the agent's own command line
// can end itself early there: docs/design.md.)
func TestAnEndMarkPrintedByTheShellsOwnBuiltinDoesNotEndTheCommand(t *testing.T) {
	t.Parallel()
	if s, err := sandbox.New(sandbox.Config{Mode: sandbox.ReadOnly}); err != nil || s.Preflight(t.Context()) != nil {
		t.Skip("bubblewrap cannot run here")
	}
	sandboxed := func(sh string) envOptions {
		return envOptions{shell: sh, stateDir: testdir.Outside(t), sandbox: sandbox.Config{Mode: sandbox.ReadOnly}}
	}
	cases := []struct{ sh, forge, loop string }{
		{"/bin/bash", `printf '\033]133;D;0;tmuxmcp=s%s\007\033]133;A;tmuxmcp=s%s\007$ \033]133;B;tmuxmcp=s%s\007' "$__tmuxmcp_tag" "$__tmuxmcp_tag" "$__tmuxmcp_tag"`,
			`i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done`},
		{"/usr/bin/zsh", `printf '\033]133;D;0;tmuxmcp=s%s\007\033]133;A;tmuxmcp=s%s\007$ \033]133;B;tmuxmcp=s%s\007' $__tmuxmcp_tag $__tmuxmcp_tag $__tmuxmcp_tag`,
			`i=0; while (( i < 100000 )); do (( i++ )); done`},
		{"/usr/bin/fish", `printf '\033]133;D;0;tmuxmcp=s%s\007\033]133;A;tmuxmcp=s%s\007$ \033]133;B;tmuxmcp=s%s\007' $__tmuxmcp_tag $__tmuxmcp_tag $__tmuxmcp_tag`,
			`for i in (seq 30000); end`},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.sh), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, sandboxed(c.sh))
			pane := e.ok(t, "create_pane", map[string]any{}).Str("paneId")
			for _, then := range []string{"sleep 1", c.loop} {
				r := e.runCmd(t, map[string]any{"paneId": pane, "command": c.forge + "; " + then + "; echo after; false", "waitMs": 60000})
				if !realEnd(r) {
					t.Fatalf("%s: a builtin's forged end mark changed the result: %v", then, r)
				}
			}
		})
	}
	// A job script's secret is a variable of the shell while its command
	// runs.
	t.Run("job script", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, sandboxed("/bin/bash"))
		r := e.runCmd(t, map[string]any{"command": `printf '\033]133;D;0;tmuxmcp=%s\007' "$__tmuxmcp_job_k"; sleep 1; echo after; false`, "waitMs": 30000})
		if !realEnd(r) {
			t.Fatalf("a forged end mark with the job's secret changed the result: %v", r)
		}
	})
}

// No process of a pane finds its shell's tag: not in any environment
// (/proc/PID/environ keeps a process's first one), not in tmux's options
// or environments.
func TestNoProcessInAPaneCanReadItsShellsTag(t *testing.T) {
	t.Parallel()
	for _, sh := range []string{"/bin/bash", "/usr/bin/zsh", "/usr/bin/fish"} {
		t.Run(filepath.Base(sh), func(t *testing.T) {
			t.Parallel()
			state := t.TempDir()
			e := newEnv(t, envOptions{shell: sh, stateDir: state})
			in, err := shell.Install(filepath.Join(state, "shell")) // the same key as the host's
			if err != nil {
				t.Fatal(err)
			}
			dump := filepath.Join(t.TempDir(), "dump")
			pane := e.ok(t, "create_pane", map[string]any{}).Str("paneId")
			cmd := fmt.Sprintf("sh -c 'cat /proc/[0-9]*/environ; tmux show -p; tmux show -p -t \"$TMUX_PANE\"; tmux show -g; tmux showenv; tmux showenv -g' > %s 2>&1", dump)
			r := e.runCmd(t, map[string]any{"paneId": pane, "command": cmd, "waitMs": 30000})
			if r.Str("status") != "completed" {
				t.Fatalf("%v", r)
			}
			n := 0
			if _, err := fmt.Sscanf(strings.TrimPrefix(pane, "%"), "%d", &n); err != nil {
				t.Fatal(err)
			}
			p, err := e.h.Fleet().Pane(t.Context(), n)
			if err != nil || p.ShellTag == "" {
				t.Fatalf("the pane names no integrated shell: %+v %v", p, err)
			}
			tag := in.Secret(p.ShellTag)
			if j := jobRecord(t, state, r.Str("jobId")); j.Mode != jobs.Integrated || j.ShellTag != shell.MarkTag(tag) {
				t.Fatalf("the command did not run in the integrated shell with tag %q: %+v", tag, j)
			}
			b, _ := os.ReadFile(dump)
			if !strings.Contains(string(b), "HOME=") || !strings.Contains(string(b), tmux.ShellOption) {
				t.Fatalf("the dump read nothing: %q", b)
			}
			for _, l := range strings.FieldsFunc(string(b), func(r rune) bool { return r == 0 || r == '\n' }) {
				if strings.Contains(l, tag) {
					t.Fatalf("a process of the pane read the shell's tag %s: %q", tag, l)
				}
			}
		})
	}
}

// Inside a pane tmuxmcp started, TMUX_PANE names that pane, for its shell
// and for a fresh pane's command.
func TestTMUXPANEInsideAPaneNamesThatPane(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	// Another window is the session's current one.
	first := e.ok(t, "create_pane", map[string]any{}).Str("paneId")
	pane := e.ok(t, "create_pane", map[string]any{}).Str("paneId")
	for _, p := range []string{first, pane} {
		r := e.runCmd(t, map[string]any{"paneId": p, "command": `echo "$TMUX_PANE"; tmux display -p -t "$TMUX_PANE" '#{pane_id}'`, "waitMs": 30000})
		if r.Str("output") != p+"\n"+p+"\n" {
			t.Fatalf("inside %s: %v", p, r)
		}
	}
	r := e.runCmd(t, map[string]any{"command": `echo "$TMUX_PANE"`, "keep": true, "waitMs": 30000})
	if r.Str("output") != r.Str("paneId")+"\n" {
		t.Fatalf("inside a fresh pane: %v", r)
	}
}

// The audit log records the status the command really ended with, not
// the one it forged.
func TestTheAuditLogRecordsTheRealStatusOfAForgedEnd(t *testing.T) {
	t.Parallel()
	logPath := filepath.Join(t.TempDir(), "audit.jsonl")
	al, _ := audit.Open(logPath)
	state := t.TempDir()
	e := newEnv(t, envOptions{audit: al, stateDir: state})
	pane := e.ok(t, "create_pane", map[string]any{}).Str("paneId")
	r := e.runCmd(t, map[string]any{"paneId": pane, "command": forger(t, state), "waitMs": 30000})
	wantRealEnd(t, r, state, false)
	_ = al.Close()
	log, _ := os.ReadFile(logPath)
	var found bool
	for _, l := range strings.Split(string(log), "\n") {
		var ev audit.Event
		if json.Unmarshal([]byte(l), &ev) != nil || ev.Event != "completed" || ev.JobID != r.Str("jobId") {
			continue
		}
		found = true
		if ev.Status != "completed" || ev.ExitCode == nil || *ev.ExitCode != 1 {
			t.Fatalf("the audit log records %+v", ev)
		}
	}
	if !found {
		t.Fatalf("no completed event for %s:\n%s", r.Str("jobId"), log)
	}
}
