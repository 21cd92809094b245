// Regression tests for the attacks of issue 13: each ran a command or
// skipped a rule under --approval deny or the example policy in docs/approval.md.
package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/audit"
	"github.com/tmuxmcp/tmuxmcp/internal/tmuxtest"
	"github.com/tmuxmcp/tmuxmcp/policy"
)

// attackPolicies are the policies every attack is tried under: the
// example rules of docs/approval.md with the default auto, the same rules with the
// default deny, and --approval deny alone.
func attackPolicies(t *testing.T) map[string]*policy.Policy {
	rules := []policy.Rule{
		{Name: "no recursive rm", Action: policy.Deny, Command: `\brm\s+(-\w*[rR]|--recursive)`},
		{Name: "read-only git", Action: policy.Allow, Command: `^git (status|log|diff)\b`},
		{Name: "REPLs ask", Action: policy.Ask, Program: `^python`},
	}
	out := map[string]*policy.Policy{}
	for name, def := range map[string]policy.Action{"readme": policy.Allow, "readme-deny": policy.Deny} {
		p, err := policy.New(def, rules)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = p
	}
	out["deny"], _ = policy.New(policy.Deny, nil)
	return out
}

func TestNoKeySpellingOrEscapeRunsARefusedCommand(t *testing.T) {
	t.Parallel()
	attacks := map[string][]string{
		"hex with junk 0xdg":   {"0xdg"},
		"hex with junk 0x0dz":  {"0x0dz"},
		"hex with junk 0xd.":   {"0xd."},
		"hex with junk 0xaq":   {"0xaq"},
		"caret modifiers ^C-m": {"^C-m"},
		"hex Enter 0xd":        {"0xd"},
		"Escape C-e":           {"Escape", "C-e", "Enter"},
		"Escape 1 Escape #":    {"Escape", "1", "Escape", "#"},
		"M-#":                  {"M-#"},
		"C-M-e then Enter":     {"C-M-e", "Enter"},
		"C-o":                  {"C-o"},
	}
	for pname, pol := range attackPolicies(t) {
		t.Run(pname, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, envOptions{policy: pol})
			pane, _ := e.shell(t)
			for name, keys := range attacks {
				v := mkVictim(t)
				r := e.call(t, "send_keys", map[string]any{"paneId": pane, "keys": append([]string{"rm -rf " + v}, keys...)})
				if !r.IsError {
					t.Errorf("%s: send_keys was taken: %v", name, r)
				}
				// Escape in one call, the key in the next.
				if len(keys) > 1 && keys[0] == "Escape" {
					e.call(t, "type_text", map[string]any{"paneId": pane, "text": "rm -rf " + v})
					first := e.call(t, "send_keys", map[string]any{"paneId": pane, "keys": keys[:1]})
					rest := e.call(t, "send_keys", map[string]any{"paneId": pane, "keys": keys[1:]})
					if !first.IsError && !rest.IsError {
						t.Errorf("%s over two calls was taken: %v / %v", name, first, rest)
					}
				}
				if victimGone(t, v) {
					t.Errorf("BYPASS %s: the refused command ran", name)
				}
				e.ok(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"C-c"}})
			}
			// shell-expand-line runs a command substitution without Enter.
			for _, keys := range [][]string{{"Escape", "C-e"}, {"M-C-e"}} {
				v := mkVictim(t)
				e.call(t, "type_text", map[string]any{"paneId": pane, "text": "echo $(rm -rf " + v + ")"})
				e.call(t, "send_keys", map[string]any{"paneId": pane, "keys": keys})
				if victimGone(t, v) {
					t.Errorf("BYPASS %v expanded a refused command substitution", keys)
				}
				e.ok(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"C-c"}})
			}
		})
	}
}

func TestAKeyNameOutsideTheTableIsAnErrorThatListsTheNames(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	r := e.call(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"echo hi", "Return"}})
	if !r.IsError || !strings.Contains(r.Text, `keys[1] "Return"`) || !strings.Contains(r.Text, `"Enter"`) || !strings.Contains(r.Text, "nothing was sent") {
		t.Fatalf("Return: %v", r)
	}
	r = e.call(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"C-foo"}})
	if !r.IsError || !strings.Contains(r.Text, "Accepted: Enter, Escape") {
		t.Fatalf("C-foo: %v", r)
	}
}

