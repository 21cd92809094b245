package tools

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/internal/tmuxtest"
	"github.com/tmuxmcp/tmuxmcp/runner"
	"github.com/tmuxmcp/tmuxmcp/shell"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// jobNotice is a shell's report that a background job ended.
var jobNotice = regexp.MustCompile(`(?m)^(\[\d+\][ +-]*(Done|done|Exit|exit).*|fish: Job \d+, .* has ended|)\n`)

// rcCase is one user's shell configuration: a home directory from
// testdata/rc/<name> and the login shell that reads it.
type rcCase struct {
	name  string
	shell string
	// kind is the shell the panes end up in (bash, zsh, fish or sh).
	kind string
	// needs are programs or files the configuration uses (plugins,
	// direnv): without them the case is skipped, unless
	// TMUXMCP_REQUIRE_SHELLS=1 (CI), where it fails.
	needs []string
	// plain: the configuration leaves no room for tmuxmcp's marks (a
	// readonly PS1, prompt_percent off): its commands come in job scripts.
	plain bool
	// extra checks of what the configuration itself does.
	extra func(t *testing.T, m *matrix, pane string)
}

var (
	zshPlugins = []string{"/usr/bin/zsh", "/usr/share/zsh-autosuggestions/zsh-autosuggestions.zsh", "/usr/share/zsh-syntax-highlighting/zsh-syntax-highlighting.zsh"}
	rcCases    = []rcCase{
		{name: "bash-debian-skel", shell: "/bin/bash", kind: "bash"},
		{name: "bash-pyenv", shell: "/bin/bash", kind: "bash", extra: func(t *testing.T, m *matrix, pane string) {
			// The user's own PROMPT_COMMAND hook still runs at every prompt.
			a := m.ok(t, pane, "echo $PYENV_HOOK_RAN")
			b := m.ok(t, pane, "echo $PYENV_HOOK_RAN")
			if a.Str("output") == b.Str("output") || strings.TrimSpace(a.Str("output")) == "" {
				t.Fatalf("the pyenv hook did not run between prompts: %q then %q", a.Str("output"), b.Str("output"))
			}
		}},
		{name: "bash-history-sync", shell: "/bin/bash", kind: "bash"},
		{name: "bash-prompt-array", shell: "/bin/bash", kind: "bash"},
		{name: "bash-strict", shell: "/bin/bash", kind: "bash"},
		{name: "bash-errexit", shell: "/bin/bash", kind: "bash"},
		{name: "bash-preexec-hooks", shell: "/bin/bash", kind: "bash", extra: func(t *testing.T, m *matrix, pane string) {
			m.ok(t, pane, "echo hooked")
			// The result comes at the command's end mark; the hooks of
			// the prompt after it run a moment later.
			var log []byte
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
				if log, _ = os.ReadFile(filepath.Join(m.home, ".command-log")); strings.Contains(string(log), "start echo hooked") {
					break
				}
			}
			if !strings.Contains(string(log), "start echo hooked") || !strings.Contains(string(log), "end 0") {
				t.Fatalf("the user's preexec/precmd hooks did not run: %q", log)
			}
		}},
		{name: "bash-vi-mode", shell: "/bin/bash", kind: "bash"},
		{name: "bash-two-line-git", shell: "/bin/bash", kind: "bash", needs: []string{"git"}},
		{name: "bash-direnv", shell: "/bin/bash", kind: "bash", needs: []string{"direnv"}, extra: func(t *testing.T, m *matrix, pane string) {
			m.ok(t, pane, "cd "+filepath.Join(m.home, "project"))
			if r := m.ok(t, pane, "echo $DIRENV_LOADED"); r.Str("output") != "from-envrc\n" {
				t.Fatalf("direnv's hook did not load .envrc: %v", r)
			}
		}},
		{name: "bash-arrow-prompt", shell: "/bin/bash", kind: "bash"},
		{name: "bash-slow-rc", shell: "/bin/bash", kind: "bash"},
		{name: "bash-banner", shell: "/bin/bash", kind: "bash"},
		{name: "bash-no-bracketed-paste", shell: "/bin/bash", kind: "bash"},
		{name: "bash-terminal-osc133", shell: "/bin/bash", kind: "bash"},
		{name: "bash-exec-zsh", shell: "/bin/bash", kind: "zsh", needs: []string{"/usr/bin/zsh"}},
		{name: "bash-exec-dash", shell: "/bin/bash", kind: "sh"},
		{name: "bash-starship-like", shell: "/bin/bash", kind: "bash", extra: func(t *testing.T, m *matrix, pane string) {
			// PS0's own output is not the command's.
			if r := m.ok(t, pane, "echo only-this"); r.Str("output") != "only-this\n" {
				t.Fatalf("PS0's text leaked into the output: %v", r)
			}
		}},
		{name: "bash-slow-prompt", shell: "/bin/bash", kind: "bash"},
		{name: "bash-cat-alias", shell: "/bin/bash", kind: "bash"},
		{name: "bash-cd-lists", shell: "/bin/bash", kind: "bash"},
		{name: "bash-exported-prompt", shell: "/bin/bash", kind: "bash", extra: func(t *testing.T, m *matrix, pane string) {
			// A shell started from this one inherits PROMPT_COMMAND and PS1
			// naming nothing it lacks: no error, and none of our marks.
			r := m.ok(t, pane, `bash -c 'eval "$PROMPT_COMMAND"; printf "[%s]" "${PS1@P}"' 2>&1 | od -c | grep -c -e 033 -e 'not found'`)
			if r.Str("output") != "0\n" {
				t.Fatalf("a shell started inside inherited our marks or hooks: %v", r)
			}
		}},
		{name: "bash-notify", shell: "/bin/bash", kind: "bash", extra: func(t *testing.T, m *matrix, pane string) {
			// The notice comes under the prompt, which is not drawn again.
			r := m.ok(t, pane, "sleep 0.2 &")
			w := m.e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "patterns": []string{"Done"}, "cursor": r.Str("cursor"), "timeoutMs": 20000})
			if w.Str("outcome") != "matched" {
				t.Fatalf("no job notice: %v", w)
			}
			m.want(t, pane, "echo after-notice", "after-notice\n")
		}},
		{name: "bash-right-clock", shell: "/bin/bash", kind: "bash"},
		{name: "bash-readonly-prompt", shell: "/bin/bash", kind: "bash", plain: true},
		{name: "zsh-ohmyzsh-like", shell: "/usr/bin/zsh", kind: "zsh", needs: zshPlugins},
		{name: "zsh-powerlevel9k", shell: "/usr/bin/zsh", kind: "zsh", needs: []string{"/usr/bin/zsh", "/usr/share/powerlevel9k/powerlevel9k.zsh-theme"}},
		{name: "zsh-correct", shell: "/usr/bin/zsh", kind: "zsh", needs: []string{"/usr/bin/zsh"}},
		{name: "zsh-vi-mode", shell: "/usr/bin/zsh", kind: "zsh", needs: []string{"/usr/bin/zsh"}},
		{name: "zsh-two-line-rprompt", shell: "/usr/bin/zsh", kind: "zsh", needs: []string{"/usr/bin/zsh"}},
		{name: "zsh-zdotdir", shell: "/usr/bin/zsh", kind: "zsh", needs: []string{"/usr/bin/zsh"}, extra: func(t *testing.T, m *matrix, pane string) {
			if r := m.ok(t, pane, "echo $FROM_ZPROFILE $FROM_ZSHRC ${ZDOTDIR#$HOME}"); r.Str("output") != "yes yes /.config/zsh\n" {
				t.Fatalf("the user's files under ZDOTDIR were not read as zsh reads them: %v", r)
			}
		}},
		{name: "zsh-async-prompt", shell: "/usr/bin/zsh", kind: "zsh", needs: []string{"/usr/bin/zsh"}},
		{name: "zsh-chpwd-ls", shell: "/usr/bin/zsh", kind: "zsh", needs: []string{"/usr/bin/zsh"}},
		{name: "zsh-zlogin-hooks", shell: "/usr/bin/zsh", kind: "zsh", needs: []string{"/usr/bin/zsh"}},
		{name: "zsh-precmd-no-prompt-sp", shell: "/usr/bin/zsh", kind: "zsh", needs: []string{"/usr/bin/zsh"}},
		{name: "fish-default", shell: "/usr/bin/fish", kind: "fish", needs: []string{"/usr/bin/fish"}},
		{name: "fish-custom", shell: "/usr/bin/fish", kind: "fish", needs: []string{"/usr/bin/fish"}, extra: func(t *testing.T, m *matrix, pane string) {
			if r := m.ok(t, pane, "echo $__plugin_prompts"); strings.TrimSpace(r.Str("output")) == "" {
				t.Fatalf("the user's fish_prompt event handler did not run: %v", r)
			}
		}},
		{name: "fish-vi-mode", shell: "/usr/bin/fish", kind: "fish", needs: []string{"/usr/bin/fish"}},
		{name: "fish-exec-events", shell: "/usr/bin/fish", kind: "fish", needs: []string{"/usr/bin/fish"}},
		{name: "fish-pwd-ls", shell: "/usr/bin/fish", kind: "fish", needs: []string{"/usr/bin/fish"}},
		{name: "dash-env", shell: "/bin/dash", kind: "sh"},
		{name: "dash-errexit", shell: "/bin/dash", kind: "sh"},
		{name: "dash-odd-prompt", shell: "/bin/dash", kind: "sh"},
		{name: "sh-plain", shell: "/bin/sh", kind: "sh"},
		{name: "mksh-plain", shell: "/usr/bin/mksh", kind: "sh", needs: []string{"/usr/bin/mksh"}},
		// An empty ~/.yashrc: yash's bare defaults, its line editor drawing
		// a reverse-video $ and a row of blanks before each prompt.
		{name: "yash-bare", shell: "/usr/bin/yash", kind: "sh", needs: []string{"/usr/bin/yash"}},
	}
)

