package tools

import (
	"os"
	"path/filepath"
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
			if r.Str("status") != "completed" || r.M["exitCode"] != nil || !strings.Contains(r.Str("note"), "removed the shell integration's hooks") || strings.Contains(r.Str("output"), "gone") {
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

// historyEnv is a bash home whose history file is bash's own default:
// the test environment's HISTFILE is taken away.
func historyEnv(t *testing.T, files map[string]string) *env {
	t.Helper()
	e := homeEnv(t, "/bin/bash", files)
	if _, err := e.target.Run(t.Context(), "set-environment", "-gu", "HISTFILE"); err != nil {
		t.Fatal(err)
	}
	return e
}

func TestBashPaneReadsAndAppendsTheUsersBashHistory(t *testing.T) {
	t.Parallel()
	e := historyEnv(t, map[string]string{".bashrc": debianBashrc, ".profile": bashProfile, ".bash_history": "echo from-an-earlier-session\n"})
	home := homeOf(t, e)
	pane := readyPane(t, e)
	r := e.ok(t, "run_shell_command", map[string]any{"paneId": pane, "command": "echo $HISTFILE; fc -ln 1 1; shopt -p inherit_errexit; [ -o posix ] && echo posix"})
	if want := home + "/.bash_history\n\t echo from-an-earlier-session\nshopt -u inherit_errexit\n"; r.Str("output") != want {
		t.Fatalf("history file, earlier history, POSIX leftovers: %q, want %q", r.Str("output"), want)
	}
	// One typed as is, one from a job script (two lines): both are the
	// user's history now, the line that sources the script is not.
	e.ok(t, "run_shell_command", map[string]any{"paneId": pane, "command": "echo agent-typed-1"})
	e.ok(t, "run_shell_command", map[string]any{"paneId": pane, "command": "echo agent-job-2\necho line-two"})
	e.ok(t, "run_shell_command", map[string]any{"paneId": pane, "command": "true"})
	b, err := os.ReadFile(filepath.Join(home, ".bash_history"))
	if err != nil {
		t.Fatal(err)
	}
	h := string(b)
	if !strings.Contains(h, "from-an-earlier-session") || !strings.Contains(h, "echo agent-typed-1") || !strings.Contains(h, "echo agent-job-2\necho line-two") || strings.Contains(h, ".run'") {
		t.Fatalf("~/.bash_history after the agent's commands:\n%s", h)
	}
	if _, err := os.Stat(filepath.Join(home, ".sh_history")); err == nil {
		t.Fatal("a ~/.sh_history was written")
	}
}

func TestBashPaneKeepsTheHistoryFileTheUsersFilesChoose(t *testing.T) {
	t.Parallel()
	e := historyEnv(t, map[string]string{".bashrc": "HISTFILE=~/.my_history\nPS1='$ '\n", ".profile": bashProfile, ".my_history": "echo in-my-history\n"})
	home := homeOf(t, e)
	pane := readyPane(t, e)
	r := e.ok(t, "run_shell_command", map[string]any{"paneId": pane, "command": "echo $HISTFILE; fc -ln 1 1; declare -p HISTFILE"})
	if want := home + "/.my_history\n\t echo in-my-history\ndeclare -- HISTFILE=\"" + home + "/.my_history\"\n"; r.Str("output") != want {
		t.Fatalf("%q, want %q", r.Str("output"), want)
	}
}

func homeOf(t *testing.T, e *env) string {
	t.Helper()
	out, err := e.target.Run(t.Context(), "show-environment", "-g", "HOME")
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(strings.TrimSpace(out), "HOME=")
}

// A command that goes through a job script (two lines, a cwd) shows the
// user's own hooks nothing of the script: the ERR trap fires once for the
// failing command with its own text, and set -x traces the command's
// lines, not the script's.
func TestTheUsersErrTrapAndXtraceSeeTheCommandAsTyped(t *testing.T) {
	t.Parallel()
	e := homeEnv(t, "/bin/bash", map[string]string{".profile": bashProfile,
		".bashrc": "PS1='$ '\ntrap 'echo \"ERR-TRAP status=$? cmd=[$BASH_COMMAND]\"' ERR\n"})
	pane := readyPane(t, e)
	home := homeOf(t, e)
	for i, args := range []map[string]any{
		{"command": "echo one\nfalse\necho two"},
		{"command": "false", "cwd": home},
	} {
		args["paneId"] = pane
		r := e.ok(t, "run_shell_command", args)
		out := r.Str("output")
		if strings.Count(out, "ERR-TRAP") != 1 || !strings.Contains(out, "ERR-TRAP status=1 cmd=[false]") || r.Num("exitCode") != int64(i) {
			t.Fatalf("%q: the ERR trap did not fire once with the command's text: %q (%v)", args["command"], out, r)
		}
		// The trap set aside for the script's own lines is back.
		n := e.ok(t, "run_shell_command", map[string]any{"paneId": pane, "command": "false"})
		if strings.Count(n.Str("output"), "ERR-TRAP") != 1 {
			t.Fatalf("the ERR trap after a job script: %q", n.Str("output"))
		}
		screen := screenOf(t, e, pane)
		if strings.Count(screen, "ERR-TRAP") != 2 {
			t.Fatalf("the ERR trap fired more than once per command on screen:\n%s", screen)
		}
		e.ok(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"C-l"}})
		e.ok(t, "run_shell_command", map[string]any{"paneId": pane, "command": "clear"})
	}
	e.ok(t, "run_shell_command", map[string]any{"paneId": pane, "command": "trap - ERR; set -x"})
	r := e.ok(t, "run_shell_command", map[string]any{"paneId": pane, "command": "echo traced-1\necho traced-2"})
	out := r.Str("output")
	for _, want := range []string{"+ echo traced-1\n", "traced-1\n", "+ echo traced-2\n", "traced-2\n"} {
		if !strings.Contains(out, want) {
			t.Fatalf("set -x output %q lacks %q", out, want)
		}
	}
	for _, bad := range []string{"__tmuxmcp", ".run", ".sh", "eval"} {
		if strings.Contains(out, bad) {
			t.Fatalf("set -x output shows the job script (%q): %q", bad, out)
		}
	}
}