func TestCreatePaneEnvAndArgvAreJudgedAsWhatTheyRun(t *testing.T) {
	t.Parallel()
	for pname, pol := range attackPolicies(t) {
		t.Run(pname, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, envOptions{policy: pol})
			before := len(e.ok(t, "list_panes", map[string]any{}).M["panes"].([]any))
			v := mkVictim(t)
			for name, args := range map[string]map[string]any{
				"env PROMPT_COMMAND": {"env": map[string]any{"PROMPT_COMMAND": "rm -rf " + v}},
				"env BASH_ENV":       {"env": map[string]any{"BASH_ENV": "/tmp/evil"}},
				"env GIT_CONFIG_*":   {"argv": []string{"git", "status"}, "env": map[string]any{"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.fsmonitor", "GIT_CONFIG_VALUE_0": "rm -rf " + v}},
				"env LD_PRELOAD":     {"argv": []string{"git", "status"}, "env": map[string]any{"LD_PRELOAD": "/tmp/evil.so"}},
				"argv rm -rf":        {"argv": []string{"rm", "-rf", v}},
				"argv python3 -c":    {"argv": []string{"python3", "-c", "import shutil; shutil.rmtree(" + "'" + v + "')"}},
				"argv sh -c rm":      {"argv": []string{"sh", "-c", "rm -r " + v}},
			} {
				if r := e.call(t, "create_pane", args); !r.IsError {
					t.Errorf("%s: a pane was created: %v", name, r)
				}
			}
			if victimGone(t, v) {
				t.Error("BYPASS: a refused create_pane ran")
			}
			if after := len(e.ok(t, "list_panes", map[string]any{}).M["panes"].([]any)); after != before {
				t.Errorf("refused create_pane calls left %d panes, want %d", after, before)
			}
		})
	}
}

func TestAnAllowedCommandCannotCarryAnother(t *testing.T) {
	t.Parallel()
	pol := attackPolicies(t)["readme-deny"]
	e := newEnv(t, envOptions{policy: pol})
	pane, _ := e.shell(t)
	dir := t.TempDir()
	for i, line := range []string{"git status; touch %s", "git status && touch %s", "git log $(touch %s)", "git status `touch %s`", "git status | sh -c 'touch %s'", "git status\ntouch %s", "git diff <(touch %s)"} {
		f := filepath.Join(dir, "f"+string(rune('a'+i)))
		cmd := strings.ReplaceAll(line, "%s", f)
		r := e.runCmd(t, map[string]any{"paneId": pane, "command": cmd, "waitMs": 5000})
		if r.Str("decision") != "blocked" || r.Str("status") != "not_started" {
			t.Errorf("%q: %v", cmd, r)
		}
		if _, err := os.Stat(f); err == nil {
			t.Errorf("BYPASS %q created its file", cmd)
		}
	}
	if r := e.runCmd(t, map[string]any{"paneId": pane, "command": "git status && git log -1", "waitMs": 20000}); r.Str("decision") != "auto-approved" {
		t.Errorf("a line of allowed commands: %v", r)
	}
	r := e.runCmd(t, map[string]any{"paneId": pane, "command": "echo 'unclosed", "waitMs": 5000})
	if r.Str("decision") != "blocked" {
		t.Errorf("a line that does not parse, under deny: %v", r)
	}
}

func TestACwdRuleHoldsForEverySpellingOfTheDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	prot := filepath.Join(dir, "prod")
	if err := os.Mkdir(prot, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "innocent")
	if err := os.Symlink(prot, link); err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(prot)
	pol, _ := policy.New(policy.Allow, []policy.Rule{{Name: "not in prod", Action: policy.Deny, CWD: "^" + real + "(/|$)"}})
	e := newEnv(t, envOptions{policy: pol})
	pane, _ := e.shell(t)
	for _, cwd := range []string{prot, prot + "/../prod", dir + "//prod", link, link + "/."} {
		if r := e.runCmd(t, map[string]any{"paneId": pane, "command": "touch ran", "cwd": cwd, "waitMs": 5000}); r.Str("decision") != "blocked" {
			t.Errorf("cwd %q: %v", cwd, r)
		}
	}
	if _, err := os.Stat(filepath.Join(prot, "ran")); err == nil {
		t.Error("BYPASS: a command ran in the protected directory")
	}
}

