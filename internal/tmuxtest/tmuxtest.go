// Package tmuxtest starts throwaway tmux servers on private sockets for
// integration tests and the benchmark suite, and kills exactly that server
// when they are done. It exists so every user shares one correct way to
// do this.
package tmuxtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/internal/leaktest"
	"github.com/tmuxmcp/tmuxmcp/tmux"
	"golang.org/x/sys/unix"
)

// Server starts a tmux server on a unique socket (-L tmuxmcp-test-<random>,
// no config file) with a detached session of the given name and size, and
// registers its kill-server with t.Cleanup. It skips the test when tmux is
// not installed.
func Server(t testing.TB, session string, width, height int) tmux.Target {
	t.Helper()
	home := t.TempDir()
	if err := DefaultRC(home); err != nil {
		t.Fatal(err)
	}
	return ServerWith(t, tmux.SessionSpec{Name: session, Width: width, Height: height}, home)
}

// ServerWith is Server with the session spec given (its first pane's
// program, say), home as every pane's HOME with the startup files the test
// put there, and env added to the hermetic environment (SHELL=/usr/bin/zsh
// makes zsh tmux's default shell).
func ServerWith(t testing.TB, spec tmux.SessionSpec, home string, env ...string) tmux.Target {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	target, stop, err := Start(ctx, "tmuxmcp-test", spec, home, env...)
	if err != nil {
		t.Fatalf("start tmux: %v", err)
	}
	t.Cleanup(stop)
	return target
}

