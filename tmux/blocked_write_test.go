package tmux

import (
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
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

// Close returns while the server is stopped (SIGSTOP, or wedged as in tmux
// 3.3a's ghost-client bug). With -C the server holds the other end of the
// client's stdout (the client passes its fds), so after killing the
// client's process group Close must not wait for EOF without a bound.
func TestCloseReturnsWhileTheServerIsStopped(t *testing.T) {
	t.Parallel()
	tg := newTestServer(t)
	ctx := testCtx(t)
	c, err := dial(ctx, tg, "main", newRecordSink(), discardLog)
	if err != nil {
		t.Fatal(err)
	}
	out, err := tg.Run(ctx, "display-message", "-p", "#{pid}")
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Kill(pid, syscall.SIGCONT) }()
	closed := make(chan struct{})
	go func() { c.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Error("Close still blocked 5s after it was called")
		_ = syscall.Kill(pid, syscall.SIGCONT)
		<-closed
	}
}
