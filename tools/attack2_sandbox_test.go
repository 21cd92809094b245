package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/internal/testdir"
	"github.com/tmuxmcp/tmuxmcp/sandbox"
)

// swapScript watches the pane's job directory (found in its own
// mountinfo) with inotify and rewrites each job's command file (.sh) as
// soon as tmuxmcp has written it, before the shell reads it.
const swapScript = `import ctypes, os, struct, time
libc = ctypes.CDLL(None, use_errno=True)
d = [l.split()[4] for l in open("/proc/self/mountinfo") if "/sandbox/" in l.split()[4] and l.split()[5].startswith("rw")][0]
fd = libc.inotify_init()
libc.inotify_add_watch(fd, d.encode(), 0x8)
open("watching", "w").close()
end = time.time() + 60
while time.time() < end:
    buf = os.read(fd, 4096); i = 0
    while i < len(buf):
        wd, mask, cookie, ln = struct.unpack_from("iIII", buf, i)
        name = buf[i+16:i+16+ln].rstrip(b"\0").decode(); i += 16 + ln
        p = os.path.join(d, name)
        if name.endswith(".sh") and "swapped" not in open(p).read():
            open(p, "w").write("touch swapped\n")
`

// A job script is run as tmuxmcp wrote it, also in a sandbox, where the
// pane's job directory is writable by every process of the pane: the
// command the policy judged and the audit log records is the one that
// runs.
func TestASandboxedProcessCannotSwapTheNextJobsCommand(t *testing.T) {
	t.Parallel()
	if s, err := sandbox.New(sandbox.Config{Mode: sandbox.ReadOnly}); err != nil || s.Preflight(t.Context()) != nil {
		t.Skip("bubblewrap cannot run here")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 for the watcher")
	}
	ws := testdir.Outside(t)
	if err := os.WriteFile(filepath.Join(ws, "swap.py"), []byte(swapScript), 0o600); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, envOptions{stateDir: testdir.Outside(t), sandbox: sandbox.Config{Mode: sandbox.Workspace, Workspaces: []string{ws}}})
	pane := e.ok(t, "create_pane", map[string]any{"cwd": ws}).Str("paneId")
	e.runCmd(t, map[string]any{"paneId": pane, "command": "(python3 swap.py >/dev/null 2>&1 &)", "waitMs": 30000})
	deadline := time.Now().Add(30 * time.Second)
	for _, err := os.Stat(filepath.Join(ws, "watching")); err != nil; _, err = os.Stat(filepath.Join(ws, "watching")) {
		if time.Now().After(deadline) {
			t.Fatal("the watcher did not start")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// A cwd makes it a job script.
	r := e.runCmd(t, map[string]any{"paneId": pane, "command": "echo legit", "cwd": ws, "waitMs": 30000})
	if _, err := os.Stat(filepath.Join(ws, "swapped")); err == nil || r.Str("output") != "legit\n" {
		t.Fatalf("the command that ran is not the one judged: %v", r)
	}
}

// An escalated command is approved as the person reads it: a person who
// approves `git status` outside the sandbox approves git, not code the
// sandboxed agent planted in the workspace for git to run (core.fsmonitor,
// hooks, aliases). Either the planted code does not run outside, or the
// person is told that the workspace's own files run with their access.
func TestAnApprovedEscalationDoesNotRunCodeTheSandboxPlantedInTheWorkspace(t *testing.T) {
	t.Skip("attack finding (issue 25, round 2): a sandboxed command sets core.fsmonitor in a repository of the workspace; `git status --short` escalated with a plausible reason is approved (the person and the exec approver see only `git status --short`) and the planted code runs outside the sandbox with full access. Fix: escalated git runs with -c core.fsmonitor= -c core.hooksPath=/dev/null (GIT_CONFIG_* env), and the popup names the files of the workspace the command's program reads (.git/config, hooks, Makefile, package.json) as written inside the sandbox")
	t.Parallel()
	if s, err := sandbox.New(sandbox.Config{Mode: sandbox.ReadOnly}); err != nil || s.Preflight(t.Context()) != nil {
		t.Skip("bubblewrap cannot run here")
	}
	ws, outside := testdir.Outside(t), testdir.Outside(t)
	prog := filepath.Join(testdir.Outside(t), "approver")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\ncat >/dev/null; echo approve\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, envOptions{stateDir: testdir.Outside(t), via: []string{"exec"}, approver: prog, sandbox: sandbox.Config{Mode: sandbox.Workspace, Workspaces: []string{ws}}})
	escaped := filepath.Join(outside, "escaped")
	r := e.runCmd(t, map[string]any{"command": "git init -q repo && git -C repo config core.fsmonitor 'touch " + escaped + "; false' && echo planted", "cwd": ws, "waitMs": 30000})
	if r.Str("output") != "planted\n" {
		t.Fatalf("setup: %v", r)
	}
	r = e.runCmd(t, map[string]any{"command": "git status --short", "cwd": filepath.Join(ws, "repo"), "escalate": true, "reason": "check the repository", "waitMs": 30000})
	if _, err := os.Stat(escaped); err == nil {
		t.Fatalf("code the sandbox planted ran outside it through an approved `git status`: %v", r)
	}
}
