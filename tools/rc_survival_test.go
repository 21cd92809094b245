package tools

import (
	"strings"
	"testing"
)

// The startup files users have, for the tests of a pane that survives its
// user's rc being read again.
const (
	// debianBashrc is the shape of Debian's skeleton ~/.bashrc with the
	// history line everyone adds: PROMPT_COMMAND and PS1 replaced whole.
	debianBashrc = `case $- in *i*) ;; *) return;; esac
HISTCONTROL=ignoreboth
shopt -s histappend
HISTSIZE=1000
HISTFILESIZE=2000
shopt -s checkwinsize
PS1='${debian_chroot:+($debian_chroot)}\u@deb:\w\$ '
alias ll='ls -alF'
PROMPT_COMMAND='history -a; history -n'
`
	// prependBashrc puts its hook in front of whatever PROMPT_COMMAND
	// holds, as pyenv, starship and many snippets do.
	prependBashrc = `__mine() { MINE_RAN=$((${MINE_RAN:-0}+1)); }
PROMPT_COMMAND="__mine;$PROMPT_COMMAND"
PS1='pre \W\$ '
`
	// vanishingBashrc leaves nothing of tmuxmcp's: PROMPT_COMMAND unset,
	// PS0 and PS1 set anew.
	vanishingBashrc = `unset PROMPT_COMMAND
PS0=
PS1='gone\$ '
`
	bashProfile = "[ -f ~/.bashrc ] && . ~/.bashrc\n"
)

// surviving runs command in pane and checks it completed with status 0
// and no note, and that the pane still runs commands with their exit
// status after it.
func surviving(t *testing.T, e *env, pane, command string) {
	t.Helper()
	r := e.ok(t, "run_shell_command", map[string]any{"paneId": pane, "command": command, "waitMs": 30000})
	if r.Str("status") != "completed" || r.M["exitCode"] == nil || r.Num("exitCode") != 0 || r.M["note"] != nil {
		t.Fatalf("%q: %v", command, r)
	}
	stillWorks(t, e, pane)
}

// stillWorks checks that pane runs commands typed as is again, each with
// its exit status and output.
func stillWorks(t *testing.T, e *env, pane string) {
	t.Helper()
	for _, c := range []struct {
		cmd  string
		code int64
		out  string
	}{{"false", 1, ""}, {"echo after-rc", 0, "after-rc\n"}, {"sh -c 'exit 3'", 3, ""}} {
		r := e.call(t, "run_shell_command", map[string]any{"paneId": pane, "command": c.cmd, "waitMs": 30000})
		if r.IsError || r.Str("status") != "completed" || r.M["exitCode"] == nil || r.Num("exitCode") != c.code || r.Str("output") != c.out {
			t.Fatalf("after the rc: %q: %v\n%s", c.cmd, r, screenOf(t, e, pane))
		}
		if r.M["note"] != nil {
			t.Fatalf("after the rc: %q carries a note: %v", c.cmd, r)
		}
	}
}

func screenOf(t *testing.T, e *env, pane string) string {
	c := e.call(t, "capture_pane", map[string]any{"paneId": pane})
	return "pane shows:\n" + c.Str("screen")
}

func TestSourcingABashrcThatReplacesPromptCommandKeepsEveryCommandsStatus(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, rc string }{
		{"debian history line", debianBashrc},
		{"a hook put in front", prependBashrc},
		{"an entry added to the array", "__b() { :; }\nPROMPT_COMMAND+=(__b)\nPS1='arr\\$ '\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := homeEnv(t, "/bin/bash", map[string]string{".bashrc": c.rc, ".profile": bashProfile})
			pane := readyPane(t, e)
			surviving(t, e, pane, "source ~/.bashrc")
			// Twice: nothing of theirs or ours piles up.
			surviving(t, e, pane, ". ~/.bashrc")
			r := e.ok(t, "run_shell_command", map[string]any{"paneId": pane, "command": `n=0; for e in "${PROMPT_COMMAND[@]}"; do case $e in *__tmuxmcp_first*|*__tmuxmcp_last*) n=$((n+1));; esac; done; echo $n`})
			if r.Str("output") != "2\n" {
				t.Fatalf("tmuxmcp's entries in PROMPT_COMMAND: %v", r)
			}
		})
	}
}

func TestAHookPutInFrontOfPromptCommandStillRunsAtEveryPrompt(t *testing.T) {
	t.Parallel()
	e := homeEnv(t, "/bin/bash", map[string]string{".bashrc": prependBashrc, ".profile": bashProfile})
	pane := readyPane(t, e)
	surviving(t, e, pane, "source ~/.bashrc")
	a := e.ok(t, "run_shell_command", map[string]any{"paneId": pane, "command": "echo $MINE_RAN"})
	b := e.ok(t, "run_shell_command", map[string]any{"paneId": pane, "command": "echo $MINE_RAN"})
	if a.Str("output") == b.Str("output") || strings.TrimSpace(a.Str("output")) == "" {
		t.Fatalf("the user's hook did not run between prompts: %q then %q", a.Str("output"), b.Str("output"))
	}
}

