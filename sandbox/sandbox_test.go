package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tmuxmcp/tmuxmcp/internal/nettest"
	"github.com/tmuxmcp/tmuxmcp/internal/testdir"
)

func TestParseModeTakesTheThreeModesAndNamesTheFixForAnythingElse(t *testing.T) {
	for _, m := range []string{"off", "read-only", "workspace"} {
		if got, err := ParseMode(m); err != nil || string(got) != m {
			t.Errorf("ParseMode(%q) = %q, %v", m, got, err)
		}
	}
	if _, err := ParseMode("on"); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("ParseMode(on): %v", err)
	}
}

func TestOffIsNoSandbox(t *testing.T) {
	s, err := New(Config{Mode: Off, Bwrap: "/nowhere/bwrap"})
	if s != nil || err != nil {
		t.Fatalf("off: %v %v", s, err)
	}
	if s.Mode() != Off || s.Network() || s.Workspaces() != nil {
		t.Fatal("a nil sandbox is off")
	}
}

func TestAMissingBwrapOrWorkspaceIsRefusedWithTheFix(t *testing.T) {
	dir := t.TempDir()
	var e *Error
	_, err := New(Config{Mode: ReadOnly, Path: dir})
	if !errors.As(err, &e) || !strings.Contains(e.Reason, "not found") || !strings.Contains(e.Fix, "apt-get install bubblewrap") {
		t.Errorf("bwrap off the PATH: %v", err)
	}
	_, err = New(Config{Mode: ReadOnly, Bwrap: filepath.Join(dir, "bwrap")})
	if !errors.As(err, &e) || !strings.Contains(e.Reason, "not an executable") {
		t.Errorf("bwrap path pointing nowhere: %v", err)
	}
	_, err = New(Config{Mode: Workspace, Workspaces: []string{filepath.Join(dir, "missing")}, Bwrap: "/bin/true"})
	if !errors.As(err, &e) || !strings.Contains(e.Reason, "does not exist") {
		t.Errorf("missing workspace: %v", err)
	}
	_, err = New(Config{Mode: Workspace, Bwrap: "/bin/true"})
	if !errors.As(err, &e) || !strings.Contains(e.Fix, "--workspace") {
		t.Errorf("no workspace: %v", err)
	}
}

func TestWorkspacesAreResolvedThroughSymlinks(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	got, err := ResolveWorkspaces([]string{link, real})
	want, _ := filepath.EvalSymlinks(real)
	if err != nil || len(got) != 1 || got[0] != want {
		t.Fatalf("ResolveWorkspaces = %v, %v; want [%s]", got, err, want)
	}
}

func TestUserNamespacesOffAreRefusedForUsersButNotRoot(t *testing.T) {
	files := map[string]string{"/proc/sys/user/max_user_namespaces": "0\n"}
	read := func(p string) ([]byte, error) {
		if v, ok := files[p]; ok {
			return []byte(v), nil
		}
		return nil, fs.ErrNotExist
	}
	if err := checkUserNamespaces(1000, read); err == nil || !strings.Contains(err.Error(), "max_user_namespaces") {
		t.Errorf("max_user_namespaces 0: %v", err)
	}
	if err := checkUserNamespaces(0, read); err != nil {
		t.Errorf("root needs no user namespace: %v", err)
	}
	files = map[string]string{"/proc/sys/user/max_user_namespaces": "100", "/proc/sys/kernel/unprivileged_userns_clone": "0"}
	if err := checkUserNamespaces(1000, read); err == nil || !strings.Contains(err.Error(), "unprivileged_userns_clone") {
		t.Errorf("unprivileged_userns_clone 0: %v", err)
	}
}

func TestVersionsCompareByNumber(t *testing.T) {
	for text, want := range map[string]bool{"bubblewrap 0.8.0": true, "bubblewrap 0.10.0": true, "bubblewrap 0.3.3": false, "bubblewrap 1.0": true, "": false, "bubblewrap x": false} {
		if got := AtLeast(text, MinVersion); got != want {
			t.Errorf("AtLeast(%q) = %v", text, got)
		}
	}
}

