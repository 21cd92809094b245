package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmuxmcp/tmuxmcp/internal/testdir"
	"github.com/tmuxmcp/tmuxmcp/sandbox"
)

// A command that prints end marks with its shell's tag (a variable of the
// shell it runs in) and then has the shell itself read the terminal with
// its line editor (bash `read -e`, zsh `read -k`, fish `read`) looks, to
// the terminal, exactly like the shell back at its prompt: its group in
// front, the shell alone, reading, the terminal out of canonical mode. It
// must still not end the command: the result is the command's own status
// and output, and the next command is not read by the forger.
func TestACommandThatReadsWithItsShellsLineEditorAfterForgedMarksDoesNotEnd(t *testing.T) {
	t.Skip("attack finding (issue 25, round 2): bash `read -e`, zsh `read -k1`, fish `read` after forged D/A/B marks with $__tmuxmcp_tag end the command: completed, exitCode 0 (real 1), its later output cut, and the next command typed into the pane is read by the forger (reported with the forger's status, never run) — with and without --sandbox")
	t.Parallel()
	forge := `printf '\033]133;D;0;tmuxmcp=s%s\007\033]133;A;tmuxmcp=s%s\007$ \033]133;B;tmuxmcp=s%s\007' `
	cases := []struct{ sh, tags, read string }{
		{"/bin/bash", `"$__tmuxmcp_tag" "$__tmuxmcp_tag" "$__tmuxmcp_tag"`, "read -e -t 5 x"},
		{"/usr/bin/zsh", `$__tmuxmcp_tag $__tmuxmcp_tag $__tmuxmcp_tag`, "read -k1 -t 5 x"},
		{"/usr/bin/fish", `$__tmuxmcp_tag $__tmuxmcp_tag $__tmuxmcp_tag`, "read -n1 x"},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.sh), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, envOptions{shell: c.sh})
			pane := e.ok(t, "create_pane", map[string]any{}).Str("paneId")
			r := e.runCmd(t, map[string]any{"paneId": pane, "command": forge + c.tags + "; " + c.read + "; echo after; false", "waitMs": 30000})
			if r.Str("status") != "completed" || r.Num("exitCode") != 1 || !strings.Contains(r.Str("output"), "after") {
				t.Fatalf("a forged end mark followed by the shell's own line editor changed the result: %v", r)
			}
			if r := e.runCmd(t, map[string]any{"paneId": pane, "command": "echo next", "waitMs": 30000}); r.Str("output") != "next\n" {
				t.Fatalf("the next command after a forged end: %v", r)
			}
		})
	}
}

// The same with the terminal put out of canonical mode by a program
// (stty -icanon) and the shell's plain `read` builtin: the terminal's
// evidence is the shell's own, reading, non-canonical.
func TestACommandThatReadsWithTheShellsReadBuiltinOutOfCanonicalModeAfterForgedMarksDoesNotEnd(t *testing.T) {
	t.Skip("attack finding (issue 25, round 2): stty -icanon, then D;0 A B marks with $__tmuxmcp_tag, then read -t 5 x in bash ends the command: completed, exitCode 0 (real 1), later output cut, the next command swallowed")
	t.Parallel()
	e := newEnv(t, envOptions{shell: "/bin/bash"})
	pane := e.ok(t, "create_pane", map[string]any{}).Str("paneId")
	r := e.runCmd(t, map[string]any{"paneId": pane, "command": `stty -icanon; printf '\033]133;D;0;tmuxmcp=s%s\007\033]133;A;tmuxmcp=s%s\007$ \033]133;B;tmuxmcp=s%s\007' "$__tmuxmcp_tag" "$__tmuxmcp_tag" "$__tmuxmcp_tag"; read -t 5 x; stty icanon; echo after; false`, "waitMs": 30000})
	if r.Str("status") != "completed" || r.Num("exitCode") != 1 || !strings.Contains(r.Str("output"), "after") {
		t.Fatalf("a forged end mark followed by the shell's read out of canonical mode changed the result: %v", r)
	}
}

// Code that runs in the shell itself (the command typed, or a file it
// sources: a virtualenv's activate, an .envrc) can redefine the
// integration's hook: every later command of the pane then reports what
// that code chose.
func TestCodeRunInTheShellCannotChooseTheResultsOfLaterCommands(t *testing.T) {
	t.Skip("attack finding (issue 25, round 2): a __tmuxmcp_precmd redefined to print D;0 and A with $__tmuxmcp_tag (typed, or in a sourced file) makes every later command of the pane report exit 0 (false, ls /nonexistent) — the shell really is at its prompt, so the terminal's evidence agrees")
	t.Parallel()
	e := newEnv(t, envOptions{shell: "/bin/bash"})
	pane := e.ok(t, "create_pane", map[string]any{}).Str("paneId")
	e.runCmd(t, map[string]any{"paneId": pane, "command": `__tmuxmcp_precmd() { builtin printf '\033]133;D;0;tmuxmcp=s%s\007\033]133;A;tmuxmcp=s%s\007' "$__tmuxmcp_tag" "$__tmuxmcp_tag"; }`, "waitMs": 30000})
	if r := e.runCmd(t, map[string]any{"paneId": pane, "command": "false", "waitMs": 30000}); r.Num("exitCode") != 1 {
		t.Fatalf("a later command's status was chosen by an earlier one: %v", r)
	}
}

