// Package sandbox builds the bubblewrap (bwrap) command line that runs a
// pane's program with the operating system as the boundary: the whole
// filesystem read-only but the workspace directories and a private /tmp,
// no network unless asked, its own PID, IPC and UTS namespaces, no
// capabilities, and the paths it must not reach (the tmux socket, the
// state directory, the token, ~/.ssh) hidden; and it checks that bwrap can
// start here (found, recent enough, user namespaces on, a preflight run).
// It knows nothing of tmux, MCP or the engine.
package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Mode is how a pane is sandboxed.
type Mode string

// The modes of --sandbox, and how a pane outside any sandbox is reported.
const (
	// Off starts panes without a sandbox.
	Off Mode = "off"
	// ReadOnly makes the whole filesystem read-only (a private /tmp stays
	// writable).
	ReadOnly Mode = "read-only"
	// Workspace is ReadOnly with the workspace directories writable.
	Workspace Mode = "workspace"
	// Unsandboxed is what a pane that runs in no sandbox is reported as: it
	// existed before tmuxmcp, the server runs with --sandbox off, or a
	// person approved an escalated command in it.
	Unsandboxed Mode = "unsandboxed"
)

// ParseMode reads a --sandbox value.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Off, ReadOnly, Workspace:
		return m, nil
	}
	return "", fmt.Errorf("--sandbox %q: use off (no sandbox), read-only (the filesystem read-only, a private /tmp) or workspace (read-only but the --workspace directories)", s)
}

// ModeVar is the environment variable every sandboxed process gets: the
// mode it runs in. It is also how ModeOf tells a sandbox's command line.
const ModeVar = "TMUXMCP_SANDBOX"

// Config is a sandbox as the flags describe it.
type Config struct {
	// Mode is Off, ReadOnly or Workspace ("" is Off).
	Mode Mode
	// Workspaces are the directories writable in Workspace mode; they must
	// exist (New resolves their symbolic links).
	Workspaces []string
	// Network keeps the host's network (--sandbox-network); without it the
	// sandbox has only its own loopback.
	Network bool
	// Bwrap is the bwrap program, a path or a name looked up in Path;
	// default "bwrap".
	Bwrap string
	// Path is the search path for Bwrap; default $PATH.
	Path string
	// Home is the user's home: kept readable (even under /tmp) and its
	// .ssh hidden; default $HOME.
	Home string
	// Seccomp is where the seccomp filter (Filter) is written for bwrap
	// to load: every sandboxed process runs under it. "" runs without one
	// (tests of the mount layout only).
	Seccomp string
	// Hide are files and directories no process inside may reach: a
	// directory is covered with an empty tmpfs, anything else (a file, a
	// socket) with /dev/null. Missing ones are skipped.
	Hide []string
	// CacheRoot holds the sandbox's own caches: CacheRoot/<name> is bound
	// writable over each of the home's CacheDirs, shared by the panes of
	// this sandbox and kept between them (made 0700 when missing; default
	// ~/.cache/tmuxmcp/sandbox, outside the state directory, whose every
	// directory tmuxmcp checks at start). It is never the user's own
	// cache: what a sandboxed program writes there reaches no program
	// outside. When it cannot be made, each pane gets an empty private
	// tmpfs instead.
	CacheRoot string
}

// CacheDirs are the directories of the home that programs write as they
// run rather than as their result: the XDG cache (Go's build cache, pip,
// zsh's completion dump) and npm's cache. Read-only they break go build
// and npm install, so inside a sandbox each one that exists is writable,
// though not the user's own (Config.CacheRoot); one inside a workspace
// stays as it is.
func CacheDirs() []string { return []string{".cache", ".npm"} }

// Bind is a path bound back into a sandbox after the hidden ones are
// covered (a file the shell integration needs under the state directory).
type Bind struct {
	Path     string
	Writable bool
}

// Error is why a sandbox cannot start, and the fix.
type Error struct {
	Reason string
	Fix    string
}

// Error is the reason and the fix.
func (e *Error) Error() string { return e.Reason + ". Fix: " + e.Fix }

// Sandbox is a checked Config: Command builds its command lines.
type Sandbox struct {
	cfg   Config
	bwrap string // the program, as found
	// verified are the layouts (bwrap's arguments but the paths given
	// back) Verify found to be this sandbox's: a pane's is compared with
	// them before Command is built again, which reads the filesystem.
	verified sync.Map
}

// MinVersion is the oldest bwrap whose flags Command uses (--cap-drop,
// --die-with-parent, --unsetenv, --setenv).
const MinVersion = "0.4.0"

