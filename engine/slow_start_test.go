package engine

import (
	"os"
	"path/filepath"
	"testing"
)

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
