package input

import (
	"errors"
	"slices"
	"testing"

	"github.com/tmuxmcp/tmuxmcp/tmux"
)

func keys(t *testing.T, names ...string) []Key {
	t.Helper()
	out := make([]Key, len(names))
	for i, n := range names {
		k, err := Parse(n)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = k
	}
	return out
}

func TestEnterInAnySpellingJudgesTheTypedLine(t *testing.T) {
	for _, enter := range []string{"Enter", "enter", "C-m", "^M", "C-j", "0xd", "0x0a", "KPEnter"} {
		_, st, err := Line{}.Keys(keys(t, "rm -rf /tmp/v", enter), true, true)
		if err != nil || !slices.Equal(st.Judge, []string{"rm -rf /tmp/v"}) || !st.Submitted || !st.Ended {
			t.Errorf("%s: judge %q, step %+v, err %v", enter, st.Judge, st, err)
		}
	}
}

func TestEscapeAndMetaKeysAreJudgedAsSubmitting(t *testing.T) {
	for _, seq := range [][]string{{"Escape"}, {"M-#"}, {"C-M-e"}, {"0x1b"}, {"C-["}} {
		_, st, err := Line{Text: "rm -rf /tmp/v"}.Keys(keys(t, seq...), true, true)
		if err != nil || !slices.Equal(st.Judge, []string{"rm -rf /tmp/v"}) {
			t.Errorf("%v: judge %q, err %v", seq, st.Judge, err)
		}
	}
}

func TestEveryKeyAfterEscapeIsRefusedUnderAPolicy(t *testing.T) {
	// Escape C-e (shell-expand-line), Escape 1 Escape # (insert-comment
	// accepts the line), vi command mode's v (edit-and-execute).
	for _, seq := range [][]string{{"Escape", "C-e"}, {"Escape", "1", "Escape", "#"}, {"Escape", "v"}, {"M-x", "a"}} {
		l, _, err := Line{Text: "rm -rf /tmp/v"}.Keys(keys(t, seq...), true, true)
		var e *EditedError
		if !errors.As(err, &e) || !e.Escaped {
			t.Errorf("%v in one call: %v (line %+v)", seq, err, l)
		}
		// The same keys over two calls.
		l, _, err = Line{Text: "rm -rf /tmp/v"}.Keys(keys(t, seq[0]), true, true)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := l.Keys(keys(t, seq[1:]...), true, true); !errors.As(err, &e) {
			t.Errorf("%v across calls: %v", seq, err)
		}
		if _, _, err := l.Type("#", false, true); !errors.As(err, &e) {
			t.Errorf("%v then type_text: %v", seq[:1], err)
		}
	}
}

func TestCtrlCEndsTheEscapedState(t *testing.T) {
	l, _, err := Line{}.Keys(keys(t, "Escape", "C-c"), true, true)
	if err != nil || l.Escaped || l.EditedBy != "" {
		t.Fatalf("after Escape C-c: %+v, %v", l, err)
	}
	if _, st, err := l.Keys(keys(t, "ls", "Enter"), true, true); err != nil || !slices.Equal(st.Judge, []string{"ls"}) {
		t.Fatalf("a fresh line after C-c: %+v, %v", st, err)
	}
}

func TestAYankedOrEditedLineCannotBeSubmittedUnderAPolicy(t *testing.T) {
	for _, seq := range [][]string{{"C-u", "C-y", "Enter"}, {"Left", "Enter"}, {"Up", "Enter"}, {"C-r", "Enter"}, {"Tab", "C-o"}} {
		_, _, err := Line{Text: "rm -rf x"}.Keys(keys(t, seq...), true, false)
		var e *EditedError
		if !errors.As(err, &e) || e.Escaped {
			t.Errorf("%v: %v", seq, err)
		}
		if _, _, err := (Line{Text: "rm -rf x"}).Keys(keys(t, seq...), false, true); err != nil {
			t.Errorf("%v without a policy: %v", seq, err)
		}
	}
	l, _, _ := Line{Text: "x"}.Keys(keys(t, "Left"), true, true)
	if _, _, err := l.Type("", true, true); err == nil {
		t.Error("type_text submit after an editing key in an earlier call was not refused")
	}
}

func TestControlKeysAndTextWithControlsAreJudged(t *testing.T) {
	_, st, err := Line{Text: "rm -rf x"}.Keys(keys(t, "C-o"), true, true)
	if err != nil || !slices.Equal(st.Judge, []string{"rm -rf x"}) {
		t.Errorf("C-o: %+v %v", st, err)
	}
	_, st, err = Line{}.Type("rm -rf x\n", false, true)
	if err != nil || !slices.Equal(st.Judge, []string{"rm -rf x\n"}) {
		t.Errorf("a newline in type_text: %+v %v", st, err)
	}
	_, st, _ = Line{}.Type("rm -rf x\n", false, false)
	if len(st.Judge) != 0 {
		t.Errorf("without a policy nothing is judged: %+v", st)
	}
}

func TestClearingKeysTellTheLineIsEmpty(t *testing.T) {
	for seq, want := range map[string]bool{"C-u": true, "C-c": true, "a": false} {
		_, st, _ := Line{Text: "x"}.Keys(keys(t, seq), true, true)
		if st.Cleared != want {
			t.Errorf("%s: cleared %v, want %v", seq, st.Cleared, want)
		}
	}
}

func TestKeysAreSentAsJudged(t *testing.T) {
	got := Keystrokes(keys(t, "ls", "0xd", "C-M-e", "Space", "q"))
	want := []tmux.Keystroke{{Text: "ls"}, {Name: "C-m"}, {Name: "M-C-e"}, {Name: "Space"}, {Text: "q"}}
	if !slices.Equal(got, want) {
		t.Fatalf("Keystrokes = %q, want %q", got, want)
	}
}

