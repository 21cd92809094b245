// Package tmuxtest starts throwaway tmux servers on private sockets for
// integration tests, and kills exactly that server when the test ends. It
// exists so every package's tests share one correct way to do this.
package tmuxtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"strings"
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
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	target := tmux.Target{SocketName: "tmuxmcp-test-" + hex.EncodeToString(b), ConfigFile: "/dev/null"}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var socketPath string
	t.Cleanup(func() {
		Kill(target)
		// tmux 3.3a leaves its socket file behind; remove exactly ours.
		if strings.HasSuffix(socketPath, "/"+target.SocketName) {
			_ = os.Remove(socketPath)
		}
	})
	if err := target.EnsureSession(ctx, session, width, height); err != nil {
		t.Fatalf("start tmux: %v", err)
	}
	socketPath, _ = target.Run(ctx, "display-message", "-p", "#{socket_path}")
	// New panes run bash with a throwaway HOME, so the machine's own rc
	// files and history never affect (or record) a test.
	home := t.TempDir()
	for _, args := range [][]string{
		{"set-option", "-g", "default-shell", "/bin/bash"},
		{"set-environment", "-g", "HOME", home},
		{"set-environment", "-g", "PATH", "/usr/local/bin:/usr/bin:/bin"},
		{"set-environment", "-g", "PS1", "$ "},
		{"set-environment", "-g", "HISTFILE", home + "/.history"},
	} {
		if _, err := target.Run(ctx, args...); err != nil {
			t.Fatalf("configure test server: %v", err)
		}
	}
	return target
}

// Kill kills the server of target; it is safe to call twice.
func Kill(target tmux.Target) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _ = target.Run(ctx, "kill-server")
}

// AttachHuman attaches an ordinary (non-control) tmux client of the given
// size to session, as a person would, through a pseudo-terminal made by
// script(1). It is detached when the test ends.
func AttachHuman(t testing.TB, target tmux.Target, session string, width, height int) *exec.Cmd {
	t.Helper()
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script(1) is not installed")
	}
	args := strings.Join(target.Args(), " ")
	sh := fmt.Sprintf("stty cols %d rows %d; exec tmux %s attach -t %s", width, height, args, session)
	cmd := exec.Command("script", "-qfec", sh, "/dev/null")
	cmd.Env = append(os.Environ(), "TERM=xterm-256color")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("attach a human client: %v", err)
	}
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd
}
