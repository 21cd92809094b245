package leaktest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestMain(m *testing.M) { Main(m) }

func TestTestsRunWithAPrivateTmuxDirAndNoEnclosingServer(t *testing.T) {
	dir := os.Getenv("TMUX_TMPDIR")
	if !strings.Contains(filepath.Base(dir), "tmuxmcp-test-tmux") {
		t.Fatalf("TMUX_TMPDIR = %q, want a private tmuxmcp-test-tmux directory", dir)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Fatalf("private TMUX_TMPDIR %q: %v", dir, err)
	}
	if v, ok := os.LookupEnv("TMUX"); ok {
		t.Errorf("TMUX is still set (%q): a test could talk to the enclosing server", v)
	}
	if os.Getenv(RunVar) == "" {
		t.Errorf("%s is not set: leftovers of this run cannot be told apart", RunVar)
	}
}

func TestAChildStillRunningIsNamedAndKilled(t *testing.T) {
	cmd := exec.Command("sleep", "300")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	err := LeftBehind(t.TempDir(), 100*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("process %d (sleep 300)", cmd.Process.Pid)) {
		t.Fatalf("LeftBehind = %v, want it to name process %d (sleep 300)", err, cmd.Process.Pid)
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the child left behind is still running 30 s after LeftBehind")
	}
}

func TestADetachedProcessOfThisRunIsNamedAndKilled(t *testing.T) {
	// A daemon (as a tmux server is) is not a child: it carries the run's mark.
	out, err := exec.Command("sh", "-c", "sleep 301 >/dev/null 2>&1 & echo $!").Output()
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(out)))
	if err != nil {
		t.Fatal(err)
	}
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		t.Fatalf("the detached sleep %d is not running: %v", pid, err)
	}
	defer func() { _ = unix.Close(fd) }()
	err = LeftBehind(t.TempDir(), 100*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("process %d (sleep 301)", pid)) {
		_ = unix.Kill(pid, unix.SIGKILL)
		t.Fatalf("LeftBehind = %v, want it to name process %d (sleep 301)", err, pid)
	}
	if n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 30000); n != 1 {
		t.Fatalf("the detached sleep %d is still running 30 s after LeftBehind (%v)", pid, err)
	}
}

func TestNothingLeftIsNoError(t *testing.T) {
	if err := exec.Command("true").Run(); err != nil {
		t.Fatal(err)
	}
	if err := LeftBehind(t.TempDir(), time.Second); err != nil {
		t.Fatalf("LeftBehind after a child that ended = %v, want nil", err)
	}
}

func TestALiveSocketInTheTmuxDirIsNamed(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, fmt.Sprintf("tmux-%d", os.Getuid()), "tmuxmcp-test-x")
	if err := os.MkdirAll(filepath.Dir(sock), 0o700); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	err = LeftBehind(dir, time.Second)
	if err == nil || !strings.Contains(err.Error(), "a server still listening on "+sock) {
		t.Errorf("LeftBehind = %v, want it to name %s", err, sock)
	}
	_ = l.Close() // removes the socket file
	if err := LeftBehind(dir, time.Second); err != nil {
		t.Errorf("LeftBehind after the listener closed = %v, want nil", err)
	}
}
