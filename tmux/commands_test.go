package tmux

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestNewPaneBuildsTheCommandTmuxIsAskedFor(t *testing.T) {
	format := "#{pane_id}\x1f#{session_name}\x1f#{session_id}\x1f#{window_id}"
	for _, tc := range []struct {
		name string
		spec NewPaneSpec
		want []string
	}{
		{"a window in the session", NewPaneSpec{Session: "main"},
			[]string{"new-window", "-d", "-P", "-F", format, "-t", "=main:"}},
		{"a named window ignores the target", NewPaneSpec{Session: "main", Name: "logs", Target: "%3"},
			[]string{"new-window", "-n", "logs", "-d", "-P", "-F", format, "-t", "=main:"}},
		{"a split of the target", NewPaneSpec{Split: SplitHorizontal, Session: "main", Target: "%3"},
			[]string{"split-window", "-h", "-d", "-P", "-F", format, "-t", "%3"}},
		{"a split of the session's current pane", NewPaneSpec{Split: SplitVertical, Session: "main", Name: "ignored"},
			[]string{"split-window", "-v", "-d", "-P", "-F", format, "-t", "=main:"}},
		{"directory, sorted environment, then the program", NewPaneSpec{Session: "s", CWD: "/tmp", Env: map[string]string{"B": "2", "A": "1 1"}, Argv: []string{"sleep", "9"}},
			[]string{"new-window", "-d", "-P", "-F", format, "-t", "=s:", "-c", "/tmp", "-e", "A=1 1", "-e", "B=2", "sleep", "9"}},
	} {
		if got := newPaneArgs(tc.spec); !slices.Equal(got, tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

func TestNewPaneReadsItsReplyOrSaysItCouldNot(t *testing.T) {
	if p, ok := parseNewPane("%12\x1fmain\x1f$0\x1f@3"); !ok || p != (NewPaneInfo{Pane: 12, Session: "main", SessionID: "$0", WindowID: "@3"}) {
		t.Fatalf("got %+v, %v", p, ok)
	}
	for _, bad := range []string{"", "%12", "12\x1fmain\x1f$0\x1f@3", "%12\x1fmain\x1f$0"} {
		if p, ok := parseNewPane(bad); ok {
			t.Errorf("%q read as %+v", bad, p)
		}
	}
	err := error(&UnreadReplyError{Command: "new-window", Reply: "?"})
	if want := `tmux created a pane but its reply "?" was not understood`; err.Error() != want {
		t.Fatalf("error %q, want %q", err, want)
	}
}

func TestNewPaneMakesAWindowWithoutSelectingIt(t *testing.T) {
	tg := newTestServer(t)
	f := startFleet(t, tg, newFakeEvents())
	ctx := testCtx(t)
	p, err := f.NewPane(ctx, NewPaneSpec{Session: "main", Name: "work", Env: map[string]string{"GREETING": "hi there"},
		Argv: []string{"sh", "-c", `echo "$GREETING"; exec sleep 60`}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Session != "main" || !strings.HasPrefix(p.SessionID, "$") || !strings.HasPrefix(p.WindowID, "@") {
		t.Fatalf("new pane %+v", p)
	}
	info, err := f.Pane(ctx, p.Pane)
	if err != nil {
		t.Fatal(err)
	}
	if info.WindowName != "work" || info.WindowID != p.WindowID || info.WindowActive {
		t.Fatalf("the new pane is %+v: want window work, not the active one", info)
	}
	split, err := f.NewPane(ctx, NewPaneSpec{Split: SplitHorizontal, Session: "main", Target: PaneName(p.Pane)})
	if err != nil {
		t.Fatal(err)
	}
	if split.WindowID != p.WindowID || split.Pane == p.Pane {
		t.Fatalf("split %+v of %+v: want another pane of the same window", split, p)
	}
}

func TestPaneOptionsAndTitleAreSetOnThePaneAlone(t *testing.T) {
	tg := newTestServer(t)
	f := startFleet(t, tg, newFakeEvents())
	ctx := testCtx(t)
	first := firstPane(t, f)
	other, err := f.NewPane(ctx, NewPaneSpec{Session: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.SetPaneOption(ctx, first, ShellOption, "tag 1"); err != nil {
		t.Fatal(err)
	}
	if err := f.SetPaneOption(ctx, first, PromptOption, "~ $ "); err != nil {
		t.Fatal(err)
	}
	if err := f.SetPaneTitle(ctx, first, "building: make all"); err != nil {
		t.Fatal(err)
	}
	p, _ := f.Pane(ctx, first)
	o, _ := f.Pane(ctx, other.Pane)
	if p.ShellTag != "tag 1" || p.Prompt != "~ $ " || p.Title != "building: make all" {
		t.Fatalf("pane %+v", p)
	}
	if o.ShellTag != "" || o.Prompt != "" || o.Title == p.Title {
		t.Fatalf("the other pane got them too: %+v", o)
	}
	if err := f.UnsetPaneOption(ctx, first, ShellOption); err != nil {
		t.Fatal(err)
	}
	if p, _ := f.Pane(ctx, first); p.ShellTag != "" || p.Prompt != "~ $ " {
		t.Fatalf("after unset: %+v", p)
	}
}

func TestSendKeysPressesKeysInThePane(t *testing.T) {
	tg := newTestServer(t)
	ev := newFakeEvents()
	f := startFleet(t, tg, ev)
	ctx := testCtx(t)
	p, err := f.NewPane(ctx, NewPaneSpec{Session: "main", Argv: []string{"cat"}})
	if err != nil {
		t.Fatal(err)
	}
	pane := p.Pane
	if err := f.SendKeys(ctx, pane, "h", "i", "Enter"); err != nil {
		t.Fatal(err)
	}
	ev.waitOutput(t, pane, "hi\r\nhi\r\n", 0) // the terminal's echo, then cat's line
	if err := f.SendKeys(ctx, pane, "C-c"); err != nil {
		t.Fatal(err)
	}
	ev.waitListing(t, "the pane gone after C-c", func(ps []PaneInfo) bool { return !hasPane(pane)(ps) })
}

func TestKillPaneClosesThePane(t *testing.T) {
	tg := newTestServer(t)
	f := startFleet(t, tg, newFakeEvents())
	ctx := testCtx(t)
	p, err := f.NewPane(ctx, NewPaneSpec{Session: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.KillPane(ctx, p.Pane); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Pane(ctx, p.Pane); !errors.Is(err, ErrNoPane) {
		t.Fatalf("after KillPane: %v", err)
	}
	var ce *CommandError
	if err := f.KillPane(ctx, p.Pane); !errors.As(err, &ce) || !strings.Contains(ce.Message, "can't find pane") {
		t.Fatalf("killing it again: %v", err)
	}
}

func TestDefaultShellSaysWhetherACommandRunsInstead(t *testing.T) {
	tg := newTestServer(t)
	f := startFleet(t, tg, newFakeEvents())
	ctx := testCtx(t)
	if _, err := f.Exec(ctx, "set-option", "-g", "default-shell", "/bin/sh"); err != nil {
		t.Fatal(err)
	}
	if sh, cmd, err := f.DefaultShell(ctx); err != nil || sh != "/bin/sh" || cmd != "" {
		t.Fatalf("got %q, %q, %v", sh, cmd, err)
	}
	if _, err := f.Exec(ctx, "set-option", "-g", "default-command", "exec top"); err != nil {
		t.Fatal(err)
	}
	if sh, cmd, err := f.DefaultShell(ctx); err != nil || sh != "/bin/sh" || cmd != "exec top" {
		t.Fatalf("got %q, %q, %v", sh, cmd, err)
	}
}

func TestSignalChannelWakesItsWaiter(t *testing.T) {
	tg := newTestServer(t)
	f := startFleet(t, tg, newFakeEvents())
	ctx := testCtx(t)
	waiter := tg.Command(ctx, "wait-for", "tmuxmcp-test-channel")
	if err := waiter.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- waiter.Wait() }()
	// A signal before the waiter waits is kept by tmux for it: either
	// order wakes it.
	if err := f.SignalChannel(ctx, "tmuxmcp-test-channel"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("the waiter was not woken")
	}
}

func TestMarkPaneRunsTheMarkBeforeItReturns(t *testing.T) {
	tg := newTestServer(t)
	f := startFleet(t, tg, newFakeEvents())
	ctx := testCtx(t)
	marked := 0
	if err := f.MarkPane(ctx, firstPane(t, f), func() { marked++ }); err != nil || marked != 1 {
		t.Fatalf("marked %d times, err %v", marked, err)
	}
}

// firstPane is the session's first pane.
func firstPane(t *testing.T, f *Fleet) int {
	t.Helper()
	ps, err := f.ListPanes(testCtx(t))
	if err != nil || len(ps) == 0 {
		t.Fatalf("list panes: %v %v", ps, err)
	}
	return ps[0].ID
}

func TestAKeptPaneSaysHowItsProgramEndedAndIsPutBackAfter(t *testing.T) {
	tg := newTestServer(t)
	ev := newFakeEvents()
	f := startFleet(t, tg, ev)
	ctx := testCtx(t)
	for _, c := range []struct {
		name, argv     string
		status, signal int // -1: none
		ownSetting     string
		closes         bool
	}{
		{"exit 3", "sleep 1; exit 3", 3, -1, "", true},
		{"killed", "sleep 1; kill -KILL $$", -1, 9, "", true},
		{"the pane's own setting", "sleep 1; exit 0", 0, -1, "failed", false},
	} {
		p, err := f.NewPane(ctx, NewPaneSpec{Session: "main", Argv: []string{"sh", "-c", c.argv}})
		if err != nil {
			t.Fatal(err)
		}
		if c.ownSetting != "" {
			if err := f.SetPaneOption(ctx, p.Pane, "remain-on-exit", c.ownSetting); err != nil {
				t.Fatal(err)
			}
		}
		kd, err := f.KeepDeadPane(ctx, p.Pane)
		if err != nil || kd.Restore != c.ownSetting || kd.Closes != c.closes {
			t.Fatalf("%s: KeepDeadPane %+v %v", c.name, kd, err)
		}
		ev.waitListing(t, c.name+": dead with its status", func(ps []PaneInfo) bool {
			for _, x := range ps {
				if x.ID == p.Pane && x.Dead && (x.DeadStatus != nil || x.DeadSignal != nil) {
					return true
				}
			}
			f.RefreshPanes()
			return false
		})
		info, _ := f.Pane(ctx, p.Pane)
		if got := deref(info.DeadStatus, -1); got != c.status || deref(info.DeadSignal, -1) != c.signal {
			t.Fatalf("%s: status %v signal %v", c.name, info.DeadStatus, info.DeadSignal)
		}
		if err := f.RestoreDeadPane(ctx, p.Pane, kd); err != nil {
			t.Fatal(err)
		}
		out, _ := f.Exec(ctx, "show-options", "-p", "-v", "-t", PaneName(p.Pane), "remain-on-exit")
		if strings.Join(out, "") != c.ownSetting {
			t.Fatalf("%s: the pane's own remain-on-exit after restore is %q, want %q", c.name, out, c.ownSetting)
		}
		_ = f.KillPane(ctx, p.Pane)
	}
	if _, err := f.KeepDeadPane(ctx, 99999); err == nil {
		t.Fatal("a pane that does not exist was kept")
	}
}

func deref(p *int, none int) int {
	if p == nil {
		return none
	}
	return *p
}
