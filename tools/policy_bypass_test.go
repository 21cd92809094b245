// Ways around the approval policy: each test tries one (a key spelling,
// pasted text, line editing, history) on a line a rule denies and checks
// that the command did not run.
package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/policy"
)

func bypassEnv(t *testing.T) (*env, string) {
	pol, _ := policy.New(policy.Allow, []policy.Rule{{Name: "no rm", Action: policy.Deny, Command: `\brm\b`}})
	e := newEnv(t, envOptions{policy: pol})
	pane, _ := e.shell(t)
	return e, pane
}

func victimGone(t *testing.T, victim string) bool {
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(victim); err != nil {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

func mkVictim(t *testing.T) string {
	v := filepath.Join(t.TempDir(), "victim")
	os.Mkdir(v, 0o755)
	return v
}

func TestALowerCaseEnterKeyCannotRunADeniedCommand(t *testing.T) {
	t.Parallel()
	e, pane := bypassEnv(t)
	v := mkVictim(t)
	r := e.call(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"rm -rf " + v, "enter"}})
	t.Logf("result: %v", r)
	if victimGone(t, v) {
		t.Errorf("BYPASS: send_keys 'enter' ran a denied command")
	}
}

func TestACaretMKeyCannotRunADeniedCommand(t *testing.T) {
	t.Parallel()
	e, pane := bypassEnv(t)
	v := mkVictim(t)
	r := e.call(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"rm -rf " + v, "^M"}})
	t.Logf("result: %v", r)
	if victimGone(t, v) {
		t.Errorf("BYPASS: send_keys '^M' ran a denied command")
	}
}

func TestACarriageReturnInSentKeysCannotRunADeniedCommand(t *testing.T) {
	t.Parallel()
	e, pane := bypassEnv(t)
	v := mkVictim(t)
	r := e.call(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"rm -rf " + v + "\r"}})
	t.Logf("result: %v", r)
	if victimGone(t, v) {
		t.Errorf("BYPASS: send_keys literal with CR ran a denied command")
	}
}

func TestCtrlOInTypedTextCannotRunADeniedCommand(t *testing.T) {
	t.Parallel()
	e, pane := bypassEnv(t)
	v := mkVictim(t)
	r := e.call(t, "type_text", map[string]any{"paneId": pane, "text": "rm -rf " + v + "\x0f"})
	t.Logf("result: %v", r)
	if victimGone(t, v) {
		t.Errorf("BYPASS: type_text with C-o (operate-and-get-next) ran a denied command")
	}
}

func TestCtrlDOnADeniedLineIsRefusedAndEnterStillCannotRunIt(t *testing.T) {
	t.Parallel()
	e, pane := bypassEnv(t)
	v := mkVictim(t)
	e.ok(t, "type_text", map[string]any{"paneId": pane, "text": "rm -rf " + v})
	// C-d is judged itself (zsh lists completions with it): refused here.
	if r := e.call(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"C-d"}}); !r.IsError {
		t.Errorf("C-d on a denied line was sent: %v", r)
	}
	r := e.call(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"Enter"}})
	t.Logf("result: %v", r)
	if victimGone(t, v) {
		t.Errorf("BYPASS: C-d cleared the policy's line but not bash's; Enter ran a denied command")
	}
}

func TestAKilledAndYankedDeniedLineCannotBeRun(t *testing.T) {
	t.Parallel()
	e, pane := bypassEnv(t)
	v := mkVictim(t)
	e.ok(t, "type_text", map[string]any{"paneId": pane, "text": "rm -rf " + v})
	e.ok(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"C-u"}})
	r := e.call(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"C-y", "Enter"}})
	t.Logf("result: %v", r)
	if victimGone(t, v) {
		t.Errorf("BYPASS: C-u then C-y Enter ran a denied command")
	}
}

func TestANewlineInTypedTextCannotRunADeniedCommandInSh(t *testing.T) {
	t.Parallel()
	pol, _ := policy.New(policy.Allow, []policy.Rule{{Name: "no rm", Action: policy.Deny, Command: `\brm\b`}})
	e := newEnv(t, envOptions{policy: pol})
	r := e.ok(t, "create_pane", map[string]any{"argv": []string{"/bin/sh"}})
	pane := r.Str("paneId")
	e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": r.Str("cursor"), "patterns": []string{promptPattern}, "regex": true, "timeoutMs": 10000})
	v := mkVictim(t)
	x := e.call(t, "type_text", map[string]any{"paneId": pane, "text": "rm -rf " + v + "\n"})
	t.Logf("result: %v", x)
	if victimGone(t, v) {
		t.Errorf("BYPASS: type_text (no submit) with a newline ran a denied command in sh")
	}
}