// zsh's completion (Tab, and C-d's listing) expands $(…) on the line: they
// are judged like a submit.
func TestCompletionKeysAreJudged(t *testing.T) {
	for _, k := range []string{"Tab", "C-i", "C-d", "BTab", "0x09"} {
		_, st, err := Line{Text: "echo $(touch x)"}.Keys(keys(t, k), true, true)
		if err != nil || !slices.Equal(st.Judge, []string{"echo $(touch x)"}) {
			t.Errorf("%s: judge %q, err %v", k, st.Judge, err)
		}
	}
	if _, st, _ := (Line{}).Type("echo $(touch x)\t", false, true); !slices.Equal(st.Judge, []string{"echo $(touch x)\t"}) {
		t.Errorf("a TAB in type_text: judge %q", st.Judge)
	}
}

// In a shell, a key sent as an escape sequence may put a vi-mode line
// editor in command mode (zsh leaves PageUp unbound in insert mode), where
// # accepts the line: after it, every key but C-c is refused.
func TestEscapeSequenceKeysCountAsEscapeInAShell(t *testing.T) {
	for _, k := range []string{"PageUp", "S-Left", "C-Left", "Home", "Up", "F5", "DC"} {
		l, _, err := Line{Text: "#touch x"}.Keys(keys(t, k), true, true)
		if err != nil || !l.Escaped {
			t.Errorf("%s in a shell: %+v %v", k, l, err)
		}
		var e *EditedError
		if _, _, err := l.Type("#", false, true); !errors.As(err, &e) {
			t.Errorf("%s then #: %v", k, err)
		}
		if l, _, _ := (Line{Text: "x"}).Keys(keys(t, k), true, false); l.Escaped {
			t.Errorf("%s in a program that is not a shell counts as Escape", k)
		}
	}
	if l, _, _ := (Line{}).Keys(keys(t, "C-a", "BSpace"), true, true); l.Escaped {
		t.Error("one-byte editing keys count as Escape")
	}
}

// Keys whose effect on a line editor the screen may not show (Escape, a
// Meta or control key, an escape sequence, an incremental search) leave
// the line unsure until it ends; text, Enter, C-c, C-u and plain editing
// keys do not. The first such key is the one named.
func TestKeysThatMayLeaveAHiddenStateMakeTheLineUnsure(t *testing.T) {
	for _, c := range []struct {
		keys   []string
		unsure string
	}{
		{[]string{"Escape"}, "Escape"}, {[]string{"M-x"}, "M-x"}, {[]string{"C-x"}, "C-x"}, {[]string{"C-v"}, "C-v"},
		{[]string{"Up"}, "Up"}, {[]string{"C-r"}, "C-r"}, {[]string{"Tab"}, "Tab"},
		{[]string{"Escape", "e", "C-v"}, "Escape"}, {[]string{"Escape", "Enter"}, "Escape"},
		{[]string{"ls"}, ""}, {[]string{"ls", "BSpace", "C-a"}, ""}, {[]string{"ls", "C-u"}, ""},
		{[]string{"Escape", "C-c"}, ""}, {[]string{"C-x", "Enter"}, ""}, {[]string{"x", "Enter"}, ""},
	} {
		l, _, err := Line{}.Keys(keys(t, c.keys...), false, false)
		if err != nil || l.Unsure != c.unsure {
			t.Errorf("%v: unsure %q, want %q (err %v)", c.keys, l.Unsure, c.unsure, err)
		}
	}
	if l, _, _ := (Line{}).Type("ls", false, false); l.Unsure != "" {
		t.Errorf("typed text: unsure %q", l.Unsure)
	}
}

// A result's "submitted" is whether a key that submits a line was sent:
// Enter in any spelling, even after Escape (vi command mode runs it), and
// never C-c, C-u, C-d or Escape alone.
func TestOnlyEnterKeysCountAsSent(t *testing.T) {
	for _, c := range []struct {
		keys []string
		sent bool
	}{
		{[]string{"Enter"}, true}, {[]string{"C-m"}, true}, {[]string{"C-j"}, true}, {[]string{"KPEnter"}, true},
		{[]string{"Escape", "Enter"}, true},
		{[]string{"Escape"}, false}, {[]string{"C-c"}, false}, {[]string{"x", "C-u"}, false}, {[]string{"C-d"}, false}, {[]string{"M-x"}, false},
	} {
		if _, st, _ := (Line{}).Keys(keys(t, c.keys...), false, true); st.Sent != c.sent {
			t.Errorf("%v: sent %v, want %v", c.keys, st.Sent, c.sent)
		}
	}
	if _, st, _ := (Line{}).Type("ls", true, false); !st.Sent {
		t.Error("type_text with submit: not sent")
	}
}

// A batch that ends with a lone Escape is marked, so the next input waits
// out the program's escape delay; any other last key clears the mark.
func TestALoneEscapeLastIsMarked(t *testing.T) {
	for _, c := range []struct {
		keys []string
		last bool
	}{
		{[]string{"Escape"}, true}, {[]string{"ls", "Escape"}, true}, {[]string{"0x1b"}, true},
		{[]string{"Escape", "x"}, false}, {[]string{"M-x"}, false}, {[]string{"Escape", "C-c"}, false}, {[]string{"Up"}, false},
	} {
		if l, _, _ := (Line{}).Keys(keys(t, c.keys...), false, true); l.EscapeLast != c.last {
			t.Errorf("%v: escape last %v, want %v", c.keys, l.EscapeLast, c.last)
		}
	}
	if l, _, _ := (Line{EscapeLast: true}).Type("x", false, false); l.EscapeLast {
		t.Error("text after Escape: still marked")
	}
}
