package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Found by the issue 25 attack (h-attack): bwrap covers /proc/sys only when
// access("/proc/sys", W_OK) succeeds, and the kernel always answers EACCES
// for that directory, so bwrap leaves it writable. As root (capabilities
// dropped, but still uid 0) a sandboxed shell could write every sysctl:
// kernel.core_pattern = "|/workspace/prog" ran prog as root on the host,
// in the host's namespaces, at the next crash.
func TestRootInsideCannotWriteKernelSettings(t *testing.T) {
	out, err := inside(t, Config{Mode: ReadOnly},
		`(exec 3>>/proc/sys/kernel/core_pattern) 2>/dev/null && echo core_pattern-writable; (exec 3>>/proc/sys/vm/drop_caches) 2>/dev/null && echo vm-writable; cat /proc/sys/kernel/ostype`)
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if strings.Contains(out, "writable") || !strings.Contains(out, "Linux") {
		t.Fatalf("the host's kernel settings are writable (or unreadable) inside: %q", out)
	}
}

// Attack finding (issue 25, h-attack): the default workspace is the
// directory tmuxmcp was started in. Started from $HOME (or /, where some
// MCP clients start servers), "workspace" makes ~/.bashrc writable (it
// runs outside at the person's next shell and in every escalated pane),
// or the whole filesystem: an agent echoed into ~/.bashrc and touched
// /var/tmp from a pane reported "sandbox: workspace".
func TestAWorkspaceThatHoldsHomeOrTheRootIsRefused(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(home+"/.bashrc", []byte("PS1='$ '\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, ws := range []string{"/", home, home + "/.."} {
		if _, err := New(Config{Mode: Workspace, Workspaces: []string{ws}, Home: home, Bwrap: "/bin/true"}); err == nil {
			t.Errorf("workspace %s (home %s) was accepted", ws, home)
		}
	}
}

// Attack finding (issue 25, h-attack): a pane's mode is read from its first
// process's command line, which any program may choose. A shell outside
// the sandbox started as `bash --norc -i -s x --setenv TMUXMCP_SANDBOX
// workspace` (typed into a person's pane, or an escalated one) is listed
// as "workspace", and the popup and the audit log say so, while its
// commands write anywhere.
func TestAShellThatNamesTheSandboxInItsArgumentsIsNotSandboxed(t *testing.T) {
	ws := t.TempDir()
	s, err := New(Config{Mode: Workspace, Workspaces: []string{ws}, Home: t.TempDir()})
	if err != nil {
		t.Skipf("no sandbox here: %v", err)
	}
	none := func(string) bool { return false }
	mine := func(p string) bool { return p == "/state/sandbox/abc" }
	real := s.Command([]string{"sh"}, Bind{Path: "/state/sandbox/abc", Writable: true})
	if m := s.Verify(s.Bwrap(), real, mine); m != Workspace {
		t.Fatalf("the sandbox's own command line reads as %s", m)
	}
	for name, c := range map[string]struct {
		exe  string
		args []string
	}{
		"a bash naming the mode":           {"/bin/bash", []string{"bash", "--norc", "-i", "-s", "x", "--setenv", ModeVar, "workspace"}},
		"a bash given bwrap's arguments":   {"/bin/bash", real},
		"bwrap binding everything":         {s.Bwrap(), []string{"bwrap", "--bind", "/", "/", "--setenv", ModeVar, "workspace", "--", "sh"}},
		"bwrap with one more writable":     {s.Bwrap(), append(append(slices.Clone(real[:len(real)-2]), "--bind", "/etc", "/etc"), real[len(real)-2:]...)},
		"bwrap giving back a path not its": {s.Bwrap(), real},
	} {
		exposed := mine
		if name == "bwrap giving back a path not its" {
			exposed = none
		}
		if m := s.Verify(c.exe, c.args, exposed); m != Unsandboxed {
			t.Errorf("%s: reported %s", name, m)
		}
	}
}

// From the second attack: a sandboxed program pushed a line into its own
// shell's input with TIOCSTI (the kernel here allows it,
// dev.tty.legacy_tiocsti=1), which the shell ran unjudged; and, as root,
// read the user's kernel keyring. The seccomp filter refuses both.
func TestInsideNeitherTIOCSTINorTheKeyringIsAllowed(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	dir := t.TempDir()
	// Without a terminal (go test has none) an ioctl on a tty reaches the
	// driver as ENOTTY (25); the filter answers EPERM (1) before that.
	probe := `exec python3 -c '
import ctypes, fcntl, os, termios
libc = ctypes.CDLL(None, use_errno=True)
def errno_of(req):
    try:
        fcntl.ioctl(1, req, bytes(8))
        return 0
    except OSError as e:
        return e.errno
print("tiocsti", errno_of(termios.TIOCSTI))
print("tiocgwinsz", errno_of(termios.TIOCGWINSZ))
r = libc.syscall(250 if os.uname().machine == "x86_64" else 219, 0, -4, 0)
print("keyctl", r, ctypes.get_errno())
'`
	out, err := inside(t, Config{Mode: ReadOnly, Seccomp: filepath.Join(dir, "seccomp.bpf")}, probe)
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.Contains(out, "tiocsti 1\n") || !strings.Contains(out, "keyctl -1 1\n") || strings.Contains(out, "tiocgwinsz 1\n") {
		t.Fatalf("inside the sandbox: %q (want TIOCSTI and keyctl refused with EPERM, other ioctls reaching the driver)", out)
	}
}