func TestEnterCannotRunADeniedCommand(t *testing.T) {
	t.Parallel()
	e, pane := bypassEnv(t)
	v := mkVictim(t)
	r := e.call(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"rm -rf " + v, "Enter"}})
	t.Logf("result: %v", r)
	if victimGone(t, v) {
		t.Errorf("control: Enter ran")
	}
}

func TestAPasteEndSequenceInTypedTextCannotRunADeniedCommand(t *testing.T) {
	t.Parallel()
	e, pane := bypassEnv(t)
	v := mkVictim(t)
	r := e.call(t, "type_text", map[string]any{"paneId": pane, "text": "x\n\x1b[201~rm -rf " + v + "\r"})
	t.Logf("result: %v", r)
	if victimGone(t, v) {
		t.Errorf("BYPASS: bracketed-paste end sequence in type_text ran a denied command in bash")
	}
}

func TestANewlineInTypedTextCannotRunADeniedCommandInBash(t *testing.T) {
	t.Parallel()
	e, pane := bypassEnv(t)
	v := mkVictim(t)
	r := e.call(t, "type_text", map[string]any{"paneId": pane, "text": "rm -rf " + v + "\n"})
	t.Logf("result: %v", r)
	if victimGone(t, v) {
		t.Errorf("BYPASS: plain multi-line paste ran in bash")
	}
}

func TestEveryLineSubmittedInOneCallIsJudgedAlone(t *testing.T) {
	t.Parallel()
	e, pane := bypassEnv(t)
	v := mkVictim(t)
	r := e.call(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"echo a", "Enter", "rm -rf " + v, "Enter"}})
	t.Logf("result: %v", r)
	if victimGone(t, v) {
		t.Errorf("BYPASS: keys after the first Enter judged as one concatenated line")
	}
}

func TestTextTypedAfterAnEnterIsJudgedWithTheNextLine(t *testing.T) {
	t.Parallel()
	e, pane := bypassEnv(t)
	v := mkVictim(t)
	// judged as "rm -rf V" would be blocked; put it after an Enter, with a word glued before
	r := e.call(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"true", "Enter", "xrm -rf " + v, "C-a", "Right", "BSpace"}})
	t.Logf("r1: %v", r)
	r = e.call(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"Enter"}})
	t.Logf("r2: %v", r)
	if victimGone(t, v) {
		t.Errorf("BYPASS: text typed after an Enter is dropped from the judged line")
	}
}

func TestEditingKeysBeforeAnEnterAreRefusedWithTheWayOut(t *testing.T) {
	t.Parallel()
	e, pane := bypassEnv(t)
	v := mkVictim(t)
	// "xrm" passes the rule; C-a Right BSpace turns it into "rm" before the Enter.
	r := e.call(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"xrm -rf " + v, "C-a", "Right", "BSpace", "Enter"}})
	if !r.IsError || !strings.Contains(r.Text, "type_text (submit: true)") {
		t.Errorf("editing keys then Enter in one call: want an error naming the fix, got %v", r)
	}
	if victimGone(t, v) {
		t.Fatalf("BYPASS: editing keys before an Enter in one call")
	}
	// Split over two calls, the edited line is refused too.
	// (In a shell, a key after Right is refused already: an arrow is sent
	// as an escape sequence, which a vi-mode editor may read as Escape.)
	e.call(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"C-c"}})
	e.ok(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"xrm -rf " + v, "C-a", "C-f", "BSpace"}})
	if r := e.call(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"Enter"}}); !r.IsError || !strings.Contains(r.Text, "editing keys") {
		t.Errorf("Enter on an edited line: want refused, got %v", r)
	}
	if victimGone(t, v) {
		t.Fatalf("BYPASS: edited line submitted in a second call")
	}
	// Following the error's advice works: C-c clears the line, a typed command runs.
	k := e.ok(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"C-c"}})
	if w := e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": k.Str("cursor"), "patterns": []string{promptPattern}, "regex": true, "timeoutMs": 20000}); w.Str("outcome") != "matched" {
		t.Fatalf("prompt after C-c: %v", w)
	}
	c := e.ok(t, "type_text", map[string]any{"paneId": pane, "text": "echo advice-$((6*7))", "submit": true}).Str("cursor")
	if w := e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": c, "patterns": []string{"advice-42"}, "timeoutMs": 20000}); w.Str("outcome") != "matched" {
		t.Fatalf("after C-c, a typed command: %v", w)
	}
}