// New checks cfg (the mode, the workspaces, that bwrap is found) and
// returns the sandbox; nil for Off. An *Error says what is wrong and the
// fix.
func New(cfg Config) (*Sandbox, error) {
	if cfg.Mode == "" || cfg.Mode == Off {
		return nil, nil
	}
	if _, err := ParseMode(string(cfg.Mode)); err != nil {
		return nil, &Error{Reason: err.Error(), Fix: "give one of off, read-only, workspace"}
	}
	if cfg.Home == "" {
		cfg.Home = os.Getenv("HOME")
	}
	if cfg.Home != "" {
		if real, err := filepath.EvalSymlinks(cfg.Home); err == nil {
			cfg.Home = real
		}
	}
	ws, err := ResolveWorkspaces(cfg.Workspaces)
	if err != nil {
		return nil, err
	}
	cfg.Workspaces = ws
	if e := TooWide(ws, cfg.Home); e != nil {
		return nil, e
	}
	if cfg.CacheRoot == "" && cfg.Home != "" {
		cfg.CacheRoot = filepath.Join(cfg.Home, ".cache", "tmuxmcp", "sandbox")
	}
	if cfg.Mode == Workspace && len(ws) == 0 {
		return nil, &Error{Reason: "--sandbox workspace has no workspace directory", Fix: "give --workspace DIR (repeatable), or use --sandbox read-only"}
	}
	if cfg.Seccomp != "" {
		if err := writeFilter(cfg.Seccomp); err != nil {
			return nil, err
		}
	}
	prog, err := findBwrap(cfg.Bwrap, cfg.Path)
	if err != nil {
		return nil, err
	}
	s := &Sandbox{cfg: cfg, bwrap: prog}
	if err := s.Check(); err != nil {
		return nil, err
	}
	return s, nil
}

// ResolveWorkspaces returns dirs absolute, cleaned, their symbolic links
// resolved, each an existing directory, without repeats; an *Error names
// the first that is not.
func ResolveWorkspaces(dirs []string) ([]string, error) {
	var out []string
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err == nil {
			abs, err = filepath.EvalSymlinks(abs)
		}
		if err != nil {
			return nil, &Error{Reason: fmt.Sprintf("workspace %q does not exist (%v)", d, errors.Unwrap(err)), Fix: "create it, or give another --workspace"}
		}
		if st, err := os.Stat(abs); err != nil || !st.IsDir() {
			return nil, &Error{Reason: fmt.Sprintf("workspace %q is not a directory", d), Fix: "give a directory as --workspace"}
		}
		if !slices.Contains(out, abs) {
			out = append(out, abs)
		}
	}
	return out, nil
}

// kernelDirs are the directories the sandbox mounts its own of (or
// hides): a workspace there would bind the host's back.
var kernelDirs = []string{"/proc", "/sys", "/dev", "/run", "/var/run"}

// cacheKey names the caches of one sandbox: its mode and workspaces. What
// a sandboxed program leaves in a cache (a prompt's instant-prompt file,
// a build cache entry) is read by the panes of the same sandbox only, not
// by one for other workspaces.
func cacheKey(mode Mode, ws []string) string {
	sum := sha256.Sum256([]byte(string(mode) + "\x00" + strings.Join(slices.Sorted(slices.Values(ws)), "\x00")))
	return hex.EncodeToString(sum[:8])
}

// TooWide refuses a workspace that would make the sandbox pointless:
// the root (everything writable), one holding the home directory (the
// rc files that run outside, at a person's next shell and in an escalated
// pane), or one in the kernel's own filesystems (bound after the
// sandbox's /proc and /dev, the host's would replace them: /proc/sys
// writable, the host's processes and devices in reach). The default
// workspace is the directory tmuxmcp was started in, which for some MCP
// clients is $HOME or /.
func TooWide(ws []string, home string) *Error {
	for _, w := range ws {
		switch {
		case w == "/":
			return &Error{Reason: "workspace / would make the whole filesystem writable", Fix: "give the project directory as --workspace DIR (the default is the directory tmuxmcp was started in)"}
		case slices.ContainsFunc(kernelDirs, func(d string) bool { return under(w, d) }):
			return &Error{Reason: fmt.Sprintf("workspace %s is under %s, which the sandbox makes its own (bound from the host it would undo that: kernel settings, devices, service sockets)", w, strings.Join(kernelDirs, ", ")), Fix: "give the project directory as --workspace DIR (the default is the directory tmuxmcp was started in)"}
		case home != "" && under(home, w):
			return &Error{Reason: fmt.Sprintf("workspace %s holds the home directory %s, whose rc files run outside the sandbox", w, home), Fix: "give the project directory as --workspace DIR (the default is the directory tmuxmcp was started in)"}
		}
	}
	return nil
}

