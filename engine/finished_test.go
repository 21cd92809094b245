package engine

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/internal/tmuxtest"
	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/shell"
)

// paneListed is pane as h lists it now (ok false: it is gone).
func paneListed(t *testing.T, h *Host, pane string) (PaneSummary, bool) {
	t.Helper()
	lp, err := h.ListPanes(t.Context(), nil, &ListPanesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range lp.Panes {
		if p.PaneID == pane {
			return p, true
		}
	}
	return PaneSummary{}, false
}

// waitPane waits (a generous minute: a loaded machine) until pane, as
// listed, passes ok, and returns it.
func waitPane(t *testing.T, h *Host, pane, what string, ok func(PaneSummary, bool) bool) PaneSummary {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		p, listed := paneListed(t, h, pane)
		if ok(p, listed) {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("pane %s never %s: %+v (listed %v)", pane, what, p, listed)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// runFresh runs command in a fresh pane and returns its result.
func runFresh(t *testing.T, h *Host, command, description string, keep bool) *JobResult {
	t.Helper()
	wait := int64(60000)
	req := &RunShellCommandRequest{Command: command, WaitMs: &wait, Keep: keep}
	if description != "" {
		req.Description = &description
	}
	r, err := h.RunShellCommand(t.Context(), nil, req)
	if err != nil {
		t.Fatalf("%s: %v", command, err)
	}
	if r.Status != string(jobs.Completed) || r.PaneID == nil {
		t.Fatalf("%s: %+v", command, r)
	}
	return r
}

func TestAFreshPaneJobsWindowStaysDeadWithItsStatusThenClosesAfterTheSetTime(t *testing.T) {
	t.Parallel()
	h := openHost(t, Config{KeepFinished: 3 * time.Second})
	r := runFresh(t, h, "echo kept-$((6*7)); false", "build it", false)
	if exitCode(r) != 1 || r.Output != "kept-42\n" {
		t.Fatalf("the job: %+v", r)
	}
	p := waitPane(t, h, *r.PaneID, "finished", func(p PaneSummary, listed bool) bool { return listed && p.Dead })
	if p.DeadStatus == nil || *p.DeadStatus != 1 || p.Window != "build it ✗ 1" {
		t.Fatalf("the finished window: dead status %v, window %q; want 1, \"build it ✗ 1\"", p.DeadStatus, p.Window)
	}
	screen, err := h.CapturePane(t.Context(), nil, &CapturePaneRequest{PaneID: *r.PaneID})
	if err != nil {
		t.Fatal(err)
	}
	if !screen.Dead || !strings.Contains(screen.Screen, "kept-42") || !strings.Contains(screen.Screen, "Pane is dead (status 1") ||
		strings.Index(screen.Screen, "kept-42") > strings.Index(screen.Screen, "Pane is dead") {
		t.Fatalf("the finished pane shows:\n%s", screen.Screen)
	}
	if _, err := h.TypeText(t.Context(), nil, &TypeTextRequest{PaneID: *r.PaneID, Text: "ls", Submit: true}); err == nil || !strings.Contains(err.Error(), "finished job's window, dead") {
		t.Fatalf("typing into a finished window: %v", err)
	}
	waitPane(t, h, *r.PaneID, "closed", func(_ PaneSummary, listed bool) bool { return !listed })
}

func TestAJobWithKeepStillLeavesItsShellLive(t *testing.T) {
	t.Parallel()
	h := openHost(t, Config{KeepFinished: time.Hour})
	r := runFresh(t, h, "true", "", true)
	if p, listed := paneListed(t, h, *r.PaneID); !listed || p.Dead {
		t.Fatalf("the kept pane after its job: %+v (listed %v)", p, listed)
	}
	again := run(t, h, *r.PaneID, "echo again")
	if again.Output != "again\n" {
		t.Fatalf("the kept pane's shell: %+v", again)
	}
}

func TestTheNextFreshPaneJobToEndClosesTheLastFinishedWindow(t *testing.T) {
	t.Parallel()
	h := openHost(t, Config{KeepFinished: time.Hour})
	first := runFresh(t, h, "echo first", "", false)
	waitPane(t, h, *first.PaneID, "finished", func(p PaneSummary, listed bool) bool { return listed && p.Dead })
	next := runFresh(t, h, "echo next", "", false)
	waitPane(t, h, *next.PaneID, "finished", func(p PaneSummary, listed bool) bool { return listed && p.Dead })
	waitPane(t, h, *first.PaneID, "closed", func(_ PaneSummary, listed bool) bool { return !listed })
	if p, listed := paneListed(t, h, *next.PaneID); !listed || !p.Dead || p.Window != "echo next ✓" {
		t.Fatalf("the last finished window: %+v (listed %v)", p, listed)
	}
	// Closing it left tmuxmcp's connection in step: another fresh pane
	// (its reply read as new-window's) runs.
	if r := runFresh(t, h, "echo after", "", false); r.Output != "after\n" {
		t.Fatalf("a fresh pane after the last finished one closed: %+v", r)
	}
}

func TestAFinishedWindowLeftByAnEarlierTmuxmcpClosesAtItsTime(t *testing.T) {
	t.Parallel()
	target := tmuxtest.Server(t, "agent", 120, 40)
	state := t.TempDir()
	open := func(keep time.Duration) *Host {
		h, err := OpenHost(t.Context(), Config{Target: target, Session: "agent", StateDir: state, KeepFinished: keep, Log: tmuxtest.Log(t)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(h.Close)
		return h
	}
	first := open(4 * time.Second)
	r := runFresh(t, first, "echo left", "", false)
	waitPane(t, first, *r.PaneID, "finished", func(p PaneSummary, listed bool) bool { return listed && p.Dead })
	first.Close()
	next := open(0)
	waitPane(t, next, *r.PaneID, "closed by the next tmuxmcp", func(_ PaneSummary, listed bool) bool { return !listed })
}

func TestTheSessionsFirstPaneShowsAPromptInAWindowNamedAfterItsShell(t *testing.T) {
	t.Parallel()
	target := tmuxtest.Server(t, "other", 120, 40)
	state := t.TempDir()
	integ, err := shell.Install(filepath.Join(state, "shell"))
	if err != nil {
		t.Fatal(err)
	}
	if err := (Session{Name: "agent", Width: 120, Height: 40, Shell: integ}).Ensure(t.Context(), target); err != nil {
		t.Fatal(err)
	}
	sh, err := target.DefaultShellOption(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	h, err := OpenHost(t.Context(), Config{Target: target, Session: "agent", StateDir: state, Shell: integ, Log: tmuxtest.Log(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	agent := "agent"
	listed, err := h.ListPanes(t.Context(), nil, &ListPanesRequest{Session: &agent})
	if err != nil || len(listed.Panes) != 1 {
		t.Fatalf("the first pane: %+v %v", listed, err)
	}
	first := listed.Panes[0]
	if first.Window != filepath.Base(sh) {
		t.Fatalf("the first window is named %q, want %q (the shell, from the start)", first.Window, filepath.Base(sh))
	}
	if r := run(t, h, first.PaneID, "echo at-the-prompt"); r.Output != "at-the-prompt\n" {
		t.Fatalf("the first pane's shell: %+v", r)
	}
	screen, err := h.CapturePane(t.Context(), nil, &CapturePaneRequest{PaneID: first.PaneID})
	if err != nil || !strings.Contains(screen.Screen, "$") {
		t.Fatalf("the first pane shows no prompt: %q %v", screen.Screen, err)
	}
}
