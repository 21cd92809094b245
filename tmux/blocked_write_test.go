package tmux

import (
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A control client that stops reading stdin (wedged/stopped server): a large
// send blocks in write while holding wmu, so Close (which needs wmu before it
// ever reaches its kill timer) and Exec's ctx both hang.
func TestWedgedServerCannotBlockExecOrClose(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pr, pw, _ := os.Pipe() // nobody reads pr: tmux is not reading stdin
	defer pr.Close()
	outR, outW, _ := os.Pipe()
	defer outW.Close()
	c := &Conn{session: "$0", cmd: cmd, stdin: pw, stdout: outR, log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		ready: make(chan struct{}), done: make(chan struct{}), outReady: make(chan struct{}, 1)}
	go c.write()
	go func() { _ = cmd.Wait(); close(c.done) }()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	execDone := make(chan struct{})
	go func() { _, _ = c.Exec(ctx, "send-keys", "-l", "--", strings.Repeat("é", 64<<10)); close(execDone) }()
	select {
	case <-execDone:
	case <-time.After(3 * time.Second):
		t.Error("Exec ignored its 500ms context while the write was blocked")
	}
	closed := make(chan struct{})
	go func() { c.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(6 * time.Second):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		pr.Close()
		t.Fatal("Close did not return within 6 s (documented bound: about 4 s)")
	}
}