func TestTheCommandLineDropsCapabilitiesHidesAndBindsBackInOrder(t *testing.T) {
	home := t.TempDir() // under /tmp
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	state, ws := t.TempDir(), t.TempDir()
	token := filepath.Join(t.TempDir(), "token")
	_ = os.WriteFile(token, []byte("x"), 0o600)
	s := &Sandbox{cfg: Config{Mode: Workspace, Workspaces: []string{ws}, Home: home, Hide: []string{state, token, "/nowhere/x"}}, bwrap: "bwrap"}
	argv := s.Command([]string{"sh"}, Bind{Path: filepath.Join(state, "shell")}, Bind{Path: filepath.Join(state, "pane"), Writable: true})
	line := strings.Join(argv, " ")
	for _, want := range []string{"--cap-drop ALL", "--unshare-net", "--unshare-pid", "--die-with-parent", "--ro-bind / /", "--tmpfs /tmp",
		"--ro-bind " + home + " " + home, "--bind " + ws + " " + ws, "--tmpfs " + state, "--ro-bind /dev/null " + token,
		"--tmpfs " + filepath.Join(home, ".ssh"), "--unsetenv TMUX --unsetenv TMUX_PANE", "-- sh"} {
		if !strings.Contains(line, want) {
			t.Errorf("missing %q in %s", want, line)
		}
	}
	if strings.Contains(line, "--new-session") || strings.Contains(line, "/nowhere") {
		t.Errorf("unexpected: %s", line)
	}
	at := func(s string) int { return strings.Index(line, s) }
	if !(at("--tmpfs /tmp") < at("--ro-bind "+home) && at("--tmpfs "+state) < at("--ro-bind "+filepath.Join(state, "shell")) &&
		at("--ro-bind "+filepath.Join(state, "shell")) < at("--bind "+filepath.Join(state, "pane"))) {
		t.Errorf("mounts out of order: %s", line)
	}
	s.cfg.Network, s.cfg.Mode = true, ReadOnly
	argv = s.Command([]string{"sh"})
	if slices.Contains(argv, "--unshare-net") || slices.Contains(argv, "--bind") {
		t.Errorf("read-only with network: %v", argv)
	}
}

// inside runs script with sh in a real sandbox and returns its output and
// error.
func inside(t *testing.T, cfg Config, script string) (string, error) {
	t.Helper()
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bwrap is not installed")
	}
	if cfg.Seccomp == "" {
		cfg.Seccomp = filepath.Join(t.TempDir(), "seccomp.bpf") // as every pane has
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Preflight(t.Context()); err != nil {
		t.Skipf("bwrap cannot run here: %v", err)
	}
	argv := s.Command([]string{"/bin/sh", "-c", script})
	out, err := exec.CommandContext(t.Context(), argv[0], argv[1:]...).CombinedOutput()
	return string(out), err
}

func TestInsideOnlyTheWorkspaceIsWritableAndTmpIsPrivate(t *testing.T) {
	ws, outside := t.TempDir(), testdir.Outside(t) // outside /tmp, which is private inside
	if err := os.WriteFile("/tmp/tmuxmcp-sandbox-test-"+filepath.Base(ws), []byte("host"), 0o600); err != nil {
		t.Fatal(err)
	}
	defer os.Remove("/tmp/tmuxmcp-sandbox-test-" + filepath.Base(ws))
	out, err := inside(t, Config{Mode: Workspace, Workspaces: []string{ws}},
		`echo in > `+ws+`/f && echo wrote-inside; echo out > `+outside+`/f 2>/dev/null || echo refused-outside; ls /tmp/tmuxmcp-sandbox-test-* 2>/dev/null || echo tmp-private; grep CapEff /proc/self/status`)
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, want := range []string{"wrote-inside", "refused-outside", "tmp-private", "CapEff:\t0000000000000000"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in %q", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "f")); err == nil {
		t.Error("a file was written outside the workspace")
	}
}