func TestACommandTooLongToShowIsNeverPutToAPerson(t *testing.T) {
	t.Parallel()
	pol, _ := policy.New(policy.Ask, nil)
	e := newEnv(t, envOptions{policy: pol})
	pane, _ := e.shell(t)
	// 41 rows of 100 characters: more than a person is shown.
	cmd := "echo " + strings.Repeat("y", 4100) + "; touch /tmp/hidden"
	r := e.call(t, "run_shell_command", map[string]any{"paneId": pane, "command": cmd})
	if !r.IsError || !strings.Contains(r.Text, "cannot be shown whole") {
		t.Fatalf("a padded command under ask: %v", r)
	}
}

func TestTextTypedAtAPasswordPromptIsNeverRecorded(t *testing.T) {
	t.Parallel()
	logPath := filepath.Join(t.TempDir(), "audit.jsonl")
	al, _ := audit.Open(logPath)
	e := newEnv(t, envOptions{audit: al})
	pane, _ := e.shell(t)
	c := e.run(t, pane, "read -s -p 'Password: ' pw; echo; echo got-${#pw}")
	e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": c, "patterns": []string{"Password:"}, "timeoutMs": 20000})
	e.ok(t, "type_text", map[string]any{"paneId": pane, "text": "hunter2-secret", "submit": true})
	e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": c, "patterns": []string{"got-14"}, "timeoutMs": 20000})
	e.ok(t, "type_text", map[string]any{"paneId": pane, "text": "echo visible-text", "submit": true})
	_ = al.Close()
	log, _ := os.ReadFile(logPath)
	if strings.Contains(string(log), "hunter2") || !strings.Contains(string(log), "echo off") || !strings.Contains(string(log), "visible-text") {
		t.Fatalf("audit log:\n%s", log)
	}
}

func TestTheAuditLogRedactsReasonsAndTypedSecrets(t *testing.T) {
	t.Parallel()
	logPath := filepath.Join(t.TempDir(), "audit.jsonl")
	al, _ := audit.Open(logPath)
	e := newEnv(t, envOptions{audit: al})
	pane, _ := e.shell(t)
	e.runCmd(t, map[string]any{"paneId": pane, "command": "true # curl -u bob:pw1 https://:pw2@h", "reason": "uses token=pw3", "waitMs": 20000})
	e.ok(t, "type_text", map[string]any{"paneId": pane, "text": "true sshpass -p pw4", "submit": true})
	_ = al.Close()
	log, _ := os.ReadFile(logPath)
	for _, pw := range []string{"pw1", "pw2", "pw3", "pw4"} {
		if strings.Contains(string(log), pw) {
			t.Errorf("the audit log holds %s:\n%s", pw, log)
		}
	}
}

// A person away from the terminal answers through a program of theirs:
// its answer decides, its silence is denied-timeout, its crash
// denied-error, and nothing runs unless it approves.
func TestAnApproverProgramDecidesForAPersonAway(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cases := []struct {
		name, body, decision string
		runs                 bool
	}{
		{"approves", "cat > " + filepath.Join(dir, "req.json") + "; echo approve", "approved", true},
		{"denies", "echo deny", "denied", false},
		{"hangs", "sleep 60", "denied-timeout", false},
		{"crashes", "kill -KILL $$", "denied-error", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			prog := filepath.Join(t.TempDir(), "approver")
			if err := os.WriteFile(prog, []byte("#!/bin/sh\n"+c.body+"\n"), 0o700); err != nil {
				t.Fatal(err)
			}
			logPath := filepath.Join(t.TempDir(), "audit.jsonl")
			al, _ := audit.Open(logPath)
			pol, _ := policy.New(policy.Ask, nil)
			e := newEnv(t, envOptions{policy: pol, audit: al, review: 2 * time.Second, via: []string{"exec"}, approver: prog})
			pane, _ := e.shell(t)
			ran := filepath.Join(t.TempDir(), "ran")
			r := e.runCmd(t, map[string]any{"paneId": pane, "command": "touch " + ran, "reason": "testing", "waitMs": 0})
			if r.Str("decision") != "pending" {
				t.Fatalf("not pending: %v", r)
			}
			a := e.ok(t, "await_command_result", map[string]any{"jobId": r.Str("jobId"), "waitMs": 30000})
			if a.Str("decision") != c.decision {
				t.Fatalf("decision %v, want %s", a, c.decision)
			}
			if _, err := os.Stat(ran); (err == nil) != c.runs {
				t.Fatalf("ran: %v, want %v (%v)", err == nil, c.runs, a)
			}
			_ = al.Close()
			log, _ := os.ReadFile(logPath)
			if !strings.Contains(string(log), `"decidedBy":"exec:approver"`) && c.runs {
				t.Errorf("audit log does not name the program:\n%s", log)
			}
		})
	}
	b, _ := os.ReadFile(filepath.Join(dir, "req.json"))
	if !strings.Contains(string(b), `"command":"touch `) || !strings.Contains(string(b), `"reason":"testing"`) || !strings.Contains(string(b), `"host":`) {
		t.Fatalf("the program read %s", b)
	}
}

