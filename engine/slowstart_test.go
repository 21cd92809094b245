package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/jobs"
)

// slowProfile is a login profile that starts slowly, as a user's does:
// it prints a line (as /etc/profile does for a user without a login
// name), runs a program, then works in a subshell (as yash's greeting
// does without ~/.yashrc: under job control a group of its own, led by a
// fork of the shell) and in the shell itself. Between those the shell
// stands idle in front of its terminal below an empty line, and a line
// typed then is read ahead of its prompt.
const slowProfile = `PS1='@vm ~ $ '
echo 'logname: no login name'
sleep 0.3
( echo 'Welcome!'; i=0; while [ "$i" -lt 30000 ]; do i=$((i+1)); done )
i=0; while [ "$i" -lt 30000 ]; do i=$((i+1)); done; unset i
`

// slowBuiltins is a login profile whose slow part is the shell's own
// builtins after a line it printed.
const slowBuiltins = `PS1='@vm ~ $ '
echo 'logname: no login name'
i=0; while [ "$i" -lt 60000 ]; do i=$((i+1)); done; unset i
`

// slowShellServer is shellServer with home holding files (name: body)
// and nothing else of the shells' own.
func slowShellServer(t *testing.T, sh string, files map[string]string) *Host {
	t.Helper()
	return launcherServer(t, sh, "", homeWith(t, files))
}

// typedAhead names a row of the pane's screen where the job's line
// stands alone, before the shell's prompt was drawn (the terminal echoed
// it while the shell still started), or "".
func typedAhead(t *testing.T, h *Host, pane string) string {
	t.Helper()
	c, err := h.CapturePane(t.Context(), nil, &CapturePaneRequest{PaneID: pane})
	if err != nil {
		t.Fatalf("capture %s: %v", pane, err)
	}
	for _, row := range strings.Split(c.Screen, "\n") {
		if strings.HasPrefix(strings.TrimSpace(row), ". '") {
			return row
		}
	}
	return ""
}

func TestAFreshPaneOfAShellWithoutMarksWaitsForItsPromptThroughASlowStart(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, program string
		files         map[string]string
	}{
		// yash greets from a subshell and loads its sample settings
		// without ~/.yashrc: its prompt is "@vm ~ $ " or so.
		{"yash-greeting", "yash", map[string]string{".yash_profile": slowProfile}},
		{"yash-bare", "yash", map[string]string{".yash_profile": slowProfile, ".yashrc": "PS1='@vm ~ $ '\n"}},
		{"dash", "dash", map[string]string{".profile": slowProfile}},
		{"mksh", "mksh", map[string]string{".profile": slowProfile}},
		{"ksh", "ksh", map[string]string{".profile": slowProfile}},
		// Only the shell's own work, no subshell: it is in its own group
		// all along, and idle below an empty line while it runs builtins.
		{"dash-builtins", "dash", map[string]string{".profile": slowBuiltins}},
		{"yash-builtins", "yash", map[string]string{".yash_profile": slowBuiltins, ".yashrc": "PS1='@vm ~ $ '\n"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := slowShellServer(t, needShell(t, c.program), c.files)
			wait := int64(20000)
			for i := range 3 {
				start := time.Now()
				r, err := h.RunShellCommand(t.Context(), nil, &RunShellCommandRequest{Command: "echo hi " + string(rune('0'+i)), WaitMs: &wait, Keep: true})
				took := time.Since(start)
				if err != nil || r.Status != string(jobs.Completed) || r.Output != "hi "+string(rune('0'+i))+"\n" || r.PaneID == nil {
					t.Fatalf("command %d took %v: %+v %v", i, took, r, err)
				}
				if took > 10*time.Second {
					t.Errorf("command %d took %v: the end was not seen at the prompt", i, took)
				}
				if row := typedAhead(t, h, *r.PaneID); row != "" {
					t.Errorf("command %d: its line was typed before the shell's prompt: %q", i, row)
				}
			}
		})
	}
}

// A login shell whose startup files run programs before the first prompt
// (Debian's /etc/profile runs id -u; a slow check, a sleep) is starting,
// not busy: create_pane waits for its first prompt.
func TestCreatePaneWaitsOutProgramsTheStartupFilesRun(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	profile := "i=0\nwhile [ $i -lt 30 ]; do id -u >/dev/null; i=$((i+1)); done\nsleep 1\nid -u >/dev/null\nsleep 1\nPS1='slow-start\\$ '\n"
	if err := os.WriteFile(filepath.Join(home, ".bash_profile"), []byte(profile), 0o600); err != nil {
		t.Fatal(err)
	}
	h, _ := ownServer(t, home, nil, false)
	pane := newShell(t, h)
	wait := int64(30000)
	r, err := h.RunShellCommand(t.Context(), nil, &RunShellCommandRequest{Command: "echo after-start", PaneID: &pane, WaitMs: &wait})
	if err != nil || r.Output != "after-start\n" {
		t.Fatalf("after the slow start: %+v %v", r, err)
	}
}