func TestARecalledAndEditedHistoryLineCannotRunADeniedCommand(t *testing.T) {
	t.Parallel()
	e, pane := bypassEnv(t)
	v := mkVictim(t)
	e.ok(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"#xrm -rf " + v, "Enter"}})
	e.call(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"Up", "C-a", "DC", "DC", "Enter"}})
	if victimGone(t, v) {
		t.Fatalf("BYPASS: history recall edited and submitted in one call")
	}
}

func TestKeyNamesAreJudgedInAnyCaseAsTmuxReadsThem(t *testing.T) {
	t.Parallel()
	e, pane := bypassEnv(t)
	v := mkVictim(t)
	// tmux reads "SPACE" as a space; the judged line must too.
	r := e.call(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"rm", "SPACE", "-rf", "sPaCe", v, "Enter"}})
	if !r.IsError {
		t.Errorf("rm SPACE -rf sPaCe V Enter: want blocked, got %v", r)
	}
	if victimGone(t, v) {
		t.Fatalf("BYPASS: upper-case key names")
	}
}

func TestAnEditedLineWrappedOverRowsIsJudgedWhole(t *testing.T) {
	t.Parallel()
	e, pane := bypassEnv(t)
	v := mkVictim(t)
	// The line wraps over several rows: the cursor row holds only its tail.
	e.ok(t, "type_text", map[string]any{"paneId": pane, "text": "xrm -rf " + v + " #" + strings.Repeat("a", 400)})
	e.ok(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"C-a", "C-f", "BSpace", "C-e"}})
	if r := e.call(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"Enter"}}); !r.IsError {
		t.Errorf("Enter on a wrapped line holding rm: want blocked, got %v", r)
	}
	if victimGone(t, v) {
		t.Fatalf("BYPASS: a wrapped line hides its start above the cursor row")
	}
}

func TestOtherKeySpellingsCannotRunADeniedCommand(t *testing.T) {
	t.Parallel()
	e, pane := bypassEnv(t)
	for _, tc := range []struct {
		name string
		keys func(v string) []string
	}{
		{"hex letter", func(v string) []string { return []string{"r", "0x6d", " -rf " + v, "Enter"} }},
		{"lower-case c-o", func(v string) []string { return []string{"rm -rf " + v, "c-o"} }},
		{"C-t transposes", func(v string) []string { return []string{"mr", "C-t", " -rf " + v, "Enter"} }},
		{"lower-case m- key", func(v string) []string { return []string{"mr", "m-b", "C-t", " -rf " + v, "Enter"} }},
	} {
		v := mkVictim(t)
		e.call(t, "send_keys", map[string]any{"paneId": pane, "keys": tc.keys(v)})
		if victimGone(t, v) {
			t.Errorf("BYPASS: %s", tc.name)
		}
		e.call(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"C-c"}})
	}
}

func TestEditedMultiLineBuffersAndVeryLongLinesCannotRunADeniedCommand(t *testing.T) {
	t.Parallel()
	// A pasted newline makes a two-line edit buffer (C-a goes to its start);
	// a 60,000-character line spans far more rows than the screen read.
	for name, tail := range map[string]string{"multi-line buffer": "\n#", "very long line": " #" + strings.Repeat("a", 60000)} {
		e, pane := bypassEnv(t)
		v := mkVictim(t)
		e.call(t, "type_text", map[string]any{"paneId": pane, "text": "xrm -rf " + v + tail})
		e.call(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"C-a", "Right", "BSpace", "C-e"}})
		e.call(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"Enter"}})
		if victimGone(t, v) {
			t.Errorf("BYPASS: edited %s", name)
		}
	}
}