// A typed command that removed the hooks and changed the prompt's text
// cannot be told from a builtin reading input: the refusal says both, and
// C-c, as it says, lets the next command put the hooks back.
func TestHooksRemovedWithANewPromptAreNamedInTheRefusalAndCtrlCRecovers(t *testing.T) {
	t.Parallel()
	e := homeEnv(t, "/bin/bash", map[string]string{".bashrc": "PS1='old\\$ '\n", ".profile": bashProfile})
	pane := readyPane(t, e)
	c := e.run(t, pane, "unset PROMPT_COMMAND; PS0=; PS1='new\\$ '")
	if w := e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": c, "patterns": []string{`new. $`}, "regex": true, "timeoutMs": 20000}); w.Str("outcome") != "matched" {
		t.Fatalf("no new prompt: %v", w)
	}
	r := e.call(t, "run_shell_command", map[string]any{"paneId": pane, "command": "echo too-soon", "waitMs": 10000})
	if !r.IsError || !strings.Contains(r.Text, "removed the shell integration's hooks") {
		t.Fatalf("the refusal does not name what the pane may be doing: %v", r)
	}
	e.ok(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"C-c"}})
	r = e.call(t, "run_shell_command", map[string]any{"paneId": pane, "command": "echo after-ctrl-c", "waitMs": 30000})
	if r.IsError || r.Str("output") != "after-ctrl-c\n" || !strings.Contains(r.Str("note"), "put them back") {
		t.Fatalf("after C-c: %v\n%s", r, screenOf(t, e, pane))
	}
	stillWorks(t, e, pane)
}