func TestViModeSetMidSessionKeepsThePaneWorking(t *testing.T) {
	t.Parallel()
	e := homeEnv(t, "/bin/bash", map[string]string{".bashrc": debianBashrc, ".profile": bashProfile})
	pane := readyPane(t, e)
	surviving(t, e, pane, "set -o vi")
	surviving(t, e, pane, "source ~/.bashrc")
}

// A command that leaves nothing of the integration: the truth about it,
// and the next command puts the hooks back.
func TestACommandThatRemovesTheHooksIsToldAndTheNextPutsThemBack(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, command string }{
		{"an rc that unsets PROMPT_COMMAND and PS0", "source ~/.bashrc"},
		{"exec bash", "exec bash"},
		{"a whole new PROMPT_COMMAND array", "PROMPT_COMMAND=(:)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := homeEnv(t, "/bin/bash", map[string]string{".bashrc": vanishingBashrc, ".profile": bashProfile})
			pane := readyPane(t, e)
			r := e.ok(t, "run_shell_command", map[string]any{"paneId": pane, "command": c.command, "waitMs": 60000})
			if r.Str("status") != "completed" || r.M["exitCode"] != nil || !strings.Contains(r.Str("note"), "removed the shell integration's hooks") {
				t.Fatalf("%q: %v\n%s", c.command, r, screenOf(t, e, pane))
			}
			r = e.call(t, "run_shell_command", map[string]any{"paneId": pane, "command": "echo rearmed", "waitMs": 30000})
			if r.IsError || r.Str("status") != "completed" || r.Num("exitCode") != 0 || r.Str("output") != "rearmed\n" || !strings.Contains(r.Str("note"), "put them back") {
				t.Fatalf("the command after: %v\n%s", r, screenOf(t, e, pane))
			}
			stillWorks(t, e, pane)
		})
	}
}

// A person (or type_text) ran the command that removed the hooks: the
// pane is not refused as running a builtin.
func TestHooksRemovedByATypedCommandDoNotRefuseThePane(t *testing.T) {
	t.Parallel()
	e := homeEnv(t, "/bin/bash", map[string]string{".bashrc": vanishingBashrc, ".profile": bashProfile})
	pane := readyPane(t, e)
	c := e.run(t, pane, "source ~/.bashrc")
	w := e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": c, "patterns": []string{`gone. $`}, "regex": true, "timeoutMs": 20000})
	if w.Str("outcome") != "matched" {
		t.Fatalf("no new prompt: %v", w)
	}
	r := e.call(t, "run_shell_command", map[string]any{"paneId": pane, "command": "echo typed-after", "waitMs": 30000})
	if r.IsError || r.Str("status") != "completed" || r.Str("output") != "typed-after\n" || !strings.Contains(r.Str("note"), "put them back") {
		t.Fatalf("after the hooks went: %v\n%s", r, screenOf(t, e, pane))
	}
	stillWorks(t, e, pane)
}

func TestZshPaneSurvivesItsZshrcReplacingPrecmdFunctions(t *testing.T) {
	t.Parallel()
	e := homeEnv(t, "/usr/bin/zsh", map[string]string{".zshrc": "__mine() { MINE=1 }\nprecmd_functions=(__mine)\npreexec_functions=()\nPS1='z%# '\n"})
	pane := readyPane(t, e)
	r := e.ok(t, "run_shell_command", map[string]any{"paneId": pane, "command": "source ~/.zshrc", "waitMs": 60000})
	if r.Str("status") != "completed" {
		t.Fatalf("source ~/.zshrc: %v\n%s", r, screenOf(t, e, pane))
	}
	if r.M["exitCode"] == nil && !strings.Contains(r.Str("note"), "removed the shell integration's hooks") {
		t.Fatalf("no status and no word why: %v", r)
	}
	r = e.call(t, "run_shell_command", map[string]any{"paneId": pane, "command": "echo z-after", "waitMs": 30000})
	if r.IsError || r.Str("status") != "completed" || r.Str("output") != "z-after\n" {
		t.Fatalf("the command after: %v\n%s", r, screenOf(t, e, pane))
	}
	stillWorks(t, e, pane)
}

func TestFishPaneSurvivesItsConfigRedefiningFishPrompt(t *testing.T) {
	t.Parallel()
	e := homeEnv(t, "/usr/bin/fish", map[string]string{".config/fish/config.fish": "function fish_prompt\n    echo -n 'f> '\nend\n"})
	pane := readyPane(t, e)
	for _, cmd := range []string{"source ~/.config/fish/config.fish", "function fish_prompt; echo -n 'g> '; end"} {
		r := e.ok(t, "run_shell_command", map[string]any{"paneId": pane, "command": cmd, "waitMs": 60000})
		if r.Str("status") != "completed" || r.M["exitCode"] == nil || r.Num("exitCode") != 0 {
			t.Fatalf("%q: %v\n%s", cmd, r, screenOf(t, e, pane))
		}
		stillWorks(t, e, pane)
	}
}