// matrix is one configuration's world: its home, a private tmux server
// started the way tmuxmcp starts its own (the session's first pane runs
// the integrated shell), and tmuxmcp's handlers on it.
type matrix struct {
	e    *env
	c    rcCase
	home string
	// readyWaits collects how long jobs waited for their next prompt.
	mu         sync.Mutex
	readyWaits []time.Duration
}

func (m *matrix) fish() bool { return m.c.kind == "fish" }

// ok runs command in pane (or a fresh pane when pane is "") and fails on a
// tool error or a status other than completed.
func (m *matrix) ok(t *testing.T, pane, command string, extra ...any) result {
	t.Helper()
	args := map[string]any{"command": command, "waitMs": 60000, "outputLimit": 65536}
	if pane != "" {
		args["paneId"] = pane
	}
	for i := 0; i+1 < len(extra); i += 2 {
		args[extra[i].(string)] = extra[i+1]
	}
	r := m.e.call(t, "run_shell_command", args)
	if r.IsError {
		t.Fatalf("%q: refused: %s%s", short(command), r.Text, m.screen(t, pane))
	}
	if r.Str("status") != "completed" {
		t.Fatalf("%q: %v%s", short(command), r, m.screen(t, r.Str("paneId")))
	}
	// Completion means ready: the shell is back at its prompt, reading.
	if pane != "" && r.M["shellReady"] != true {
		t.Fatalf("%q completed, but its shell was not ready: %v%s", short(command), r, m.screen(t, pane))
	}
	if j, ok := m.e.h.Job(r.Str("jobId")); ok {
		m.mu.Lock()
		m.readyWaits = append(m.readyWaits, time.Duration(j.ReadyWaitMs)*time.Millisecond)
		m.mu.Unlock()
	}
	return r
}

