package engine

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/internal/tmuxtest"
	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/runner"
	"github.com/tmuxmcp/tmuxmcp/shell"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// needShell returns the path of name, skipping the test when it is not
// installed (failing under TMUXMCP_REQUIRE_SHELLS, as CI runs).
func needShell(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("TMUXMCP_REQUIRE_SHELLS") != "" {
			t.Fatalf("%s is not installed (TMUXMCP_REQUIRE_SHELLS is set)", name)
		}
		t.Skipf("%s is not installed", name)
	}
	return p
}

// shellServer is a host on a private server whose default-shell is sh
// and whose session's first pane tmuxmcp started with its launcher, as
// the embedded default does; program, when set, is --shell.
func shellServer(t *testing.T, sh, program string) *Host {
	t.Helper()
	// An empty ~/.yashrc is yash's bare default settings (without one it
	// greets and loads its common settings instead).
	home := homeWith(t, map[string]string{".tcshrc": "set prompt = '% '\n", ".yashrc": ""})
	if err := tmuxtest.DefaultRC(home); err != nil {
		t.Fatal(err)
	}
	return launcherServer(t, sh, program, home)
}

// homeWith is a fresh home directory holding files (name: body).
func homeWith(t *testing.T, files map[string]string) string {
	t.Helper()
	home := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(home, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

// launcherServer is a host on a private server with HOME home whose
// default-shell is sh and whose session's first pane tmuxmcp started with
// its launcher, as the embedded default does; program, when set, is
// --shell.
func launcherServer(t *testing.T, sh, program, home string) *Host {
	t.Helper()
	integ, err := shell.Install(filepath.Join(t.TempDir(), "shell"))
	if err != nil {
		t.Fatal(err)
	}
	argv, env, options, err := runner.SessionLaunchOf(integ, nil, program)
	if err != nil {
		t.Fatal(err)
	}
	target := tmuxtest.ServerWith(t, tmux.SessionSpec{Name: "agent", Width: 120, Height: 40, Command: argv, Env: env, PaneOptions: options}, home, "SHELL="+sh)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h, err := OpenHost(ctx, Config{Target: target, Session: "agent", StateDir: t.TempDir(), Shell: integ, ShellProgram: program})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(h.Close)
	return h
}

// saysWhatWorks checks that an error about a shell tmuxmcp cannot drive
// names the shells that work and both ways to switch.
func saysWhatWorks(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error", what)
	}
	for _, want := range []string{"tcsh", "cannot run commands in", "bash, zsh and fish", "dash", "--shell ", "set-option -g default-shell "} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: the error does not say %q: %v", what, want, err)
		}
	}
	if strings.Contains(err.Error(), "may still get there") || strings.Contains(err.Error(), "omit paneId") {
		t.Errorf("%s: the error suggests what fails the same way: %v", what, err)
	}
}

func TestATcshDefaultShellGetsOneErrorNamingTheShellsThatWorkAndHowToSwitch(t *testing.T) {
	t.Parallel()
	tcsh := needShell(t, "tcsh")
	h := shellServer(t, tcsh, "")
	wait := int64(20000)
	before := len(h.Recorded())
	_, err := h.CreatePane(t.Context(), nil, &CreatePaneRequest{WaitMs: &wait})
	saysWhatWorks(t, "create_pane", err)
	_, err = h.RunShellCommand(t.Context(), nil, &RunShellCommandRequest{Command: "echo hi", WaitMs: &wait})
	saysWhatWorks(t, "run_shell_command in a fresh pane", err)
	if got := len(h.Recorded()); got != before {
		t.Fatalf("the refusals created panes: %d panes, %d before", got, before)
	}
	if len(h.jobs.List()) != 0 {
		t.Fatal("a refused fresh-pane command left a job record")
	}
	// The session's first pane runs tcsh, started as a login shell.
	_, err = h.RunShellCommand(t.Context(), nil, &RunShellCommandRequest{Command: "echo hi", PaneID: ptr("%0"), WaitMs: &wait})
	saysWhatWorks(t, "run_shell_command in the tcsh pane", err)
	if _, err := h.TypeText(t.Context(), nil, &TypeTextRequest{PaneID: "%0", Text: "if ($?loginsh) echo LOGIN-$?loginsh", Submit: true}); err != nil {
		t.Fatal(err)
	}
	timeout := int64(20000)
	from := "ltxc1." + h.recording(0) + ".0"
	w, err := h.WaitForText(t.Context(), nil, &WaitForTextRequest{PaneID: "%0", Cursor: &from, Patterns: []string{"^LOGIN-1$"}, Regex: true, TimeoutMs: &timeout})
	if err != nil || w.Outcome != "matched" {
		t.Fatalf("tcsh is not a login shell: %+v %v", w, err)
	}
}

func TestTheShellFlagSwitchesTmuxmcpsPanesAwayFromTcsh(t *testing.T) {
	t.Parallel()
	tcsh := needShell(t, "tcsh")
	h := shellServer(t, tcsh, "/bin/bash")
	wait := int64(30000)
	for _, pane := range []*string{nil, ptr("%0")} {
		r, err := h.RunShellCommand(t.Context(), nil, &RunShellCommandRequest{Command: "echo $((6*7)) ${BASH_VERSION:+bash}", PaneID: pane, WaitMs: &wait})
		if err != nil || r.Status != string(jobs.Completed) || r.Output != "42 bash\n" {
			t.Fatalf("pane %v with --shell /bin/bash: %+v %v", deref(pane), r, err)
		}
	}
	p, err := h.CreatePane(t.Context(), nil, &CreatePaneRequest{WaitMs: &wait})
	if err != nil || p.Shell == nil || *p.Shell != "bash" || !p.Integrated {
		t.Fatalf("create_pane with --shell /bin/bash: %+v %v", p, err)
	}
}

func TestYashAtItsBarePromptTakesEveryCommandAtOnce(t *testing.T) {
	t.Parallel()
	yash := needShell(t, "yash")
	h := shellServer(t, yash, "")
	wait := int64(30000)
	var slowest time.Duration
	for i, c := range []struct {
		pane *string
		cmd  string
		out  string
	}{
		{ptr("%0"), "echo one", "one\n"},
		{ptr("%0"), "printf two", "two"},
		{ptr("%0"), "echo three", "three\n"},
		{nil, "echo fresh", "fresh\n"},
		{ptr("%0"), "cd /tmp", ""},
		{ptr("%0"), "pwd", "/tmp\n"},
		{nil, "printf fresh-no-newline", "fresh-no-newline"},
		{ptr("%0"), "echo last", "last\n"},
	} {
		start := time.Now()
		r, err := h.RunShellCommand(t.Context(), nil, &RunShellCommandRequest{Command: c.cmd, PaneID: c.pane, WaitMs: &wait})
		took := time.Since(start)
		slowest = max(slowest, took)
		if err != nil || r.Status != string(jobs.Completed) || r.Output != c.out {
			t.Fatalf("command %d %q in %v: %+v %v", i, c.cmd, deref(c.pane), r, err)
		}
		if took > 5*time.Second {
			t.Errorf("command %d %q took %v: the prompt was not taken for one", i, c.cmd, took)
		}
	}
	t.Logf("slowest command: %v", slowest)
}
