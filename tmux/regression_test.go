// Regression tests for bugs found in review; each comment names the fix.
package tmux

import (
	"context"
	"errors"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// conn.go send: reqs[len(reqs)-1].mark = mark with len(reqs) == 0.
func TestExecBatchNoCommands(t *testing.T) {
	c := &Conn{stdin: nopWriteCloser{discardWriter{}}}
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("ExecBatch() panicked: %v", r)
		}
	}()
	if _, err := c.ExecBatch(t.Context()); err == nil {
		t.Error("ExecBatch() with no commands returned no error")
	}
}

type discardWriter struct{}

func (discardWriter) Write(p []byte) (int, error) { return len(p), nil }

// conn.go send writes args[0] unquoted and unchecked. "" makes Exec write an
// empty line, which tmux treats as "detach"; inside a batch it yields a
// request tmux never answers, which then takes the next command's reply.
func TestExecEmptyCommandName(t *testing.T) {
	t.Parallel()
	tg := newTestServer(t)
	ctx := testCtx(t)
	c, err := dial(ctx, tg, "main", newRecordSink(), discardLog)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Exec(ctx, ""); err == nil {
		t.Error(`Exec("") succeeded`)
	} else if errors.Is(err, ErrClosed) {
		t.Errorf(`Exec(""): %v: the empty line detached the control client`, err)
	}

	c2, err := dial(ctx, tg, "main", newRecordSink(), discardLog)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	short, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if _, err := c2.ExecBatch(short, []string{"display-message", "-p", "a"}, []string{""}); err == nil {
		t.Error(`ExecBatch with an empty command succeeded`)
	}
	short2, cancel2 := context.WithTimeout(ctx, 2*time.Second)
	defer cancel2()
	lines, err := c2.Exec(short2, "display-message", "-p", "b")
	if err != nil || len(lines) != 1 || lines[0] != "b" {
		t.Errorf("Exec after the batch: %q, %v (its reply went to the empty command)", lines, err)
	}
}

// fleet.go ParsePane splits list-panes lines on \x1f and the reply on \n; a
// pane whose current path contains either is silently left out.
func TestListPanesOddWorkingDirectory(t *testing.T) {
	t.Parallel()
	tg := newTestServer(t)
	f := startFleet(t, tg, newFakeEvents())
	ctx := testCtx(t)
	for _, name := range []string{"a\x1fb", "a\nb"} {
		dir := t.TempDir() + "/" + name
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		out, err := f.Exec(ctx, "new-window", "-d", "-c", dir, "-P", "-F", "#{pane_id}", "sleep 30")
		if err != nil {
			t.Fatal(err)
		}
		id := paneID(t, out[0])
		ps, err := f.ListPanes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !hasPane(id)(ps) {
			t.Errorf("pane %%%d with cwd %q missing from ListPanes", id, dir)
		}
	}
}

// conn.go Close: after two seconds it SIGKILLs the client's process group
// and then waits for stdout EOF without a bound. With -C the server holds
// the other end of that pipe (the client passes its fds), so while the server
// is not running (stopped, or wedged as in tmux 3.3a's ghost-client bug)
// Close never returns.
func TestCloseWhileServerStopped(t *testing.T) {
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
