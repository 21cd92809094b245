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
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// Server starts a tmux server on a unique socket (-L tmuxmcp-test-<random>,
// no config file) with a detached session of the given name and size, and
// registers its kill-server with t.Cleanup. It skips the test when tmux is
// not installed.
func Server(t testing.TB, session string, width, height int) tmux.Target {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	target, stop, err := Start(ctx, "tmuxmcp-test", session, width, height, t.TempDir())
	if err != nil {
		t.Fatalf("start tmux: %v", err)
	}
	t.Cleanup(stop)
	return target
}

// Start starts a tmux server on a unique socket (-L prefix-<random>, no
// config file) with a detached session, configured by Configure with home,
// and returns it with stop, which kills exactly that server and removes
// its socket file. On error nothing is left running.
func Start(ctx context.Context, prefix, session string, width, height int, home string) (target tmux.Target, stop func(), err error) {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	target = tmux.Target{SocketName: prefix + "-" + hex.EncodeToString(b), ConfigFile: "/dev/null"}
	var socketPath string
	stop = func() {
		Kill(target)
		// tmux 3.3a leaves its socket file behind; remove exactly ours.
		if strings.HasSuffix(socketPath, "/"+target.SocketName) {
			_ = os.Remove(socketPath)
		}
	}
	if err := target.EnsureSession(ctx, session, width, height); err != nil {
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

// Configure makes new panes run bash with home as HOME, so the machine's
// own rc files and history never affect (or record) a test.
func Configure(ctx context.Context, target tmux.Target, home string) error {
	for _, args := range [][]string{
		{"set-option", "-g", "default-shell", "/bin/bash"},
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
	if err := target.EnsureSession(ctx, session, width, height); err != nil {
		t.Fatalf("restart tmux: %v", err)
	}
	if err := Configure(ctx, target, t.TempDir()); err != nil {
		t.Fatal(err)
	}
}

// Kill kills the server of target; it is safe to call twice.
func Kill(target tmux.Target) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _ = target.Run(ctx, "kill-server")
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
