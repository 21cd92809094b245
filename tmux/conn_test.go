package tmux

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// tickCmd is a pane command that prints forever, so a client attaching late
// still sees its output.
const tickCmd = "sh -c 'i=0; while :; do i=$((i+1)); echo tick$i; sleep 0.1; done'"

func startFleet(t *testing.T, tg Target, ev Events) *Fleet {
	t.Helper()
	f, err := StartFleet(testCtx(t), tg, ev, discardLog)
	if err != nil {
		t.Fatalf("StartFleet: %v", err)
	}
	t.Cleanup(f.Close)
	return f
}

// mainPane returns the pane of session "main" via a CLI client.
func mainPane(t *testing.T, tg Target) int {
	t.Helper()
	out, err := tg.Run(testCtx(t), "list-panes", "-t", "=main", "-F", "#{pane_id}")
	if err != nil {
		t.Fatal(err)
	}
	return paneID(t, out)
}

func TestStartFleetListsSessionPane(t *testing.T) {
	t.Parallel()
	tg := newTestServer(t)
	ev := newFakeEvents()
	f := startFleet(t, tg, ev)
	id := mainPane(t, tg)

	// StartFleet delivers a listing before it returns.
	ev.mu.Lock()
	n := len(ev.listings)
	ev.mu.Unlock()
	if n == 0 {
		t.Fatal("StartFleet returned before PanesListed")
	}
	ps := ev.waitListing(t, fmt.Sprintf("pane %%%d", id), hasPane(id))
	var p PaneInfo
	for _, q := range ps {
		if q.ID == id {
			p = q
		}
	}
	if p.SessionName != "main" || !strings.HasPrefix(p.SessionID, "$") || !strings.HasPrefix(p.WindowID, "@") ||
		p.Width != 80 || p.Height != 24 || !p.Active || !p.WindowActive || p.Dead || p.PID <= 0 {
		t.Errorf("pane info %+v", p)
	}
	if err := f.Err(); err != nil {
		t.Errorf("Err() = %v while connected", err)
	}
	if f.Target().String() != tg.String() {
		t.Errorf("Target() = %v", f.Target())
	}
}

func TestFleetExecReturnsBody(t *testing.T) {
	t.Parallel()
	tg := newTestServer(t)
	f := startFleet(t, tg, newFakeEvents())
	ctx := testCtx(t)

	lines, err := f.Exec(ctx, "display-message", "-p", "hello world")
	if err != nil || len(lines) != 1 || lines[0] != "hello world" {
		t.Fatalf("display-message: %q, %v", lines, err)
	}
	if _, err := f.Exec(ctx, "set-buffer", "-b", "t", "a\nb b\n\nc"); err != nil {
		t.Fatal(err)
	}
	lines, err = f.Exec(ctx, "show-buffer", "-b", "t")
	if err != nil || strings.Join(lines, "|") != "a|b b||c" {
		t.Fatalf("show-buffer: %q, %v", lines, err)
	}
	// An empty reply is an empty body, not an error.
	lines, err = f.Exec(ctx, "set-option", "-g", "@x", "1")
	if err != nil || len(lines) != 0 {
		t.Fatalf("set-option: %q, %v", lines, err)
	}

	var marked atomic.Bool
	lines, err = f.ExecPane(ctx, mainPane(t, tg), func() { marked.Store(true) }, "display-message", "-p", "x")
	if err != nil || len(lines) != 1 || lines[0] != "x" {
		t.Fatalf("ExecPane: %q, %v", lines, err)
	}
	if !marked.Load() {
		t.Error("ExecPane returned before its mark ran")
	}
}

func TestFleetExecCommandError(t *testing.T) {
	t.Parallel()
	tg := newTestServer(t)
	f := startFleet(t, tg, newFakeEvents())
	ctx := testCtx(t)

	for _, tt := range []struct {
		args []string
		msg  string
	}{
		{[]string{"list-windows", "-t", "nosuch"}, "can't find session: nosuch"},
		{[]string{"nosuchcommand", "x"}, "parse error: unknown command: nosuchcommand"},
		{[]string{"kill-pane", "-t", "%9999"}, "can't find pane: %9999"},
	} {
		_, err := f.Exec(ctx, tt.args...)
		var ce *CommandError
		if !errors.As(err, &ce) {
			t.Errorf("%q: error %v (%T), want *CommandError", tt.args, err, err)
			continue
		}
		if ce.Command != tt.args[0] || ce.Message != tt.msg {
			t.Errorf("%q: CommandError %+v, want message %q", tt.args, ce, tt.msg)
		}
	}
	lines, err := f.Exec(ctx, "display-message", "-p", "still fine")
	if err != nil || len(lines) != 1 || lines[0] != "still fine" {
		t.Fatalf("after errors: %q, %v", lines, err)
	}
}

