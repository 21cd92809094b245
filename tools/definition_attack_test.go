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
			r := e.runCmd(t, map[string]any{"paneId": pane, "command": def})
			if r.Str("decision") != "blocked" || r.Str("status") != "not_started" {
				t.Errorf("%s: %v", def, r)
			}
			// The agent is told why, in the words of the policy.
			mustContain(t, "launchError", r.Str("launchError"), "defines a function named command")
			r = e.runCmd(t, map[string]any{"paneId": pane, "command": "echo hi!", "waitMs": 20000})
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

// hostileRC defines, in the user's own startup file, functions and
// aliases named after what job scripts run: each leaves a mark in the file
// mark if it ever runs (the files that called it: zsh's funcfiletrace,
// bash's BASH_SOURCE), and each function prints a command, as the
// attack's did.
func hostileRC(mark string) string {
	var b strings.Builder
	for _, n := range []string{"command", "printf", "cat", "rm", "eval", "read"} {
		b.WriteString(n + "() { echo " + n + " ${funcfiletrace[*]-} ${BASH_SOURCE[*]-} ${FUNCNAME[*]-} >> " + mark + "; echo 'echo " + n + " >> " + mark + "'; }\n")
	}
	b.WriteString("alias command='echo alias-command >> " + mark + ";' printf='echo alias-printf >> " + mark + ";' cat='echo alias-cat >> " + mark + ";'\n")
	b.WriteString("alias rm='echo alias-rm >> " + mark + ";' eval='echo alias-eval >> " + mark + ";' read='echo alias-read >> " + mark + ";'\n")
	b.WriteString("alias ll='echo user-alias-ll'\n")
	return b.String()
}

// A user's shell whose own startup files define functions and aliases
// named command, printf, cat, rm, eval and read still runs commands from
// job scripts as typed (output, status, cwd, the user's own aliases in the
// command), and the job scripts never run those definitions.
func TestJobScriptsNeverRunTheUsersFunctionsOrAliasesForTheirOwnWork(t *testing.T) {
	t.Parallel()
	for sh, rc := range map[string]string{"/bin/bash": ".bashrc", "/usr/bin/zsh": ".zshrc"} {
		t.Run(filepath.Base(sh), func(t *testing.T) {
			t.Parallel()
			mark := filepath.Join(t.TempDir(), "shadowed")
			e := homeEnv(t, sh, map[string]string{".profile": bashProfile, rc: "PS1='$ '\n" + hostileRC(mark)})
			pane := readyPane(t, e)
			dir := t.TempDir()
			for _, c := range []struct {
				args map[string]any
				out  string
				code int64
			}{
				{map[string]any{"command": "echo hi!"}, "hi!\n", 0},
				{map[string]any{"command": "ll; (exit 3)", "cwd": dir}, "user-alias-ll\n", 3},
				{map[string]any{"command": "builtin pwd"}, dir + "\n", 0},
				{map[string]any{"command": "echo one\necho two"}, "one\ntwo\n", 0},
			} {
				c.args["paneId"] = pane
				c.args["waitMs"] = 30000
				r := e.ok(t, "run_shell_command", c.args)
				if r.Str("status") != "completed" || r.Num("exitCode") != c.code || r.Str("output") != c.out {
					t.Errorf("%v: %v", c.args["command"], r)
				}
			}
			// Each mark names the files that called the definition. The
			// system's own startup files (Debian's /etc/zsh/zshrc calls
			// printf in its line editor widgets) are the user's shell's
			// business; tmuxmcp's scripts and job scripts are ours.
			b, _ := os.ReadFile(mark)
			for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				if l != "" && !strings.Contains(l, "/etc/") {
					t.Errorf("tmuxmcp's scripts ran the user's definition: %q", l)
				}
			}
		})
	}
}
