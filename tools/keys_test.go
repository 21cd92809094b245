package tools

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// lineEditors are the line editors and editing modes keys can leave in a
// state the screen does not show, each a user's configuration from
// testdata/rc.
var lineEditors = []rcCase{
	{name: "bash-debian-skel", shell: "/bin/bash", kind: "bash"},
	{name: "bash-vi-mode", shell: "/bin/bash", kind: "bash"},
	{name: "zsh-two-line-rprompt", shell: "/usr/bin/zsh", kind: "zsh"},
	{name: "zsh-vi-mode", shell: "/usr/bin/zsh", kind: "zsh"},
	{name: "fish-default", shell: "/usr/bin/fish", kind: "fish"},
	{name: "fish-vi-mode", shell: "/usr/bin/fish", kind: "fish"},
}

// forEachLineEditor runs f in a pane of each line editor, in parallel.
func forEachLineEditor(t *testing.T, f func(t *testing.T, m *matrix, pane string)) {
	t.Parallel()
	for _, c := range lineEditors {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m := newMatrix(t, c)
			pane := m.e.ok(t, "create_pane", map[string]any{}).Str("paneId")
			m.want(t, pane, "echo ready", "ready\n")
			f(t, m, pane)
		})
	}
}

// keys sends keys with send_keys and returns the result.
func (m *matrix) keys(t *testing.T, pane string, keys ...string) result {
	t.Helper()
	return m.e.ok(t, "send_keys", map[string]any{"paneId": pane, "keys": keys})
}

// An agent's keys that leave the shell's line editor in a state the
// screen does not show — a pending Escape (emacs: the next key becomes a
// Meta command; vi: command mode, where `e`, `p`, `o` are commands), a
// pending C-x prefix, a quoted insert waiting for its character, vi
// command mode with killed text to paste — never change the next command:
// run_shell_command runs exactly what it was given, in every shell and
// editing mode.
func TestAnEscapeLeftAtThePromptDoesNotChangeTheNextCommand(t *testing.T) {
	forEachLineEditor(t, func(t *testing.T, m *matrix, pane string) {
		for i, keys := range [][]string{{"Escape"}, {"C-x"}, {"C-v"}, {"Escape", "C-v"}, {"Escape", "C-x"}} {
			tok := fmt.Sprintf("k%d", i)
			m.keys(t, pane, keys...)
			m.want(t, pane, "echo esc-"+tok+" && pwd >/dev/null", "esc-"+tok+"\n")
		}
		// Text killed with C-u, then Escape: in vi command mode `p`
		// would paste the killed text back.
		m.e.ok(t, "type_text", map[string]any{"paneId": pane, "text": "echo KILLED-TEXT-PASTED"})
		m.keys(t, pane, "C-u")
		m.keys(t, pane, "Escape")
		m.want(t, pane, "printf 'pasted-%s\\n' no", "pasted-no\n")
		// The screen after the command holds no sign the killed text ran.
		if printed(t, m, pane, "KILLED-TEXT-PASTED") {
			t.Fatalf("the killed text ran: %s", m.screen(t, pane))
		}
	})
}

// printed reports whether a row of pane's screen is text alone: a
// command's output, not the command line that would print it.
func printed(t *testing.T, m *matrix, pane, text string) bool {
	t.Helper()
	for _, row := range strings.Split(m.e.ok(t, "capture_pane", map[string]any{"paneId": pane}).Str("screen"), "\n") {
		if strings.TrimSpace(row) == text {
			return true
		}
	}
	return false
}

// shows waits until pane's screen shows text.
func shows(t *testing.T, m *matrix, pane, text string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(m.e.ok(t, "capture_pane", map[string]any{"paneId": pane}).Str("screen"), text) {
		if time.Now().After(deadline) {
			t.Fatalf("%s never showed %q:%s", pane, text, m.screen(t, pane))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// adviceKeys is the keys a refusal's advice tells the agent to send.
var adviceKeys = regexp.MustCompile(`send_keys (\[[^\]]*\])`)

// The refusal of a half-typed line (typed by tmuxmcp, left in vi command
// mode with Escape, or typed by a person) advises keys that clear it in
// every shell and editing mode: following the advice once lets the next
// command run, and the line is never run.
func TestTheHalfTypedRefusalsWayOutWorksInEveryMode(t *testing.T) {
	forEachLineEditor(t, func(t *testing.T, m *matrix, pane string) {
		for _, c := range []struct {
			name  string
			type_ func(t *testing.T)
		}{
			{"typed by tmuxmcp then Escape", func(t *testing.T) {
				m.e.ok(t, "type_text", map[string]any{"paneId": pane, "text": "echo HALF-TYPED-RAN"})
				shows(t, m, pane, "echo HALF-TYPED-RAN") // as an agent sees it
				m.keys(t, pane, "Escape")
			}},
			{"typed by a person", func(t *testing.T) {
				if _, err := m.e.target.Run(t.Context(), "send-keys", "-t", pane, "-l", "echo PERSON-TYPED-RAN"); err != nil {
					t.Fatal(err)
				}
				shows(t, m, pane, "echo PERSON-TYPED-RAN")
			}},
		} {
			t.Run(c.name, func(t *testing.T) {
				c.type_(t)
				r := refused(t, m.e, pane, "echo next", "half-typed")
				adv := adviceKeys.FindStringSubmatch(r)
				if adv == nil {
					t.Fatalf("the refusal names no keys to send: %s", r)
				}
				var keys []string
				if err := json.Unmarshal([]byte(adv[1]), &keys); err != nil {
					t.Fatalf("advice %s: %v", adv[1], err)
				}
				m.keys(t, pane, keys...)
				m.want(t, pane, "echo cleared", "cleared\n")
				if printed(t, m, pane, "HALF-TYPED-RAN") || printed(t, m, pane, "PERSON-TYPED-RAN") {
					t.Fatalf("the half-typed line ran: %s", m.screen(t, pane))
				}
			})
		}
	})
}

// send_keys and type_text say submitted only when a line was handed to
// the program: Enter, C-m, C-j, or type_text's submit — never for
// Escape, C-c or C-u.
func TestSubmittedIsTrueOnlyWhenALineWasSubmitted(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	for _, c := range []struct {
		keys []string
		want bool
	}{
		{[]string{"Escape"}, false}, {[]string{"C-c"}, false}, {[]string{"x", "C-u"}, false},
		{[]string{"Enter"}, true}, {[]string{"C-m"}, true}, {[]string{"C-j"}, true}, {[]string{"Escape", "Enter"}, true},
	} {
		r := e.ok(t, "send_keys", map[string]any{"paneId": pane, "keys": c.keys})
		if got, _ := r.M["submitted"].(bool); got != c.want {
			t.Errorf("send_keys %v: submitted %v, want %v", c.keys, got, c.want)
		}
		e.ok(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"C-c"}})
	}
	for _, submit := range []bool{false, true} {
		r := e.ok(t, "type_text", map[string]any{"paneId": pane, "text": "true", "submit": submit})
		if got, _ := r.M["submitted"].(bool); got != submit {
			t.Errorf("type_text submit %v: submitted %v", submit, got)
		}
	}
}