// Env is the hermetic environment a test's tmux server (and every pane in
// it) gets: home as HOME, bash as the shell, a fixed PATH and prompt, the
// test process's TMUX_TMPDIR, and nothing of the invoking user's (no XDG
// or zsh directories, no ENV).
func Env(home string) []string {
	env := []string{"HOME=" + home, "SHELL=/bin/bash", "PATH=/usr/local/bin:/usr/bin:/bin", "PS1=$ ",
		"HISTFILE=" + home + "/.history", "LANG=C.UTF-8", "TERM=xterm-256color", "USER=" + os.Getenv("USER"), "LOGNAME=" + os.Getenv("LOGNAME")}
	// The process's own TMUX_TMPDIR (leaktest's private one) so every
	// tmux a test starts, and tmuxmcp under test, finds the same sockets;
	// and the run's mark, so the end-of-run check finds what is left.
	for _, k := range []string{"TMPDIR", "TMUX_TMPDIR", leaktest.RunVar} {
		if v := os.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// defaultRC are the startup files a test home gets unless the test wrote
// its own: a login shell reads .profile, which reads .bashrc (as Debian's
// skeleton does), and every prompt is short and the same on every machine.
var defaultRC = map[string]string{
	".profile": "if [ -n \"${BASH_VERSION-}\" ] && [ -f ~/.bashrc ]; then . ~/.bashrc; fi\n",
	".bashrc":  "PS1='$ '\n",
	".zshrc":   "PS1='%# '\n",
}

// DefaultRC writes the default startup files into home, leaving any the
// test wrote.
func DefaultRC(home string) error {
	for name, body := range defaultRC {
		p := filepath.Join(home, name)
		if _, err := os.Stat(p); err == nil {
			continue
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			return fmt.Errorf("write %s: %w", p, err)
		}
	}
	return nil
}

// Start starts a tmux server on a unique socket (-L prefix-<random>, no
// config file) with a detached session as spec says, in the hermetic
// environment Env(home) plus env, configured by Configure, and returns it with
// stop, which kills exactly that server and removes its socket file. On
// error nothing is left running.
func Start(ctx context.Context, prefix string, spec tmux.SessionSpec, home string, env ...string) (target tmux.Target, stop func(), err error) {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	target = tmux.Target{SocketName: prefix + "-" + hex.EncodeToString(b), ConfigFile: "/dev/null", Env: append(Env(home), env...)}
	var socketPath string
	stop = func() {
		Kill(target)
		// tmux 3.3a leaves its socket file behind; remove exactly ours.
		if strings.HasSuffix(socketPath, "/"+target.SocketName) {
			_ = os.Remove(socketPath)
		}
	}
	if _, err := target.EnsureSession(ctx, spec); err != nil {
		stop()
		return target, nil, err
	}
	socketPath, _ = target.Run(ctx, "display-message", "-p", "#{socket_path}")
	if err := Configure(ctx, target, home); err != nil {
		stop()
		return target, nil, err
	}
	return target, stop, nil
}

// Configure makes new panes run the target's SHELL (bash unless its Env
// says otherwise) with home as HOME, so the machine's own rc files and
// history never affect (or record) a test.
func Configure(ctx context.Context, target tmux.Target, home string) error {
	sh := "/bin/bash"
	for _, kv := range target.Env {
		if v, ok := strings.CutPrefix(kv, "SHELL="); ok {
			sh = v
		}
	}
	for _, args := range [][]string{
		{"set-option", "-g", "default-shell", sh},
		{"set-environment", "-g", "HOME", home},
		{"set-environment", "-g", "PATH", "/usr/local/bin:/usr/bin:/bin"},
		{"set-environment", "-g", "PS1", "$ "},
		{"set-environment", "-g", "HISTFILE", home + "/.history"},
	} {
		if _, err := target.Run(ctx, args...); err != nil {
			return fmt.Errorf("configure tmux server: %w", err)
		}
	}
	return nil
}

// Restart starts a new server on target's socket after Kill, configured
// as Server configures one.
func Restart(t testing.TB, target tmux.Target, session string, width, height int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	home := t.TempDir()
	target.Env = Env(home)
	if err := DefaultRC(home); err != nil {
		t.Fatal(err)
	}
	if _, err := target.EnsureSession(ctx, tmux.SessionSpec{Name: session, Width: width, Height: height}); err != nil {
		t.Fatalf("restart tmux: %v", err)
	}
	if err := Configure(ctx, target, home); err != nil {
		t.Fatal(err)
	}
}

// Kill kills the server of target and waits (up to 5 s) until the
// programs of its panes have exited, so nothing they write as they go (a
// shell's history) lands in a test directory being removed. It is safe to
// call twice.
func Kill(target tmux.Target) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var fds []unix.PollFd
	if pids, err := target.Run(ctx, "list-panes", "-a", "-F", "#{pane_pid}"); err == nil {
		for _, f := range strings.Fields(pids) {
			pid, err := strconv.Atoi(f)
			if err != nil {
				continue
			}
			if fd, err := unix.PidfdOpen(pid, 0); err == nil {
				fds = append(fds, unix.PollFd{Fd: int32(fd), Events: unix.POLLIN})
			}
		}
	}
	_, _ = target.Run(ctx, "kill-server")
	// A pidfd becomes readable when its process exits.
	deadline := time.Now().Add(5 * time.Second)
	for len(fds) > 0 && time.Now().Before(deadline) {
		n, err := unix.Poll(fds, int(time.Until(deadline).Milliseconds()))
		if err != nil && err != unix.EINTR {
			break
		}
		if n <= 0 {
			continue
		}
		left := fds[:0]
		for _, f := range fds {
			if f.Revents != 0 {
				_ = unix.Close(int(f.Fd))
				continue
			}
			left = append(left, f)
		}
		fds = left
	}
	for _, f := range fds {
		_ = unix.Close(int(f.Fd))
	}
}

// Human is a person's tmux client in a pseudo-terminal: what it displays
// is collected, and keys can be typed into it.
type Human struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser

	mu      sync.Mutex
	out     []byte // the last humanKeep bytes displayed
	base    int    // how many displayed bytes were dropped before out
	changed chan struct{}
}

// humanKeep bounds what a Human keeps of its display.
const humanKeep = 1 << 20

// Type sends keys to the client as a person typing.
func (h *Human) Type(s string) error {
	_, err := io.WriteString(h.stdin, s)
	return err
}

// Screen returns the last part of what the client displayed (raw).
func (h *Human) Screen() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return string(h.out)
}

