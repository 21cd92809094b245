package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmuxmcp/tmuxmcp/internal/testdir"
)

// keyScript reads the keyring of the user the sandbox runs as (a key
// the test added outside) and adds one there, with the raw syscalls.
const keyScript = `import ctypes, sys
l = ctypes.CDLL(None, use_errno=True)
b = ctypes.create_string_buffer(4096)
n = l.syscall(250, 11, ctypes.c_int(-4), b, 4096)  # KEYCTL_READ @u
for i in range(0, max(n, 0), 4):
    k = int.from_bytes(b.raw[i:i+4], "little")
    v = ctypes.create_string_buffer(256)
    m = l.syscall(250, 11, k, v, 256)
    if m > 0: print("read", v.raw[:m].decode(errors="replace"))
print("added" if l.syscall(248, b"user", sys.argv[1].encode(), b"planted", 7, ctypes.c_int(-4)) > 0 else "add refused")
`

// Found by the issue 25 attack (round 2): run as root, bwrap makes no
// user namespace, and the kernel keyrings are the user's, not the
// sandbox's: a sandboxed command reads every secret the user keeps in
// @u (systemd-ask-password's cached passphrases, Kerberos KEYRING
// caches, keyctl-kept tokens) and plants keys the user's programs
// outside then find.
func TestTheUsersKeyringIsOutOfTheSandboxsReach(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	name := "tmuxmcp-attack2-" + t.Name()
	secret := "outside-secret-" + t.Name()
	add := exec.Command("python3", "-c", `import ctypes, sys; l = ctypes.CDLL(None); print(l.syscall(248, b"user", sys.argv[1].encode(), sys.argv[2].encode(), len(sys.argv[2]), ctypes.c_int(-4)))`, name+"-outside", secret)
	if out, err := add.CombinedOutput(); err != nil || strings.HasPrefix(string(out), "-") {
		t.Skipf("cannot add a key to the user keyring here: %v %s", err, out)
	}
	dir := testdir.Outside(t)
	if err := os.WriteFile(dir+"/kr.py", []byte(keyScript), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := inside(t, Config{Mode: ReadOnly}, "python3 "+dir+"/kr.py "+name+"-inside")
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if strings.Contains(out, secret) {
		t.Errorf("a sandboxed process read the user's key %q: %q", secret, out)
	}
	if strings.Contains(out, "added") {
		t.Errorf("a sandboxed process added a key to the user's keyring: %q", out)
	}
}

// Found by the issue 25 attack (round 2): the sandbox's cache
// (Config.CacheRoot, ~/.cache/tmuxmcp/sandbox by default) is shared by
// every sandbox of the user, whatever its workspace. Shells read files
// from the cache at start (powerlevel10k's instant prompt,
// ~/.cache/p10k-instant-prompt-$USER.zsh, is sourced by the standard
// .zshrc), so a command confined to one workspace runs code in the next
// sandbox of another workspace, and writes there.
func TestASandboxOfOneWorkspaceLeavesNothingInTheCachesASandboxOfAnotherReads(t *testing.T) {
	home := homeWithCaches(t)
	root := filepath.Join(t.TempDir(), "sandbox-cache")
	a, b := testdir.Outside(t), testdir.Outside(t)
	out, err := inside(t, Config{Mode: Workspace, Workspaces: []string{a}, Home: home, CacheRoot: root},
		`echo "touch `+b+`/poisoned" > `+home+`/.cache/p10k-instant-prompt.zsh && echo wrote`)
	if err != nil || !strings.Contains(out, "wrote") {
		t.Fatalf("workspace A: %v %q", err, out)
	}
	out, err = inside(t, Config{Mode: Workspace, Workspaces: []string{b}, Home: home, CacheRoot: root},
		`f=`+home+`/.cache/p10k-instant-prompt.zsh; if [ -f "$f" ]; then . "$f"; fi; echo started`)
	if err != nil || !strings.Contains(out, "started") {
		t.Fatalf("workspace B: %v %q", err, out)
	}
	if _, err := os.Stat(filepath.Join(b, "poisoned")); err == nil {
		t.Fatal("a sandbox of workspace A ran code in a sandbox of workspace B through the shared cache")
	}
}

// Found by the issue 25 attack (round 2): a workspace is bound writable
// after bwrap's own /proc and /dev, so --workspace /proc puts the host's
// procfs back (kernel.core_pattern writable as root: a program run as root
// on the host at the next crash; every host process visible) and
// --workspace /dev the host's devices (its disks). Such a workspace is
// refused like /.
func TestAWorkspaceThatReplacesTheSandboxsProcDevOrSysIsRefused(t *testing.T) {
	home := t.TempDir()
	for _, ws := range []string{"/proc", "/proc/sys", "/proc/self/root", "/dev", "/dev/pts", "/sys", "/sys/fs/cgroup"} {
		if _, err := New(Config{Mode: Workspace, Workspaces: []string{ws}, Home: home, Bwrap: "/bin/true"}); err == nil {
			t.Errorf("workspace %s was accepted", ws)
		}
	}
}