// marker is a file that must not appear; appeared waits a moment for it.
func marker(t *testing.T) string { return filepath.Join(t.TempDir(), "MARK") }

func appeared(path string) bool {
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); err == nil {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

// zsh's completion runs $(…) on the line (Tab, and C-d's listing), bash's
// and fish's do not, but every shell's Tab and C-d are judged.
func TestCompletionKeysCannotRunACommandSubstitution(t *testing.T) {
	t.Parallel()
	for _, sh := range []string{"/usr/bin/zsh", "/bin/bash", "/usr/bin/fish"} {
		t.Run(filepath.Base(sh), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, envOptions{policy: attackPolicies(t)["deny"], shell: sh})
			pane := e.ok(t, "create_pane", map[string]any{"waitMs": 30000}).Str("paneId")
			for _, keys := range [][]string{{"Tab"}, {"C-d"}, {"C-i"}} {
				m := marker(t)
				e.call(t, "type_text", map[string]any{"paneId": pane, "text": "echo $(touch " + m + ")"})
				if r := e.call(t, "send_keys", map[string]any{"paneId": pane, "keys": keys}); !r.IsError {
					t.Errorf("%v under deny was sent: %v", keys, r)
				}
				if appeared(m) {
					t.Errorf("BYPASS %v ran the command substitution", keys)
				}
				e.call(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"C-c"}})
			}
			m := marker(t)
			if r := e.call(t, "type_text", map[string]any{"paneId": pane, "text": "echo $(touch " + m + ")\t"}); !r.IsError {
				t.Errorf("type_text with a TAB under deny was typed: %v", r)
			}
			if appeared(m) {
				t.Error("BYPASS a TAB in type_text ran the command substitution")
			}
		})
	}
}

func TestALineContinuedAcrossEntersIsJudgedWhole(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{policy: attackPolicies(t)["readme"]})
	pane, _ := e.shell(t)
	v := mkVictim(t)
	if r := e.call(t, "type_text", map[string]any{"paneId": pane, "text": "rm \\", "submit": true}); !r.IsError {
		t.Errorf("a line ending in a backslash was submitted: %v", r)
	}
	e.call(t, "type_text", map[string]any{"paneId": pane, "text": "-rf " + v, "submit": true})
	if r := e.call(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"rm \\", "Enter", "-rf " + v, "Enter"}}); !r.IsError {
		t.Errorf("send_keys with a continued line was sent: %v", r)
	}
	if victimGone(t, v) {
		t.Error("BYPASS: rm \\ Enter -rf V Enter removed the victim")
	}
}

func TestAFreshPaneUnderADefaultCommandIsJudgedAsShell(t *testing.T) {
	t.Parallel()
	target := tmuxtest.Server(t, "agent", 120, 40)
	if _, err := target.Run(t.Context(), "set-option", "-g", "default-command", "exec /bin/bash"); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, envOptions{target: &target, policy: attackPolicies(t)["readme-deny"]})
	m := marker(t)
	r := e.runCmd(t, map[string]any{"command": "git status $((echo a) ; touch " + m + ")", "waitMs": 20000})
	if r.Str("decision") != "blocked" {
		t.Errorf("a line that does not parse, for a fresh pane under deny: %v", r)
	}
	if appeared(m) {
		t.Error("BYPASS: it ran")
	}
}

func TestTextTypedAheadOfTheShellIsJudgedAsShell(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{policy: attackPolicies(t)["readme-deny"]})
	pane, _ := e.shell(t)
	// An allowed command that reads the terminal: git diff of standard input.
	if r := e.runCmd(t, map[string]any{"paneId": pane, "command": "git diff --no-index - /dev/null >/dev/null", "waitMs": 500}); r.Str("status") != "running" {
		t.Fatalf("the reader: %v", r)
	}
	m := marker(t)
	r := e.call(t, "type_text", map[string]any{"paneId": pane, "text": "git status\x04\x04git status $((echo a) ; touch " + m + ")\r"})
	if !r.IsError {
		t.Errorf("type-ahead past cat was typed: %v", r)
	}
	if appeared(m) {
		t.Error("BYPASS: the shell ran the typed-ahead line")
	}
}

