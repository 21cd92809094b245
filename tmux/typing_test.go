package tmux

import (
	"slices"
	"testing"
)

func TestKeysAreSentAsJudged(t *testing.T) {
	got := keyCommands("%1", []Keystroke{{Text: "ls"}, {Name: "C-m"}, {Name: "M-C-e"}, {Name: "Space"}, {Text: "q"}})
	want := [][]string{
		{"send-keys", "-t", "%1", "-l", "--", "ls"},
		{"send-keys", "-t", "%1", "--", "C-m", "M-C-e", "Space"},
		{"send-keys", "-t", "%1", "-l", "--", "q"},
	}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("keyCommands = %q, want %q", got, want)
	}
	if got := keyCommands("%1", []Keystroke{{Text: "Enter"}}); !slices.EqualFunc(got, [][]string{{"send-keys", "-t", "%1", "-l", "--", "Enter"}}, slices.Equal) {
		t.Fatalf("text that spells a key name is typed literally: %q", got)
	}
	if got := keyCommands("%1", nil); got != nil {
		t.Fatalf("no keys: %q", got)
	}
}

func TestTextIsTypedLiterallyOrPastedWhole(t *testing.T) {
	for _, tc := range []struct {
		name   string
		text   string
		submit bool
		want   [][]string
	}{
		{"one line, typed", "ls -l", false, [][]string{{"send-keys", "-t", "%4", "-l", "--", "ls -l"}}},
		{"one line, then Enter", "ls -l", true, [][]string{
			{"send-keys", "-t", "%4", "-l", "--", "ls -l"},
			{"send-keys", "-t", "%4", "Enter"}}},
		{"a line break: one bracketed paste from the buffer, deleted after", "a\nb", false, [][]string{
			{"set-buffer", "-b", "buf-1", "--", "a\nb"},
			{"paste-buffer", "-d", "-p", "-b", "buf-1", "-t", "%4"}}},
		{"a carriage return is a line break too", "a\rb", true, [][]string{
			{"set-buffer", "-b", "buf-1", "--", "a\rb"},
			{"paste-buffer", "-d", "-p", "-b", "buf-1", "-t", "%4"},
			{"send-keys", "-t", "%4", "Enter"}}},
		{"text that starts with a dash is not a flag", "-t x", false, [][]string{{"send-keys", "-t", "%4", "-l", "--", "-t x"}}},
		{"no text: Enter alone", "", true, [][]string{{"send-keys", "-t", "%4", "Enter"}}},
		{"nothing at all", "", false, nil},
	} {
		if got := textCommands("%4", tc.text, "buf-1", tc.submit); !slices.EqualFunc(got, tc.want, slices.Equal) {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

func TestTypeTextAndPressKeysReachThePane(t *testing.T) {
	tg := newTestServer(t)
	ev := newFakeEvents()
	f := startFleet(t, tg, ev)
	ctx := testCtx(t)
	p, err := f.NewPane(ctx, NewPaneSpec{Session: "main", Argv: []string{"cat"}})
	if err != nil {
		t.Fatal(err)
	}
	pane := p.Pane
	if err := f.TypeText(ctx, pane, "Enter C-c", "tmuxmcp-test", true); err != nil {
		t.Fatal(err)
	}
	ev.waitOutput(t, pane, "Enter C-c\r\nEnter C-c\r\n", 0) // the terminal's echo, then cat's line
	from := len(ev.output(pane))
	if err := f.TypeText(ctx, pane, "one\ntwo", "tmuxmcp-test", true); err != nil {
		t.Fatal(err)
	}
	ev.waitOutput(t, pane, "one\r\ntwo\r\n", from)
	if _, err := f.Exec(ctx, "show-buffer", "-b", "tmuxmcp-test"); err == nil {
		t.Fatal("the paste buffer outlived the paste")
	}
	from = len(ev.output(pane))
	if err := f.PressKeys(ctx, pane, []Keystroke{{Text: "Space"}, {Name: "Space"}, {Name: "x"}, {Name: "Enter"}}); err != nil {
		t.Fatal(err)
	}
	ev.waitOutput(t, pane, "Space x\r\n", from)
	if err := f.PressKeys(ctx, pane, []Keystroke{{Name: "C-c"}}); err != nil {
		t.Fatal(err)
	}
	ev.waitListing(t, "the pane gone after C-c", func(ps []PaneInfo) bool { return !hasPane(pane)(ps) })
	if err := f.PressKeys(ctx, pane, nil); err == nil {
		t.Fatal("no keys: no error")
	}
}
