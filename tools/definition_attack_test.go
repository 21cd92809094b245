package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmuxmcp/tmuxmcp/policy"
)

// Attack round 4, finding 1: under --approval deny with a policy that
// allows only echo and ls, defining a function named command (or printf)
// whose body is only echo was allowed, and the next line run from a job
// script (echo hi!) ran the attacker's text. The definition is now
// blocked, and the next line runs as it reads.
func TestAnAllowedBodyCannotDefineAFunctionThatJobScriptsRun(t *testing.T) {
	t.Parallel()
	for _, sh := range []string{"/bin/bash", "/usr/bin/zsh"} {
		t.Run(filepath.Base(sh), func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(t.TempDir(), "policy.json")
			if err := os.WriteFile(file, []byte(`{"rules":[{"action":"allow","command":"^echo\\b"},{"action":"allow","command":"^ls\\b"}]}`), 0o600); err != nil {
				t.Fatal(err)
			}
			pol, err := policy.Load(file, policy.Deny)
			if err != nil {
				t.Fatal(err)
			}
			e := newEnv(t, envOptions{policy: pol, shell: sh})
			pane := e.ok(t, "create_pane", map[string]any{"waitMs": 30000}).Str("paneId")
			pwn := marker(t)
			if r := e.runCmd(t, map[string]any{"paneId": pane, "command": "touch " + pwn}); r.Str("decision") != "blocked" {
				t.Fatalf("the policy does not hold: %v", r)
			}
			// The two lines of the repro.
			def := "command() { echo 'touch " + pwn + "; id > " + pwn + "'; }"
			if r := e.runCmd(t, map[string]any{"paneId": pane, "command": def}); r.Str("decision") != "blocked" || r.Str("status") != "not_started" {
				t.Errorf("%s: %v", def, r)
			}
			r := e.runCmd(t, map[string]any{"paneId": pane, "command": "echo hi!", "waitMs": 20000})
			if r.Str("status") != "completed" || r.Num("exitCode") != 0 || r.Str("output") != "hi!\n" {
				t.Errorf("echo hi! after the refused definition: %v", r)
			}
			if appeared(pwn) {
				t.Fatal("BYPASS: the attacker's text ran")
			}
			// Every name the job scripts call is refused, and the refusal
			// says why (type_text reports it).
			for _, name := range []string{"command", "printf", "cat", "rm", "eval", "read", "builtin", "ls"} {
				def := name + "() { echo 'touch " + pwn + "'; }"
				if r := e.runCmd(t, map[string]any{"paneId": pane, "command": def}); r.Str("decision") != "blocked" {
					t.Errorf("%s: %v", def, r)
				}
				if r := e.call(t, "type_text", map[string]any{"paneId": pane, "text": def, "submit": true}); !r.IsError || !strings.Contains(r.Text, "defines a function named "+name+", which would change what later commands run") {
					t.Errorf("type_text %s: %v", def, r)
				}
			}
			if r := e.runCmd(t, map[string]any{"paneId": pane, "command": "echo again!", "waitMs": 20000}); r.Str("status") != "completed" || r.Str("output") != "again!\n" {
				t.Errorf("echo again!: %v", r)
			}
			if appeared(pwn) {
				t.Fatal("BYPASS: the attacker's text ran")
			}
		})
	}
}
