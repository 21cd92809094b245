package tmux

import (
	"slices"
	"testing"
)

func TestAListingDropsEmptyLines(t *testing.T) {
	for out, want := range map[string][]string{
		"":                 nil,
		"main":             {"main"},
		"main\nwork space": {"main", "work space"},
		"a\r\n\nb\n":       {"a", "b"},
	} {
		if got := listing(out); !slices.Equal(got, want) {
			t.Errorf("listing(%q) = %q, want %q", out, got, want)
		}
	}
}

func TestPaneIDsAreReadAsNumbersOrRefused(t *testing.T) {
	if got, err := parsePaneIDs("%0\n%12\n%3"); err != nil || !slices.Equal(got, []int{0, 12, 3}) {
		t.Fatalf("got %v, %v", got, err)
	}
	if got, err := parsePaneIDs(""); err != nil || got != nil {
		t.Fatalf("no panes: %v, %v", got, err)
	}
	for _, bad := range []string{"12", "%", "%x", "%-1", "%+1", "%1 ", "%1\n@2"} {
		if got, err := parsePaneIDs(bad); err == nil {
			t.Errorf("%q read as %v", bad, got)
		}
	}
}

func TestTargetQueriesAnswerForTheServer(t *testing.T) {
	tg := newTestServer(t)
	ctx := testCtx(t)
	if _, err := tg.Run(ctx, "set-option", "-g", "default-shell", "/bin/sh"); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.EnsureSession(ctx, SessionSpec{Name: "second", Width: 80, Height: 24}); err != nil {
		t.Fatal(err)
	}
	names, err := tg.SessionNames(ctx)
	if err != nil || !slices.Contains(names, "main") || !slices.Contains(names, "second") {
		t.Fatalf("sessions %q, %v", names, err)
	}
	ids, err := tg.PaneIDs(ctx)
	if err != nil || len(ids) != 2 {
		t.Fatalf("panes %v, %v: want one per session", ids, err)
	}
	if sh, err := tg.DefaultShellOption(ctx); err != nil || sh != "/bin/sh" {
		t.Fatalf("default-shell %q, %v", sh, err)
	}
	socket, err := tg.ServerSocket(ctx)
	if err != nil || socket == "" || socket[0] != '/' {
		t.Fatalf("socket %q, %v", socket, err)
	}
	if err := tg.KillServer(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.SessionNames(ctx); err == nil {
		t.Fatal("a killed server still lists sessions")
	}
	if _, err := tg.PaneIDs(ctx); err == nil {
		t.Fatal("a killed server still lists panes")
	}
}