// Check looks again at what can change while tmuxmcp runs: bwrap still
// there, the workspaces still directories, user namespaces still on. It
// only reads a few files (each pane start calls it).
func (s *Sandbox) Check() error {
	// The program New found is the one panes run (set once: Command and
	// Verify read it while panes start); here it must still be there.
	if _, err := findBwrap(s.cfg.Bwrap, s.cfg.Path); err != nil {
		return err
	}
	for _, w := range s.cfg.Workspaces {
		if st, err := os.Stat(w); err != nil || !st.IsDir() {
			return &Error{Reason: fmt.Sprintf("workspace %s no longer exists", w), Fix: "create it again, or restart tmuxmcp with another --workspace"}
		}
	}
	return checkUserNamespaces(os.Geteuid(), os.ReadFile)
}

// findBwrap finds the bwrap program: name as a path, or looked up in path.
func findBwrap(name, path string) (string, error) {
	if name == "" {
		name = "bwrap"
	}
	notFound := &Error{Reason: fmt.Sprintf("bubblewrap (%s) was not found", name), Fix: "install it (Debian and Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap), or run with --sandbox off"}
	if strings.Contains(name, "/") {
		if st, err := os.Stat(name); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			notFound.Reason = fmt.Sprintf("bubblewrap %s is not an executable file", name)
			return "", notFound
		}
		return name, nil
	}
	if path == "" {
		path = os.Getenv("PATH")
	}
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	notFound.Reason += " on PATH (" + path + ")"
	return "", notFound
}

// checkUserNamespaces refuses a kernel that will not let a user who is
// not root make the namespaces bwrap needs (root needs none).
func checkUserNamespaces(euid int, read func(string) ([]byte, error)) error {
	if euid == 0 {
		return nil
	}
	if b, err := read("/proc/sys/user/max_user_namespaces"); err == nil && strings.TrimSpace(string(b)) == "0" {
		return &Error{Reason: "user namespaces are off (/proc/sys/user/max_user_namespaces is 0)", Fix: "sysctl -w user.max_user_namespaces=15000 (and set it in /etc/sysctl.d), or run with --sandbox off"}
	}
	if b, err := read("/proc/sys/kernel/unprivileged_userns_clone"); err == nil && strings.TrimSpace(string(b)) == "0" {
		return &Error{Reason: "unprivileged user namespaces are off (kernel.unprivileged_userns_clone is 0)", Fix: "sysctl -w kernel.unprivileged_userns_clone=1 (and set it in /etc/sysctl.d), or run with --sandbox off"}
	}
	return nil
}

// Mode is the sandbox's mode (Off for nil).
func (s *Sandbox) Mode() Mode {
	if s == nil {
		return Off
	}
	return s.cfg.Mode
}

// Workspaces are the writable directories (none in ReadOnly mode).
func (s *Sandbox) Workspaces() []string {
	if s == nil || s.cfg.Mode != Workspace {
		return nil
	}
	return slices.Clone(s.cfg.Workspaces)
}

// Network reports whether the sandbox keeps the host's network.
func (s *Sandbox) Network() bool { return s != nil && s.cfg.Network }

// Bwrap is the bwrap program found.
func (s *Sandbox) Bwrap() string { return s.bwrap }

// Verify is the mode of a process whose program is exe and command line
// args: the sandbox's mode when it is this sandbox's bwrap running the
// command line Command builds (the paths it was given back, those exposed
// says are its own, left aside), else Unsandboxed. Any program may name
// the mode in its arguments; only bwrap with these arguments is in the
// sandbox. A pane started under other settings (an earlier tmuxmcp with
// other workspaces) reads as Unsandboxed: fail closed.
func (s *Sandbox) Verify(exe string, args []string, exposed func(path string) bool) Mode {
	if s == nil || len(args) == 0 || !SameFile(exe, s.bwrap) {
		return Unsandboxed
	}
	got := args[1:]
	end := slices.Index(got, "--")
	if end < 0 {
		return Unsandboxed
	}
	got = got[:end]
	var kept []string
	for i := 0; i < len(got); i++ {
		if (got[i] == "--bind" || got[i] == "--ro-bind") && i+2 < len(got) && got[i+1] == got[i+2] && exposed(got[i+1]) {
			i += 2
			continue
		}
		kept = append(kept, got[i])
	}
	key := strings.Join(kept, "\x00")
	if _, ok := s.verified.Load(key); ok {
		return s.cfg.Mode
	}
	want := s.bwrapArgs(nil)
	want = want[1 : len(want)-1] // the program (checked as exe) and "--"
	if !slices.Equal(kept, want) {
		return Unsandboxed
	}
	s.verified.Store(key, true)
	return s.cfg.Mode
}

// SameFile reports whether paths a and b name the same file (a
// /proc/PID/exe link and a program's path, say).
func SameFile(a, b string) bool {
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	return err == nil && os.SameFile(sa, sb)
}