// TestExecBodyLooksLikeProtocol: command output that looks like guards,
// output or notifications stays inside its block.
func TestExecBodyLooksLikeProtocol(t *testing.T) {
	t.Parallel()
	tg := newTestServer(t)
	ev := newFakeEvents()
	f := startFleet(t, tg, ev)
	ctx := testCtx(t)

	body := []string{
		"%end 1 2 1",
		"%error 1 2 1",
		"%begin 1 2 1",
		fmt.Sprintf("%%end %d 1 1", time.Now().Unix()),
		"%output %999 fake",
		"%extended-output %999 0 : fake",
		"%exit",
		"%sessions-changed",
		"%pause %999",
	}
	if _, err := f.Exec(ctx, "set-buffer", "-b", "t", strings.Join(body, "\n")); err != nil {
		t.Fatal(err)
	}
	lines, err := f.Exec(ctx, "show-buffer", "-b", "t")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(lines, "\n") != strings.Join(body, "\n") {
		t.Fatalf("show-buffer body\n%q\nwant\n%q", lines, body)
	}
	lines, err = f.Exec(ctx, "display-message", "-p", "next")
	if err != nil || len(lines) != 1 || lines[0] != "next" {
		t.Fatalf("next command: %q, %v", lines, err)
	}
	ev.mu.Lock()
	defer ev.mu.Unlock()
	if len(ev.out[999]) != 0 || ev.dropped[999] != 0 || ev.discCalled != 0 {
		t.Errorf("body lines leaked as events: out %q dropped %d disconnected %d", ev.out[999], ev.dropped[999], ev.discCalled)
	}
}