func TestHiddenFilesCannotBeReadAndLoopbackIsTheSandboxsOwn(t *testing.T) {
	secret := testdir.Outside(t)
	if err := os.WriteFile(filepath.Join(secret, "token"), []byte("s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	port := nettest.Greeter(t, "reached")
	probe := `cat ` + secret + `/token 2>/dev/null || echo hidden; (exec 3<>/dev/tcp/127.0.0.1/` + strconv.Itoa(port) + ` && cat <&3) 2>/dev/null || echo no-connection`
	out, err := inside(t, Config{Mode: ReadOnly, Hide: []string{secret}}, "exec bash -c '"+probe+"'")
	if err != nil || !strings.Contains(out, "hidden") || !strings.Contains(out, "no-connection") || strings.Contains(out, "s3cret") {
		t.Errorf("without network: %v %q", err, out)
	}
	out, err = inside(t, Config{Mode: ReadOnly, Network: true}, "exec bash -c '"+probe+"'")
	if err != nil || !strings.Contains(out, "reached") {
		t.Errorf("with --sandbox-network: %v %q", err, out)
	}
}

// A home with the caches programs write as they run (~/.cache, ~/.npm),
// under /tmp as the tests' homes are.
func homeWithCaches(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	for _, d := range []string{".cache/go-build", ".npm"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".cache", "users-own"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

func TestTheHomesCachesAreBoundToTheSandboxsOwnBeforeTheWorkspaces(t *testing.T) {
	home := homeWithCaches(t)
	root, ws := t.TempDir(), t.TempDir()
	s := &Sandbox{cfg: Config{Mode: Workspace, Workspaces: []string{ws}, Home: home, CacheRoot: root}, bwrap: "bwrap"}
	line := strings.Join(s.Command([]string{"sh"}), " ")
	own := filepath.Join(root, cacheKey(Workspace, []string{ws})) // this sandbox's, not another workspace's
	cache, npm := "--bind "+filepath.Join(own, "cache")+" "+filepath.Join(home, ".cache"), "--bind "+filepath.Join(own, "npm")+" "+filepath.Join(home, ".npm")
	at := func(s string) int { return strings.Index(line, s) }
	if at(cache) < 0 || at(npm) < 0 || !(at("--ro-bind "+home) < at(cache) && at(cache) < at("--bind "+ws)) {
		t.Errorf("caches not bound, or out of order: %s", line)
	}
	if st, err := os.Stat(filepath.Join(own, "npm")); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("the sandbox's npm cache: %v %v", st, err)
	}
	// A cache directory the user lacks stays missing; one in a workspace
	// stays the workspace's.
	os.RemoveAll(filepath.Join(home, ".npm"))
	s.cfg.Workspaces = []string{home}
	line = strings.Join(s.Command([]string{"sh"}), " ")
	if strings.Contains(line, ".npm") || strings.Contains(line, filepath.Join(home, ".cache")) {
		t.Errorf("caches mounted over a missing directory or a workspace: %s", line)
	}
	// A cache root that cannot be made gives a private tmpfs.
	file := filepath.Join(t.TempDir(), "file")
	_ = os.WriteFile(file, nil, 0o600)
	s.cfg.Workspaces, s.cfg.CacheRoot = []string{ws}, file
	line = strings.Join(s.Command([]string{"sh"}), " ")
	if !strings.Contains(line, "--tmpfs "+filepath.Join(home, ".cache")) {
		t.Errorf("no tmpfs over the cache: %s", line)
	}
}

// go build, pip and npm write their caches as they run: inside, those
// writes work, land in the sandbox's own cache (kept for the next pane),
// and neither reach nor show the user's own.
func TestCachesAreWritableInsideSharedBetweenPanesAndNotTheUsers(t *testing.T) {
	home := homeWithCaches(t)
	root := filepath.Join(t.TempDir(), "sandbox-cache")
	cfg := Config{Mode: ReadOnly, Home: home, CacheRoot: root}
	out, err := inside(t, cfg, `H=`+home+`; mkdir -p $H/.cache/go-build && echo built > $H/.cache/go-build/obj && echo cached > $H/.npm/idx && echo wrote; cat $H/.cache/users-own 2>/dev/null || echo users-cache-unseen`)
	if err != nil || !strings.Contains(out, "wrote") || !strings.Contains(out, "users-cache-unseen") {
		t.Fatalf("first pane: %v %q", err, out)
	}
	if _, err := os.Stat(filepath.Join(home, ".cache", "go-build", "obj")); err == nil {
		t.Error("the sandbox wrote the user's own cache")
	}
	out, err = inside(t, cfg, `cat `+home+`/.cache/go-build/obj `+home+`/.npm/idx`)
	if err != nil || out != "built\ncached\n" {
		t.Errorf("the next pane does not see the cache: %v %q", err, out)
	}
}