func (m *matrix) want(t *testing.T, pane, command, output string, extra ...any) result {
	t.Helper()
	r := m.ok(t, pane, command, extra...)
	if r.Str("output") != output {
		t.Fatalf("%q: output %q, want %q (%v)%s", short(command), short(r.Str("output")), short(output), r, m.screen(t, r.Str("paneId")))
	}
	return r
}

// screen shows the last rows of a pane, for a failure message.
func (m *matrix) screen(t *testing.T, pane string) string {
	if pane == "" {
		return ""
	}
	c := m.e.call(t, "capture_pane", map[string]any{"paneId": pane})
	if c.IsError {
		return ""
	}
	rows := strings.Split(strings.TrimRight(c.Str("screen"), "\n"), "\n")
	return "\npane " + pane + " shows:\n  " + strings.Join(rows[max(0, len(rows)-8):], "\n  ")
}

func short(s string) string {
	if len(s) > 300 {
		return s[:150] + fmt.Sprintf("…(%d bytes)…", len(s)-300) + s[len(s)-150:]
	}
	return s
}

// matrixStats gathers what the closing note reports across configurations.
type matrixStats struct {
	mu        sync.Mutex
	cases     int
	maxReady  time.Duration
	maxConfig string
}

// TestEveryShellConfiguration runs the same checks through the MCP tools
// against real users' kinds of shell configuration (testdata/rc): bash
// (Debian's skeleton, pyenv, history sync, PROMPT_COMMAND arrays, set -u,
// set -e, preexec hooks, vi mode, a two-line git prompt, direnv, an arrow
// prompt, a slow rc, a banner, no bracketed paste, a terminal's own OSC
// 133 marks, a .bashrc that execs zsh, one that execs dash, a starship-like
// prompt, a slow prompt, cat aliased to a missing program, a cd that lists
// the directory, exported prompt settings, set -b job notices, a
// right-hand clock drawn with cursor save and restore, a readonly PS1), zsh
// (an oh-my-zsh-like setup with autosuggestions and syntax highlighting,
// powerlevel9k, setopt correct, vi mode, two lines with a right prompt,
// ZDOTDIR, an async prompt redrawn with zle reset-prompt, a chpwd that
// lists the directory, a .zlogin that resets the hook arrays, a precmd
// function that prints with PROMPT_SP off), fish
// (default, customised, vi mode, preexec and postexec handlers that print,
// a PWD handler that lists the directory), and dash (with ENV, under set
// -e, with a prompt ending in no usual character), sh, mksh and yash (its
// bare defaults).
func TestEveryShellConfiguration(t *testing.T) {
	t.Parallel()
	stats := &matrixStats{}
	t.Cleanup(func() {
		t.Logf("configurations run: %d; largest wait for the next prompt after a command's end: %v (%s)", stats.cases, stats.maxReady, stats.maxConfig)
	})
	for _, c := range rcCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m := newMatrix(t, c)
			runChecks(t, m)
			stats.mu.Lock()
			defer stats.mu.Unlock()
			stats.cases++
			for _, w := range m.readyWaits {
				if w > stats.maxReady {
					stats.maxReady, stats.maxConfig = w, c.name
				}
			}
		})
	}
}

