package engine

import (
	"os"
	"path/filepath"
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