// Under a default of deny, an allowed command typed with type_text runs:
// the prompt the screen shows before it is not part of what is judged.
func TestAnAllowedCommandCanBeTypedUnderDefaultDeny(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{policy: attackPolicies(t)["readme-deny"]})
	pane, _ := e.shell(t)
	r := e.call(t, "type_text", map[string]any{"paneId": pane, "text": "git status --short 2>/dev/null", "submit": true})
	if r.IsError {
		t.Fatalf("an allowed command typed under default deny: %v", r)
	}
}

// A key sent as an escape sequence (PageUp, S-Left) that a vi-mode line
// editor has no insert-mode binding for puts it in command mode, where #
// accepts the line: every key after one is refused in a shell.
func TestViModeCannotBeEnteredThroughAnEscapeSequenceKey(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ sh, rc, file, key, pound string }{
		{"/usr/bin/zsh", "PS1='%# '\nbindkey -v\n", ".zshrc", "PageUp", "#"},
		{"/bin/bash", "PS1='$ '\nset -o vi\n", ".bashrc", "S-Left", "1#"},
	} {
		t.Run(filepath.Base(c.sh), func(t *testing.T) {
			t.Parallel()
			e := homeEnvWith(t, c.sh, map[string]string{c.file: c.rc}, envOptions{policy: attackPolicies(t)["deny"]})
			pane := e.ok(t, "create_pane", map[string]any{"waitMs": 30000}).Str("paneId")
			m := marker(t)
			e.call(t, "type_text", map[string]any{"paneId": pane, "text": "#touch " + m})
			e.call(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{c.key}})
			if r := e.call(t, "type_text", map[string]any{"paneId": pane, "text": c.pound}); !r.IsError {
				t.Errorf("%s after %s was typed: %v", c.pound, c.key, r)
			}
			if r := e.call(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"C-c", "#touch " + m, c.key, c.pound}}); !r.IsError {
				t.Errorf("the keys in one call were sent: %v", r)
			}
			if appeared(m) {
				t.Error("BYPASS: the line ran from vi command mode")
			}
		})
	}
}

func TestHistoryExpansionCannotRebuildADeniedLine(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ sh, first, second string }{
		{"/bin/bash", `git status "x;touch %s;#"`, `git status !-1:gs/"//"`},
		{"/usr/bin/zsh", `git status "x;touch %s;:"`, `git status !-1:Q`},
	} {
		t.Run(filepath.Base(c.sh), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, envOptions{policy: attackPolicies(t)["readme-deny"], shell: c.sh})
			pane := e.ok(t, "create_pane", map[string]any{"waitMs": 30000}).Str("paneId")
			m := marker(t)
			e.call(t, "type_text", map[string]any{"paneId": pane, "text": strings.ReplaceAll(c.first, "%s", m), "submit": true})
			if r := e.call(t, "type_text", map[string]any{"paneId": pane, "text": c.second, "submit": true}); !r.IsError {
				t.Errorf("a line with history expansion was submitted: %v", r)
			}
			if appeared(m) {
				t.Error("BYPASS: history expansion ran the denied line")
			}
		})
	}
}

// ^old^new re-runs the last line changed: run_shell_command never types
// it into a shell's line editor (its job script has no history).
func TestQuickSubstitutionCannotRebuildADeniedCommand(t *testing.T) {
	t.Parallel()
	for _, sh := range []string{"/bin/bash", "/usr/bin/zsh"} {
		t.Run(filepath.Base(sh), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, envOptions{policy: attackPolicies(t)["readme"], shell: sh})
			pane := e.ok(t, "create_pane", map[string]any{"waitMs": 30000}).Str("paneId")
			v := mkVictim(t)
			e.runCmd(t, map[string]any{"paneId": pane, "command": "rm -f " + v, "waitMs": 20000})
			e.runCmd(t, map[string]any{"paneId": pane, "command": "^-f^-rf", "waitMs": 20000})
			if victimGone(t, v) {
				t.Error("BYPASS: ^-f^-rf ran rm -rf")
			}
		})
	}
}