func newMatrix(t *testing.T, c rcCase) *matrix {
	t.Helper()
	for _, need := range append([]string{c.shell}, c.needs...) {
		if _, err := os.Stat(need); err == nil {
			continue
		}
		if _, err := exec.LookPath(need); err == nil {
			continue
		}
		if os.Getenv("TMUXMCP_REQUIRE_SHELLS") != "" {
			t.Fatalf("%s is not installed (TMUXMCP_REQUIRE_SHELLS is set)", need)
		}
		t.Skipf("%s is not installed", need)
	}
	home := t.TempDir()
	if err := copyTree(filepath.Join("..", "testdata", "rc", c.name), home); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(home, "work"), 0o700); err != nil {
		t.Fatal(err)
	}
	if c.name == "bash-direnv" {
		cmd := exec.Command("direnv", "allow", filepath.Join(home, "project"))
		cmd.Env = append(tmuxtest.Env(home), "XDG_DATA_HOME="+filepath.Join(home, ".local", "share"))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("direnv allow: %v: %s", err, out)
		}
	}
	state := t.TempDir()
	integ, err := shell.Install(filepath.Join(state, "shell"))
	if err != nil {
		t.Fatal(err)
	}
	argv, env, options, _ := runner.SessionLaunch(integ, nil)
	spec := tmux.SessionSpec{Name: "agent", Width: 120, Height: 40, Command: argv, Env: env, PaneOptions: options}
	target := tmuxtest.ServerWith(t, spec, home, "SHELL="+c.shell)
	return &matrix{e: newEnv(t, envOptions{target: &target, stateDir: state}), c: c, home: home}
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o700)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o600)
	})
}