func TestExecBatch(t *testing.T) {
	t.Parallel()
	tg := newTestServer(t)
	f := startFleet(t, tg, newFakeEvents())
	ctx := testCtx(t)

	out, err := f.ExecBatch(ctx, []string{"display-message", "-p", "a"}, []string{"display-message", "-p", "b"})
	if err != nil || len(out) != 2 || strings.Join(out[0], "") != "a" || strings.Join(out[1], "") != "b" {
		t.Fatalf("batch: %q, %v", out, err)
	}

	// First command fails: tmux skips the rest of the line and sends one
	// block. Every later command must fail, and the next Exec must get its
	// own reply.
	c, err := f.anyConn()
	if err != nil {
		t.Fatal(err)
	}
	reqs, err := c.send(t.Context(), nil, [][]string{
		{"has-session", "-t", "=nosuch"},
		{"display-message", "-p", "skipped1"},
		{"display-message", "-p", "skipped2"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var ce *CommandError
	if _, err := c.wait(ctx, reqs[0]); !errors.As(err, &ce) || ce.Message != "can't find session: nosuch" {
		t.Errorf("failing command: %v", err)
	}
	for _, r := range reqs[1:] {
		lines, err := c.wait(ctx, r)
		if err == nil {
			t.Errorf("skipped command %s succeeded with %q", r.command, lines)
		} else if !errors.Is(err, errNotRun) {
			t.Errorf("skipped command: %v, want errNotRun", err)
		}
	}
	lines, err := f.Exec(ctx, "display-message", "-p", "next")
	if err != nil || len(lines) != 1 || lines[0] != "next" {
		t.Fatalf("Exec after failed batch: %q, %v", lines, err)
	}

	// The same through ExecBatch, failing in the middle.
	out, err = f.ExecBatch(ctx,
		[]string{"display-message", "-p", "one"},
		[]string{"has-session", "-t", "=nosuch"},
		[]string{"display-message", "-p", "three"})
	if !errors.As(err, &ce) || ce.Command != "has-session" {
		t.Errorf("ExecBatch error %v, want has-session CommandError", err)
	}
	if len(out) != 3 || strings.Join(out[0], "") != "one" || out[2] != nil {
		t.Errorf("ExecBatch out %q", out)
	}
	lines, err = f.Exec(ctx, "display-message", "-p", "next2")
	if err != nil || len(lines) != 1 || lines[0] != "next2" {
		t.Fatalf("Exec after failed ExecBatch: %q, %v", lines, err)
	}
}

func TestPaneOutputReachesEvents(t *testing.T) {
	t.Parallel()
	tg := newTestServer(t)
	ev := newFakeEvents()
	f := startFleet(t, tg, ev)
	ctx := testCtx(t)
	id := mainPane(t, tg)
	target := fmt.Sprintf("%%%d", id)

	// The shell echoes "echo hi $((6*7))"; only its output says "hi 42".
	if _, err := f.Exec(ctx, "send-keys", "-t", target, "-l", "--", "echo hi $((6*7))"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Exec(ctx, "send-keys", "-t", target, "Enter"); err != nil {
		t.Fatal(err)
	}
	ev.waitOutput(t, id, "hi 42\r\n", 0)

	// UTF-8 and control bytes arrive as raw bytes.
	off := len(ev.output(id))
	if _, err := f.Exec(ctx, "send-keys", "-t", target, "-l", "--", `printf '\134\011\303\251\346\227\245\360\237\230\200\n'`); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Exec(ctx, "send-keys", "-t", target, "Enter"); err != nil {
		t.Fatal(err)
	}
	ev.waitOutput(t, id, "\\\té日😀\r\n", off)
}

func TestPauseReportsDropAndResumes(t *testing.T) {
	t.Parallel()
	tg := newTestServer(t)
	ev := newFakeEvents()
	f := startFleet(t, tg, ev)
	ctx := testCtx(t)

	out, err := f.Exec(ctx, "new-window", "-d", "-P", "-F", "#{pane_id}", tickCmd)
	if err != nil {
		t.Fatal(err)
	}
	id := paneID(t, out[0])
	ev.waitOutput(t, id, "tick", 0)
	dropped := ev.dropChan(id)
	if _, err := f.Exec(ctx, "refresh-client", "-A", fmt.Sprintf("%%%d:pause", id)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-dropped:
	case <-time.After(waitTimeout):
		t.Fatal("no PaneOutputDropped after pausing the pane")
	}
	// Nothing arrives while paused, so new ticks mean the fleet resumed.
	ev.waitOutput(t, id, "tick", len(ev.output(id)))
}

func TestSecondSessionGetsOwnConnection(t *testing.T) {
	t.Parallel()
	tg := newTestServer(t)
	ev := newFakeEvents()
	f := startFleet(t, tg, ev)
	ctx := testCtx(t)

	out, err := f.Exec(ctx, "new-session", "-d", "-s", "second", "-P", "-F", "#{session_id} #{pane_id}", tickCmd)
	if err != nil {
		t.Fatal(err)
	}
	sid, pane, _ := strings.Cut(out[0], " ")
	id := paneID(t, pane)
	// Only a control client attached to "second" sees this pane's output.
	ev.waitOutput(t, id, "tick", 0)
	ev.waitListing(t, "the second session's pane", hasPane(id))

	f.mu.Lock()
	nconns := len(f.conns)
	owner := f.owner[id]
	f.mu.Unlock()
	if nconns != 2 {
		t.Errorf("%d control connections, want 2", nconns)
	}
	if owner == nil || owner.Session() != sid {
		t.Errorf("pane %%%d owned by %v, want the connection of %s", id, owner, sid)
	}
	ev.mu.Lock()
	if ev.restarted[id] != 0 {
		t.Errorf("PaneRestarted(%d) for a new pane", id)
	}
	ev.mu.Unlock()
}

func TestKillServerDisconnects(t *testing.T) {
	t.Parallel()
	tg := newTestServer(t)
	ev := newFakeEvents()
	f := startFleet(t, tg, ev)
	ctx := testCtx(t)

	// A command in flight when the server dies must return, not hang.
	// wait-for answers at once but blocks the client's queue; kill-server
	// wakes all waiters, so display-message may still be answered before
	// the client exits, or fail with ErrClosed.
	if _, err := f.Exec(ctx, "wait-for", "never-signalled"); err != nil {
		t.Fatal(err)
	}
	inflight := make(chan error, 1)
	go func() {
		_, err := f.Exec(ctx, "display-message", "-p", "x")
		inflight <- err
	}()

	if _, err := tg.Run(ctx, "kill-server"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ev.disc:
	case <-time.After(5 * time.Second):
		t.Fatal("Disconnected did not fire within 5s of kill-server")
	}
	ev.mu.Lock()
	discErr, discCalled := ev.discErr, ev.discCalled
	ev.mu.Unlock()
	if discErr == nil || !strings.Contains(discErr.Error(), tg.SocketName) {
		t.Errorf("Disconnected(%v)", discErr)
	}
	if discCalled != 1 {
		t.Errorf("Disconnected called %d times", discCalled)
	}
	select {
	case err := <-inflight:
		if err != nil && !errors.Is(err, ErrClosed) {
			t.Errorf("in-flight Exec: %v, want success or ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("in-flight Exec hangs after kill-server")
	}

	start := time.Now()
	if _, err := f.Exec(ctx, "display-message", "-p", "x"); err == nil {
		t.Error("Exec after kill-server succeeded")
	} else if errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Errorf("Exec after kill-server: %v after %v", err, time.Since(start))
	}
	if _, err := f.ExecBatch(ctx, []string{"display-message", "-p", "x"}); err == nil {
		t.Error("ExecBatch after kill-server succeeded")
	}
	if f.Err() == nil {
		t.Error("Err() = nil after kill-server")
	}
}

// TestPendingFailsWhenClientDies: a request whose reply never comes fails
// with ErrClosed when the control client goes away.
func TestPendingFailsWhenClientDies(t *testing.T) {
	t.Parallel()
	tg := newTestServer(t)
	ctx := testCtx(t)
	c, err := dial(ctx, tg, "main", newRecordSink(), discardLog)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Exec(ctx, "wait-for", "never-signalled"); err != nil {
		t.Fatal(err)
	}
	reqs, err := c.send(t.Context(), nil, [][]string{{"display-message", "-p", "x"}}) // queued behind wait-for
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if _, err := c.wait(ctx, reqs[0]); !errors.Is(err, ErrClosed) {
		t.Errorf("pending request: %v, want ErrClosed", err)
	}
	select {
	case <-c.Done():
	case <-time.After(waitTimeout):
		t.Fatal("Done not closed")
	}
	if _, err := c.Exec(ctx, "display-message", "-p", "x"); !errors.Is(err, ErrClosed) {
		t.Errorf("Exec on a dead connection: %v, want ErrClosed", err)
	}
}

func TestDialMissingSession(t *testing.T) {
	t.Parallel()
	tg := newTestServer(t)
	c, err := dial(testCtx(t), tg, "nosuch", newRecordSink(), discardLog)
	if err == nil {
		c.Close()
		t.Fatal("dial to a missing session succeeded")
	}
	if !strings.Contains(err.Error(), "can't find session: nosuch") {
		t.Errorf("dial error %v", err)
	}
}

// controlClients lists processes that are tmux control clients of socket.
func controlClients(t *testing.T, socket string) []string {
	t.Helper()
	dirs, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil {
			continue
		}
		args := strings.Split(string(bytes.TrimRight(b, "\x00")), "\x00")
		hasSocket, hasC := false, false
		for _, a := range args {
			hasSocket = hasSocket || a == socket
			hasC = hasC || a == "-C"
		}
		if hasSocket && hasC {
			found = append(found, d+": "+strings.Join(args, " "))
		}
	}
	return found
}

func TestCloseLeavesNoClients(t *testing.T) {
	t.Parallel()
	tg := newTestServer(t)
	ev := newFakeEvents()
	f, err := StartFleet(testCtx(t), tg, ev, discardLog)
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			f.Close()
		}
	})
	ctx := testCtx(t)
	out, err := tg.Run(ctx, "new-session", "-d", "-s", "second", "-P", "-F", "#{pane_id}", tickCmd)
	if err != nil {
		t.Fatal(err)
	}
	ev.waitOutput(t, paneID(t, out), "tick", 0) // the second connection is up

	f.mu.Lock()
	var pids []int
	for _, c := range f.conns {
		pids = append(pids, c.cmd.Process.Pid)
	}
	f.mu.Unlock()
	if len(pids) != 2 {
		t.Fatalf("%d connections, want 2", len(pids))
	}
	clients, err := tg.Run(ctx, "list-clients", "-F", "#{client_pid} #{client_flags}")
	if err != nil || len(strings.Split(clients, "\n")) != 2 {
		t.Fatalf("before Close: list-clients %q, %v", clients, err)
	}

	f.Close()
	closed = true

	if clients, err := tg.Run(ctx, "list-clients", "-F", "#{client_pid} #{client_name}"); err != nil || clients != "" {
		t.Errorf("after Close: list-clients %q, %v", clients, err)
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("control client pid %d still exists after Close (kill 0: %v)", pid, err)
		}
	}
	if left := controlClients(t, tg.SocketName); len(left) > 0 {
		t.Errorf("tmux -C processes left after Close: %q", left)
	}
	if _, err := f.Exec(ctx, "display-message", "-p", "x"); err == nil {
		t.Error("Exec after Close succeeded")
	}
	// The server is still fine for other clients.
	if _, err := tg.Run(ctx, "has-session", "-t", "=main"); err != nil {
		t.Errorf("server after Close: %v", err)
	}
}

// ExecBatch with no commands returns an error (send once indexed the last
// of no requests).
func TestExecBatchOfNoCommandsIsAnErrorNotAPanic(t *testing.T) {
	c := &Conn{stdin: nopWriteCloser{io.Discard}}
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("ExecBatch() panicked: %v", r)
		}
	}()
	if _, err := c.ExecBatch(t.Context()); err == nil {
		t.Error("ExecBatch() with no commands returned no error")
	}
}

// An empty command name is refused, alone or in a batch. Written as is, ""
// would be an empty line, which tmux takes as "detach"; inside a batch it
// would be a request tmux never answers, which then takes the next
// command's reply.
func TestAnEmptyCommandNameIsRefusedAndTakesNoOtherCommandsReply(t *testing.T) {
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

// ListPanes lists a pane whose current directory contains \x1f or \n,
// the characters that separate list-panes' fields and lines.
func TestListPanesIncludesPanesWhoseDirectoryHoldsSeparators(t *testing.T) {
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