// stiScript pushes its argument and a newline into its terminal's input
// queue with TIOCSTI, as if typed: the shell reads it once the command
// has ended.
const stiScript = `import fcntl, os, sys, termios
fd = os.open("/dev/tty", os.O_RDWR)
for c in sys.argv[1] + "\n":
    fcntl.ioctl(fd, termios.TIOCSTI, c.encode())
`

// A program the command runs (a build script, a test) is not the shell:
// it cannot make the shell run code of its choosing by pushing a line into
// the terminal's input (TIOCSTI) — inside the sandbox above all — and so
// cannot choose the results of the pane's later commands, nor run a line
// the policy never judged.
func TestAProgramInASandboxedPaneCannotTypeIntoItsShell(t *testing.T) {
	t.Parallel()
	if s, err := sandbox.New(sandbox.Config{Mode: sandbox.ReadOnly}); err != nil || s.Preflight(t.Context()) != nil {
		t.Skip("bubblewrap cannot run here")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 for the TIOCSTI program")
	}
	ws := testdir.Outside(t)
	if err := os.WriteFile(filepath.Join(ws, "sti.py"), []byte(stiScript), 0o600); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, envOptions{stateDir: testdir.Outside(t), sandbox: sandbox.Config{Mode: sandbox.Workspace, Workspaces: []string{ws}}})
	pane := e.ok(t, "create_pane", map[string]any{"cwd": ws}).Str("paneId")
	inject := ` __tmuxmcp_precmd() { builtin printf '\033]133;D;0;tmuxmcp=s%s\007\033]133;A;tmuxmcp=s%s\007' "$__tmuxmcp_tag" "$__tmuxmcp_tag"; }; touch injected`
	if err := os.WriteFile(filepath.Join(ws, "inject.txt"), []byte(inject), 0o600); err != nil {
		t.Fatal(err)
	}
	e.runCmd(t, map[string]any{"paneId": pane, "command": `python3 sti.py "$(cat inject.txt)" >/dev/null; echo built`, "waitMs": 30000})
	r := e.runCmd(t, map[string]any{"paneId": pane, "command": "false", "waitMs": 30000})
	if _, err := os.Stat(filepath.Join(ws, "injected")); err == nil {
		t.Errorf("a line a sandboxed program pushed into its terminal ran in the shell")
	}
	if r.Num("exitCode") != 1 {
		t.Fatalf("a sandboxed program chose the status of a later command: %v", r)
	}
}

// memScript prints every shell tag it finds in the writable memory of
// process argv[1] (/proc/PID/mem, as ptrace allows a process of the same
// user without Yama).
const memScript = `import re, sys
pid = sys.argv[1]; found = set()
mem = open("/proc/%s/mem" % pid, "rb", 0)
for l in open("/proc/%s/maps" % pid):
    a, perm = l.split()[:2]
    if "rw" not in perm: continue
    s, e = (int(x, 16) for x in a.split("-"))
    try:
        mem.seek(s); b = mem.read(e - s)
    except OSError: continue
    found.update(m.group(1).decode() for m in re.finditer(rb"tmuxmcp=s([0-9a-f]{16,64})", b))
print("found", " ".join(sorted(found)))
`

// No process of a pane reads its shell's tag: not from the shell's memory
// either, sandboxed or not.
func TestAProgramCannotReadItsShellsTagFromTheShellsMemory(t *testing.T) {
	t.Skip("attack finding (issue 25, round 2): a child of the shell reads /proc/$PPID/mem (same user, no Yama ptrace_scope on this kernel; inside the sandbox too) and finds the shell's secret tag in the marks PS1 carries. Fix: none in the shell (execve makes it dumpable); doctor should warn without kernel.yama.ptrace_scope >= 1, and docs should not claim no process can read the tag")
	t.Parallel()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mem.py"), []byte(memScript), 0o600); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, envOptions{})
	pane := e.ok(t, "create_pane", map[string]any{}).Str("paneId")
	r := e.runCmd(t, map[string]any{"paneId": pane, "command": "python3 " + filepath.Join(dir, "mem.py") + ` $$; echo "real ${__tmuxmcp_tag}"`, "waitMs": 30000})
	out := r.Str("output")
	i := strings.Index(out, "real ")
	if i < 0 || len(out) < i+6 {
		t.Fatalf("no tag to compare: %v", r)
	}
	if tag := strings.TrimSpace(out[i+5:]); tag != "" && strings.Contains(out[:i], tag) {
		t.Fatalf("a program read its shell's tag %s from the shell's memory: %q", tag, out)
	}
}
