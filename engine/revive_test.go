package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/internal/tmuxtest"
	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/shell"
	"github.com/tmuxmcp/tmuxmcp/stream"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// ownServer is a host on a private tmux server whose panes have home as
// HOME (with the startup files the test wrote there); with own, tmuxmcp
// started that server itself and may start it again, as the embedded
// default does: a session "agent" whose first pane runs the integrated
// shell.
func ownServer(t *testing.T, home string, first []string, own bool) (*Host, tmux.Target) {
	t.Helper()
	if err := tmuxtest.DefaultRC(home); err != nil {
		t.Fatal(err)
	}
	target := tmuxtest.ServerWith(t, tmux.SessionSpec{Name: "agent", Width: 120, Height: 40, Command: first}, home)
	integ, err := shell.Install(filepath.Join(t.TempDir(), "shell"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Shell: integ}
	if own {
		cfg.RestartServer = func(ctx context.Context) error {
			if err := (Session{Name: "agent", Width: 120, Height: 40, Shell: integ}).Ensure(ctx, target); err != nil {
				return err
			}
			return tmuxtest.Configure(ctx, target, home)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg.Session, cfg.Target, cfg.StateDir = "agent", target, t.TempDir()
	h, err := OpenHost(ctx, cfg)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(h.Close)
	return h, target
}

// live is pane's recording, taken before its server goes (a call after
// would start the server again), or nil when it has none.
func live(h *Host, pane string) *stream.PaneStream {
	n, err := parsePaneID("paneId", pane)
	if err != nil {
		return nil
	}
	s, _ := h.hub.Live(n)
	return s
}

// waitServerGone waits until the host has seen its server go: the
// recording s (when not nil) ends, and the fleet has no connection.
func waitServerGone(t *testing.T, h *Host, s *stream.PaneStream) {
	t.Helper()
	for from := int64(0); s != nil; {
		r, err := s.Wait(t.Context(), stream.WaitSpec{From: from, Timeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if r.Outcome == stream.StreamLost || r.Outcome == stream.PaneDied {
			break
		}
		if r.Outcome != stream.Matched {
			t.Fatalf("the recording did not end with the server: %+v", r)
		}
		from = r.Cursor
	}
	deadline := time.Now().Add(30 * time.Second)
	for h.fleet.Err() == nil && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond) // the fleet notes the loss just after the stream ends; checked below
	}
	if h.fleet.Err() == nil {
		t.Fatal("the host did not see its server go")
	}
}

func TestAServerTmuxmcpStartedComesBackAfterKillServerAndTheNextResultSaysSo(t *testing.T) {
	t.Parallel()
	h, target := ownServer(t, t.TempDir(), nil, true)
	pane := newShell(t, h)
	wait := int64(300)
	job, err := h.RunShellCommand(t.Context(), nil, &RunShellCommandRequest{Command: "sleep 300", PaneID: &pane, WaitMs: &wait})
	if err != nil || job.Status != string(jobs.Running) {
		t.Fatalf("the job to lose: %+v %v", job, err)
	}
	s := live(h, pane)
	tmuxtest.Kill(target)
	waitServerGone(t, h, s)

	lp, err := h.ListPanes(t.Context(), nil, &ListPanesRequest{})
	if err != nil {
		t.Fatalf("list_panes after the server was killed: %v", err)
	}
	if len(lp.Panes) == 0 || lp.ServerNote == nil {
		t.Fatalf("list_panes after the restart: %+v", lp)
	}
	note := *lp.ServerNote
	for _, want := range []string{"started it again", "kill-server", "list_panes"} {
		if !strings.Contains(note, want) {
			t.Errorf("the note does not say %q: %s", want, note)
		}
	}
	if again, err := h.ListPanes(t.Context(), nil, &ListPanesRequest{}); err != nil || again.ServerNote != nil {
		t.Fatalf("the note is told once: %+v %v", again, err)
	}
	// The job that ran in the killed server ended, and says why.
	long := int64(20000)
	lost, err := h.AwaitCommandResult(t.Context(), nil, &AwaitCommandResultRequest{JobID: job.JobID, WaitMs: &long})
	if err != nil {
		t.Fatal(err)
	}
	if lost.Status != string(jobs.PaneDied) || lost.ServerNote == nil || !strings.Contains(*lost.ServerNote, "ended while this command ran") {
		t.Fatalf("the job of the killed server: %+v (note %v)", lost, deref(lost.ServerNote))
	}
	// Commands run on the new server, in a fresh pane and in a pane of it.
	r, err := h.RunShellCommand(t.Context(), nil, &RunShellCommandRequest{Command: "echo back-$((40+2))", WaitMs: &long})
	if err != nil || r.Status != string(jobs.Completed) || r.Output != "back-42\n" {
		t.Fatalf("a command after the restart: %+v %v", r, err)
	}
	if got := len(h.jobs.List()); got != 2 {
		t.Fatalf("job records after the restart: %d, want both", got)
	}
}

func TestAServerWhoseShellsLoggedOutOnTMOUTComesBackNamingTMOUT(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ".bashrc"), []byte("PS1='$ '\nreadonly TMOUT=2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The session's first pane waits for a line, so only the shell that
	// logs out is left when it does.
	h, _ := ownServer(t, home, []string{"sh", "-c", "read x"}, true)
	wait := int64(30000)
	p, err := h.CreatePane(t.Context(), nil, &CreatePaneRequest{WaitMs: &wait})
	if err != nil || p.Ready == nil || !*p.Ready {
		t.Fatalf("the shell that logs out: %+v %v", p, err)
	}
	s := live(h, p.PaneID)
	if _, err := h.KillPane(t.Context(), nil, &KillPaneRequest{PaneID: "%0"}); err != nil {
		t.Fatal(err)
	}
	waitServerGone(t, h, s)

	r, err := h.RunShellCommand(t.Context(), nil, &RunShellCommandRequest{Command: "echo again", WaitMs: &wait})
	if err != nil {
		t.Fatalf("run_shell_command after every shell logged out: %v", err)
	}
	if r.Status != string(jobs.Completed) || r.Output != "again\n" {
		t.Fatalf("the command after the restart: %+v", r)
	}
	if r.ServerNote == nil || !strings.Contains(*r.ServerNote, "TMOUT") || !strings.Contains(*r.ServerNote, "~/.bashrc:2: readonly TMOUT=2") {
		t.Fatalf("the note does not name TMOUT: %v", deref(r.ServerNote))
	}
	t.Logf("serverNote: %s", *r.ServerNote)
}

func TestAShellThatExitsAsItStartsIsNotRestartedForever(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	// Every shell started once the flag file exists exits at once.
	if err := os.WriteFile(filepath.Join(home, ".bashrc"), []byte("PS1='$ '\nif [ -e ~/die ]; then exit; fi\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h, target := ownServer(t, home, nil, true)
	pane := newShell(t, h)
	if err := os.WriteFile(filepath.Join(home, "die"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s := live(h, pane)
	tmuxtest.Kill(target)
	waitServerGone(t, h, s)
	var err error
	for i := 0; i < maxQuick+2; i++ {
		var lp *ListPanesResult
		lp, err = h.ListPanes(t.Context(), nil, &ListPanesRequest{})
		if err != nil {
			break
		}
		// The server came back; its first shell exits as it starts.
		var s *stream.PaneStream
		if len(lp.Panes) > 0 {
			s = live(h, lp.Panes[0].PaneID)
		}
		waitServerGone(t, h, s)
	}
	if err == nil {
		t.Fatalf("after %d quick deaths the server is still started again", maxQuick+2)
	}
	for _, want := range []string{"ended 3 times in a row", "startup files", "tmuxmcp doctor"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
	// Until the pause is over, calls say the same without starting it.
	if _, err := h.ListPanes(t.Context(), nil, &ListPanesRequest{}); err == nil || !strings.Contains(err.Error(), "startup files") {
		t.Fatalf("the next call: %v", err)
	}
}

func TestAServerTheUserChoseIsNeverStartedAgain(t *testing.T) {
	t.Parallel()
	h, target := ownServer(t, t.TempDir(), nil, false)
	pane := newShell(t, h)
	s := live(h, pane)
	tmuxtest.Kill(target)
	waitServerGone(t, h, s)
	for _, call := range []func() error{
		func() error { _, err := h.ListPanes(t.Context(), nil, &ListPanesRequest{}); return err },
		func() error {
			_, err := h.RunShellCommand(t.Context(), nil, &RunShellCommandRequest{Command: "true"})
			return err
		},
	} {
		err := call()
		if err == nil {
			t.Fatal("a call on the killed server the user chose worked")
		}
		for _, want := range []string{"tmux is not reachable", "only at its own launch, never again", target.StartLine("agent")} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("the error does not say %q: %v", want, err)
			}
		}
	}
	if _, err := target.Run(t.Context(), "has-session"); err == nil {
		t.Fatal("tmuxmcp started the user's server again")
	}
}

// A server that ends as it is started, before tmuxmcp reaches it (its
// first shell exits at once, and the server with it), is a quick death
// like one that ends a moment later: the call says so after the cap, not
// that starting it failed.
func TestAServerThatEndsBeforeItIsReachedCountsAsAQuickDeath(t *testing.T) {
	t.Parallel()
	h, target := ownServer(t, t.TempDir(), nil, true)
	pane := newShell(t, h)
	start := h.opts.RestartServer
	starts := 0
	h.opts.RestartServer = func(ctx context.Context) error {
		starts++
		if err := start(ctx); err != nil {
			return err
		}
		tmuxtest.Kill(target) // gone before the reconnect
		return nil
	}
	s := live(h, pane)
	tmuxtest.Kill(target)
	waitServerGone(t, h, s)
	_, err := h.ListPanes(t.Context(), nil, &ListPanesRequest{})
	if err == nil || !strings.Contains(err.Error(), "ended 3 times in a row") || !strings.Contains(err.Error(), "startup files") {
		t.Fatalf("after %d starts that ended at once: %v", starts, err)
	}
	if starts != maxQuick {
		t.Fatalf("started %d times, want %d", starts, maxQuick)
	}
}

// TestAServerKilledThreeTimesIsNotBlamedOnTheStartupFiles: someone runs
// kill-server each time tmuxmcp starts its server; the error after the cap
// names a kill as a cause, not only the startup files.
func TestAServerKilledThreeTimesIsNotBlamedOnTheStartupFiles(t *testing.T) {
	t.Parallel()
	h, target := ownServer(t, t.TempDir(), nil, true)
	pane := newShell(t, h)
	s := live(h, pane)
	var err error
	for i := 0; i < maxQuick+2; i++ {
		tmuxtest.Kill(target)
		waitServerGone(t, h, s)
		var lp *ListPanesResult
		if lp, err = h.ListPanes(t.Context(), nil, &ListPanesRequest{}); err != nil {
			break
		}
		s = nil
		if len(lp.Panes) > 0 {
			s = live(h, lp.Panes[0].PaneID)
		}
	}
	if err == nil {
		t.Fatalf("after %d kills in a row the server is still started again", maxQuick+2)
	}
	for _, want := range []string{"ended 3 times in a row", "kill-server", "startup files"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
}