// Mark returns a position in what the client displayed, for WaitFor.
func (h *Human) Mark() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.base + len(h.out)
}

// WaitFor waits until the client displays text after position from (see
// Mark), woken by its output.
func (h *Human) WaitFor(from int, text string, d time.Duration) bool {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		h.mu.Lock()
		found := strings.Contains(string(h.out[min(max(0, from-h.base), len(h.out)):]), text)
		ch := h.changed
		h.mu.Unlock()
		if found {
			return true
		}
		select {
		case <-ch:
		case <-deadline.C:
			return false
		}
	}
}

func (h *Human) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.out = append(h.out, p...)
	if len(h.out) > 2*humanKeep {
		cut := len(h.out) - humanKeep
		h.base += cut
		h.out = append(h.out[:0], h.out[cut:]...)
	}
	close(h.changed)
	h.changed = make(chan struct{})
	return len(p), nil
}

// AttachHuman attaches an ordinary (non-control) tmux client of the given
// size to session, as a person would, through a pseudo-terminal made by
// script(1). It is detached when the test ends.
func AttachHuman(t testing.TB, target tmux.Target, session string, width, height int) *Human {
	t.Helper()
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script(1) is not installed")
	}
	args := strings.Join(target.Args(), " ")
	sh := fmt.Sprintf("stty cols %d rows %d; exec tmux %s attach -t %s", width, height, args, session)
	h := &Human{changed: make(chan struct{})}
	h.cmd = exec.Command("script", "-qfec", sh, "/dev/null")
	h.cmd.Env = append(os.Environ(), "TERM=xterm-256color")
	h.cmd.Stdout = h
	stdin, err := h.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	h.stdin = stdin
	if err := h.cmd.Start(); err != nil {
		t.Fatalf("attach a human client: %v", err)
	}
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = h.cmd.Process.Kill()
		_ = h.cmd.Wait()
	})
	return h
}

// Main runs a package's tests in a Hermetic process and then checks that no
// goroutine, tmux server or process was left running (leaktest, which also
// gives the run its private TMUX_TMPDIR). Use it as TestMain's only line.
func Main(m *testing.M) {
	tmux.RelayMain() // panes' output comes raw through this binary
	cleanup := Hermetic()
	code := leaktest.Run(m)
	cleanup()
	os.Exit(code)
}

// Hermetic gives the test process itself a home of its own and none of the
// invoking user's shell settings, so nothing a test starts (a tmux server,
// tmuxmcp doctor's shell) reads the user's rc files, prompt or history. Call
// it from TestMain; it returns a cleanup that removes the home.
func Hermetic() (cleanup func()) {
	home, err := os.MkdirTemp("", "tmuxmcp-test-home")
	if err != nil {
		panic(err)
	}
	if err := DefaultRC(home); err != nil {
		panic(err)
	}
	for _, k := range []string{"ZDOTDIR", "ENV", "BASH_ENV", "PROMPT_COMMAND", "PS0", "PS1", "XDG_CONFIG_HOME", "XDG_DATA_HOME",
		"XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_DATA_DIRS", "XDG_CONFIG_DIRS", "TMUX", "TMUX_PANE", "HISTFILE"} {
		_ = os.Unsetenv(k)
	}
	_ = os.Setenv("HOME", home)
	_ = os.Setenv("SHELL", "/bin/bash")
	return func() { _ = os.RemoveAll(home) }
}

// signalWait is how long WaitSignal waits: generous, for a loaded machine.
const signalWait = 60 * time.Second

// WaitSignal waits (up to a minute) until channel of target's server is
// signalled (tmux wait-for), and fails the test naming what, what it waited
// for, when it is not: a wait-for without a deadline hangs a test until
// go test's own timeout kills the whole package.
func WaitSignal(t testing.TB, target tmux.Target, channel, what string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), signalWait)
	defer cancel()
	if _, err := target.Run(ctx, "wait-for", channel); err != nil {
		t.Fatalf("waited %v for %s (tmux wait-for %s on %s): %v", signalWait, what, channel, target, err)
	}
}