// runChecks is the same list of checks for every configuration; each
// subtest is one check, run in order on the same panes, with no retry.
func runChecks(t *testing.T, m *matrix) {
	first, pane := m.checkPanes(t)
	m.checkCommands(t, pane)
	m.checkTyping(t, pane)
	m.checkBackground(t, pane)
	m.checkPromptsClean(t, first, pane)
}

// checkPanes checks the session's first pane and a new one, and returns
// both.
func (m *matrix) checkPanes(t *testing.T) (first, pane string) {
	e := m.e
	for _, p := range e.ok(t, "list_panes", map[string]any{}).M["panes"].([]any) {
		if pm := p.(map[string]any); pm["windowIndex"] == float64(0) {
			first = pm["paneId"].(string)
		}
	}
	if first == "" {
		t.Fatal("no first pane")
	}
	t.Run("the session's first pane runs the integrated shell", func(t *testing.T) {
		r := m.want(t, first, "echo first-pane", "first-pane\n")
		if r.Str("shell") != m.c.kind {
			t.Fatalf("shell %q, want %q: %v", r.Str("shell"), m.c.kind, r)
		}
	})
	cr := e.ok(t, "create_pane", map[string]any{})
	pane = cr.Str("paneId")
	t.Run("create_pane returns a ready shell", func(t *testing.T) {
		if cr.M["ready"] != true || cr.Str("shell") == "" {
			t.Fatalf("create_pane: %v", cr)
		}
		if integrated := m.c.kind != "sh" && !m.c.plain; cr.M["integrated"] != integrated {
			t.Fatalf("integrated %v, want %v: %v", cr.M["integrated"], integrated, cr)
		}
	})
	return first, pane
}

// checkCommands runs commands of every shape in pane.
func (m *matrix) checkCommands(t *testing.T, pane string) {
	t.Run("exit codes 0 1 3", func(t *testing.T) {
		for cmd, code := range map[string]int64{"true": 0, "false": 1, "sh -c 'exit 3'": 3} {
			if r := m.ok(t, pane, cmd); r.M["exitCode"] == nil || r.Num("exitCode") != code {
				t.Fatalf("%s: %v", cmd, r)
			}
		}
	})
	t.Run("cd and export persist", func(t *testing.T) {
		work := filepath.Join(m.home, "work")
		m.want(t, pane, "cd "+work+" && export TMUXMCP_T=42", "")
		m.want(t, pane, "pwd; echo $TMUXMCP_T", work+"\n42\n")
	})
	t.Run("quotes dollars backslashes and bangs arrive intact", func(t *testing.T) {
		m.want(t, pane, `printf '%s\n' 'a"b$c\d!e' "it's"`, "a\"b$c\\d!e\nit's\n")
	})
	t.Run("a multi-line script", func(t *testing.T) {
		script := "x=1\nfor i in 1 2; do\n  echo \"$i$x\"\ndone"
		if m.fish() {
			script = "set x 1\nfor i in 1 2\n  echo $i$x\nend"
		}
		m.want(t, pane, script, "11\n21\n")
	})
	t.Run("a 20000-character line", func(t *testing.T) {
		long := strings.Repeat("y", 20000)
		r := m.want(t, pane, "echo "+long, long+"\n")
		if r.Num("outputBytes") != 20001 {
			t.Fatalf("outputBytes %d", r.Num("outputBytes"))
		}
	})
	t.Run("output without a trailing newline", func(t *testing.T) {
		m.want(t, pane, "printf abc", "abc")
	})
	t.Run("stderr", func(t *testing.T) {
		m.want(t, pane, "echo err-line 1>&2", "err-line\n")
	})
	t.Run("ten back-to-back calls", func(t *testing.T) {
		for i := range 10 {
			m.want(t, pane, fmt.Sprintf("echo bb%d", i), fmt.Sprintf("bb%d\n", i))
		}
	})
}

