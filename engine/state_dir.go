package engine

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/tmuxmcp/tmuxmcp/private"
)

// DefaultStateDir is where job records and state live without --state-dir.
func DefaultStateDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "tmuxmcp")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "tmuxmcp-state")
	}
	return filepath.Join(home, ".local", "state", "tmuxmcp")
}

// PrepareStateDir makes the state directory dir (mode 0700, with each
// missing parent) or checks the one there, and checks every directory in
// it (package private has the rules): a directory another user owns or
// may write, or a parent through which one could swap it, is refused with
// the path, the owner and mode found and the fix. Nothing is changed in a
// directory that is refused.
func PrepareStateDir(dir string) error {
	// Each error names the path at fault (dir, one inside or a parent).
	if err := private.Dir(dir); err != nil {
		return fmt.Errorf("state directory: %w", err)
	}
	if err := private.Tree(dir); err != nil {
		return fmt.Errorf("state directory: %w", err)
	}
	return nil
}