// hostOnly are the parts of the host no sandbox keeps: /run holds the
// sockets of the system's and the user's services (D-Bus, systemd, the
// container runtimes, ssh-agent), any of which can run a program outside.
var hostOnly = []string{"/run", "/var/run"}

// Command is the command line that runs inner in the sandbox, with expose
// bound back after the hidden paths are covered.
func (s *Sandbox) Command(inner []string, expose ...Bind) []string {
	args := s.bwrapArgs(inner, expose...)
	if s.cfg.Seccomp != "" {
		return withFilter(s.cfg.Seccomp, args)
	}
	return args
}

// bwrapArgs is bwrap's command line (Command without the shell that
// hands bwrap the seccomp filter).
func (s *Sandbox) bwrapArgs(inner []string, expose ...Bind) []string {
	args := []string{s.bwrap, "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts"}
	if s.cfg.Seccomp != "" {
		args = append(args, "--seccomp", seccompFD)
	}
	if !s.cfg.Network {
		args = append(args, "--unshare-net")
	}
	// As root, bwrap keeps every capability unless told: with them a shell
	// inside could remount the filesystem writable.
	// bwrap leaves /proc/sys writable (the kernel answers EACCES to its
	// access check of the directory): as root a shell inside could set
	// kernel.core_pattern and run a program on the host.
	args = append(args, "--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys", "--tmpfs", "/tmp")
	for _, p := range hostOnly {
		if st, err := os.Lstat(p); err == nil && st.IsDir() {
			args = append(args, "--tmpfs", p)
		}
	}
	if s.cfg.Network {
		// Name resolution through systemd-resolved's stub keeps working.
		if st, err := os.Stat("/run/systemd/resolve"); err == nil && st.IsDir() {
			args = append(args, "--ro-bind", "/run/systemd/resolve", "/run/systemd/resolve")
		}
	}
	if h := s.cfg.Home; h != "" && under(h, "/tmp") {
		args = append(args, "--ro-bind", h, h) // rc files keep working
	}
	// Before the workspaces: one inside a cache directory stays bound.
	args = append(args, s.caches()...)
	for _, w := range s.Workspaces() {
		args = append(args, "--bind", w, w)
	}
	hide := slices.Clone(s.cfg.Hide)
	if s.cfg.Home != "" {
		hide = append(hide, filepath.Join(s.cfg.Home, ".ssh"))
	}
	for _, p := range hide {
		st, err := os.Lstat(p)
		switch {
		case err != nil:
		case st.IsDir():
			args = append(args, "--tmpfs", p)
		default:
			args = append(args, "--ro-bind", "/dev/null", p)
		}
	}
	for _, b := range expose {
		if b.Writable {
			args = append(args, "--bind", b.Path, b.Path)
		} else {
			args = append(args, "--ro-bind", b.Path, b.Path)
		}
	}
	args = append(args, "--unsetenv", "TMUX", "--unsetenv", "TMUX_PANE", "--setenv", ModeVar, string(s.cfg.Mode), "--")
	return append(args, inner...)
}

// caches are the mounts that make the home's cache directories writable
// inside without writing the user's own: the sandbox's cache under
// CacheRoot when it can be had, else a private tmpfs.
func (s *Sandbox) caches() []string {
	if s.cfg.Home == "" {
		return nil
	}
	var args []string
	for _, name := range CacheDirs() {
		p, err := filepath.EvalSymlinks(filepath.Join(s.cfg.Home, name))
		if err != nil || s.inWorkspace(p) {
			continue // bwrap cannot make a missing one under a read-only home
		}
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			continue
		}
		if src := s.cacheSource(name); src != "" {
			args = append(args, "--bind", src, p)
		} else {
			args = append(args, "--tmpfs", p)
		}
	}
	return args
}

// cacheSource is the directory under CacheRoot that stands in for the
// home's cache directory name, made when missing; "" when it cannot be
// had.
func (s *Sandbox) cacheSource(name string) string {
	if s.cfg.CacheRoot == "" {
		return ""
	}
	d := filepath.Join(s.cfg.CacheRoot, cacheKey(s.cfg.Mode, s.cfg.Workspaces), strings.TrimPrefix(name, "."))
	if err := os.MkdirAll(d, 0o700); err != nil {
		return ""
	}
	if st, err := os.Lstat(d); err != nil || !st.IsDir() {
		return ""
	}
	return d
}

// inWorkspace reports whether p is inside one of the writable workspaces.
func (s *Sandbox) inWorkspace(p string) bool {
	return slices.ContainsFunc(s.Workspaces(), func(w string) bool { return under(p, w) })
}

// under reports whether p is dir or inside it.
func under(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+"/")
}
