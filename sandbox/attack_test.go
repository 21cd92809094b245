package sandbox

import (
	"os"
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
	t.Skip("attack finding: a workspace of / or $HOME (the default when started there) is accepted and makes ~/.bashrc or everything writable")
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
	t.Skip("attack finding: ModeOf trusts any command line holding --setenv TMUXMCP_SANDBOX MODE; check the program is the bwrap tmuxmcp started (e.g. /proc/PID/exe) or keep the panes tmuxmcp sandboxed on record")
	if m := ModeOf([]string{"bash", "--norc", "-i", "-s", "x", "--setenv", ModeVar, "workspace"}); m != Unsandboxed {
		t.Fatalf("a plain bash is reported %s", m)
	}
}