// checkTyping mixes typed input and commands in pane.
func (m *matrix) checkTyping(t *testing.T, pane string) {
	e := m.e
	t.Run("type_text and wait_for_text straight after a command match the printed line", func(t *testing.T) {
		m.ok(t, pane, "true")
		mark := fmt.Sprintf("typed-MARK-%d", time.Now().UnixNano()%100000)
		c := e.ok(t, "type_text", map[string]any{"paneId": pane, "text": "echo " + mark, "submit": true}).Str("cursor")
		w := e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": c, "patterns": []string{mark}, "timeoutMs": 20000})
		if w.Str("outcome") != "matched" {
			t.Fatalf("wait: %v%s", w, m.screen(t, pane))
		}
		after := e.ok(t, "capture_since", map[string]any{"paneId": pane, "cursor": w.Str("cursor")})
		if strings.Contains(after.Str("output"), mark) {
			t.Fatalf("the wait matched the echo of the typed line, not the printed line: after it came %q", short(after.Str("output")))
		}
		// Typed again the moment the output came (the shell may still be
		// drawing its prompt): it is read once, as typed.
		mark2 := mark + "-again"
		c = e.ok(t, "type_text", map[string]any{"paneId": pane, "text": "echo " + mark2, "submit": true}).Str("cursor")
		w = e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": c, "patterns": []string{"^" + mark2 + "$"}, "regex": true, "timeoutMs": 20000})
		if w.Str("outcome") != "matched" {
			t.Fatalf("typed right after output: %v%s", w, m.screen(t, pane))
		}
		// The typed command ran outside a job: the pane is usable at once.
		m.want(t, pane, "echo after-typed", "after-typed\n")
	})
	t.Run("a command reading input stays running until it is answered", func(t *testing.T) {
		r := e.runCmd(t, map[string]any{"paneId": pane, "command": "read x; echo got-$x", "waitMs": 1500})
		if r.Str("status") != "running" {
			t.Fatalf("a command waiting in read was reported %v%s", r, m.screen(t, pane))
		}
		e.ok(t, "type_text", map[string]any{"paneId": pane, "text": "zed", "submit": true})
		a := e.ok(t, "await_command_result", map[string]any{"jobId": r.Str("jobId"), "waitMs": 20000})
		if a.Str("status") != "completed" || !strings.HasSuffix(a.Str("output"), "got-zed\n") || a.Num("exitCode") != 0 {
			t.Fatalf("after the answer: %v%s", a, m.screen(t, pane))
		}
	})
	t.Run("the cwd argument runs the command there and returns only its output", func(t *testing.T) {
		other := filepath.Join(m.home, "other")
		if err := os.MkdirAll(other, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(other, "a-file"), nil, 0o600); err != nil {
			t.Fatal(err)
		}
		m.want(t, pane, "pwd", other+"\n", "cwd", other)
	})
}

// checkBackground checks background jobs, fresh and cold panes and the
// configuration's own hooks.
func (m *matrix) checkBackground(t *testing.T, pane string) {
	e := m.e
	t.Run("a background job that ends during the next command leaves the one after alone", func(t *testing.T) {
		m.ok(t, pane, "sleep 0.2 &")
		m.ok(t, pane, "sleep 1")
		m.want(t, pane, "echo after-bg", "after-bg\n")
	})
	t.Run("what a background job prints at the prompt is seen by wait_for_text", func(t *testing.T) {
		r := m.ok(t, pane, "sh -c 'sleep 0.3; echo bg-line-$((6*7))' &")
		w := e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": r.Str("cursor"), "patterns": []string{"bg-line-42"}, "timeoutMs": 20000})
		if w.Str("outcome") != "matched" {
			t.Fatalf("the background job's line was not seen: %v%s", w, m.screen(t, pane))
		}
		// The shell may report the job's end in the next command's output
		// (bash with a DEBUG trap, as bash-preexec sets, does; so does
		// fish): that is all that may come with it.
		r = m.ok(t, pane, "echo after-bg-line")
		if out := jobNotice.ReplaceAllString(r.Str("output"), ""); out != "after-bg-line\n" {
			t.Fatalf("output %q, want %q: %v", r.Str("output"), "after-bg-line\n", r)
		}
	})
	t.Run("a fresh pane", func(t *testing.T) {
		m.want(t, "", "echo fresh-pane", "fresh-pane\n")
	})
	t.Run("a cold pane used at once", func(t *testing.T) {
		cold := e.ok(t, "create_pane", map[string]any{"waitMs": 0})
		m.want(t, cold.Str("paneId"), "echo cold-pane", "cold-pane\n")
	})
	if m.c.extra != nil {
		t.Run("the configuration's own hooks keep working", func(t *testing.T) { m.c.extra(t, m, pane) })
	}
}

