// Package testdir gives tests the directories they need beyond
// t.TempDir: one outside /tmp, and one of mode 0700. It knows nothing of
// tmux.
package testdir

import (
	"os"
	"testing"
)

// Outside is a new directory outside /tmp (a sandbox gives its panes a
// /tmp of their own, so what a test shares with a pane lives elsewhere),
// removed with the test; the test is skipped where there is no /var/tmp.
func Outside(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("/var/tmp", "tmuxmcp-test-")
	if err != nil {
		t.Skipf("no /var/tmp: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// Private is a new temporary directory of mode 0700 (t.TempDir's follows
// the umask), as tmuxmcp's private directories must be.
func Private(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	if err := os.Chmod(d, 0o700); err != nil {
		t.Fatal(err)
	}
	return d
}