// checkPromptsClean checks that no error appeared at any prompt of the
// panes used.
func (m *matrix) checkPromptsClean(t *testing.T, first, pane string) {
	e := m.e
	t.Run("no error appeared at any prompt", func(t *testing.T) {
		for _, p := range []string{first, pane} {
			c := e.ok(t, "capture_since", map[string]any{"paneId": p, "maxBytes": 65536})
			for _, bad := range []string{"syntax error", "command not found", "unbound variable", "bad substitution", "parse error", "Unknown command", "No such file"} {
				if strings.Contains(c.Str("output"), bad) {
					i := strings.Index(c.Str("output"), bad)
					t.Fatalf("pane %s shows %q: …%q…", p, bad, c.Str("output")[max(0, i-200):min(len(c.Str("output")), i+100)])
				}
			}
		}
	})
}

func TestCommandsRunInANestedShell(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	pane, c := e.shell(t)
	c = e.run(t, pane, "PS1='nested$ ' bash --norc")
	e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": c, "patterns": []string{"nested$ "}, "timeoutMs": 20000})
	r := e.runCmd(t, map[string]any{"paneId": pane, "command": "echo hi", "waitMs": 10000})
	if r.Str("status") != "completed" || r.Str("output") != "hi\n" {
		t.Fatalf("nested bash: %v", r)
	}
}

func TestCommandsRunAfterZshPromptsOfManyShapes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{shell: "/bin/zsh"})
	pane, _ := e.shell(t)
	for _, set := range []string{"RPROMPT=right", "RPROMPT=; PS1='%~: '", "PS1='λ '"} {
		c := e.run(t, pane, set)
		e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": c, "timeoutMs": 5000})
		r := e.call(t, "run_shell_command", map[string]any{"paneId": pane, "command": "echo hi"})
		if r.IsError || r.Str("output") != "hi\n" {
			t.Fatalf("after %s: %v", set, r)
		}
	}
}

func TestCommandsRunUnderUserStartupFilesAndDynamicPrompts(t *testing.T) {
	t.Parallel()
	e := homeEnv(t, "/bin/bash", map[string]string{".bashrc": "export RC=bash-rc\nPROMPT_COMMAND='PS1=\"\\w \\$ \"'\n",
		".profile": "[ -f ~/.bashrc ] && . ~/.bashrc\n"})
	r := e.runCmd(t, map[string]any{"command": "echo $RC", "waitMs": 30000})
	if r.Str("status") != "completed" || r.Str("output") != "bash-rc\n" {
		t.Fatalf("bash with a dynamic PS1: %v", r)
	}
	z := homeEnv(t, "/bin/zsh", map[string]string{
		".zshenv":            "ZDOTDIR=$HOME/.config/zsh\n",
		".config/zsh/.zshrc": "export RC=zsh-rc\nprecmd() { false }\n",
	})
	r = z.runCmd(t, map[string]any{"command": "echo $RC", "waitMs": 30000})
	if r.Str("output") != "zsh-rc\n" {
		t.Fatalf("zsh with ZDOTDIR set in .zshenv: %v", r)
	}
	r = z.runCmd(t, map[string]any{"command": "true", "waitMs": 30000})
	if r.Num("exitCode") != 0 {
		t.Fatalf("a user precmd spoiled the status: %v", r)
	}
}
