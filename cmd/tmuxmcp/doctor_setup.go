package main

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tmuxmcp/tmuxmcp/engine"
	"github.com/tmuxmcp/tmuxmcp/httpmcp"
	"github.com/tmuxmcp/tmuxmcp/private"
)

// What doctor checks besides tmux and the shell: the state directory, the
// HTTP token and the --http port. Each check says what it found, and the
// fix when it is a problem.

// checkTmuxVersion accepts tmux 3.2 and later (3.3a is what is tested).
func checkTmuxVersion(v string) (bool, string) {
	f := strings.Fields(v) // "tmux 3.3a", "tmux next-3.4"
	if len(f) < 2 {
		return true, v
	}
	num := strings.TrimPrefix(f[1], "next-")
	major, minor, _ := strings.Cut(num, ".")
	ma, err1 := strconv.Atoi(major)
	mi, err2 := strconv.Atoi(strings.TrimRight(minor, "abcdefghijklmnopqrstuvwxyz-"))
	if err1 != nil || err2 != nil || ma > 3 || ma == 3 && mi >= 2 {
		return true, v
	}
	return false, v + " is older than 3.2, which tmuxmcp needs (control-mode pause-after, pane options); install a newer tmux"
}

// stateDirOf is the state directory tmuxmcp uses with c.
func stateDirOf(c *config) string {
	if c.stateDir != "" {
		return c.stateDir
	}
	return engine.DefaultStateDir()
}

// checkStateDir: the directory holds job records, command outputs and the
// token, so it must be writable and private: the checks tmuxmcp makes at
// start (engine.PrepareStateDir), without creating anything.
func checkStateDir(dir string) (bool, string) {
	err := private.Check(dir)
	if errors.Is(err, fs.ErrNotExist) {
		parent := filepath.Dir(dir) // the nearest directory that exists: tmuxmcp makes the rest
		for {
			if _, err := os.Stat(parent); err == nil || parent == filepath.Dir(parent) {
				break
			}
			parent = filepath.Dir(parent)
		}
		if err := private.CanHold(parent); err != nil {
			return false, fmt.Sprintf("%s does not exist, and tmuxmcp would refuse to make it there: %v; or pass --state-dir DIR", dir, err)
		}
		if err := writable(parent); err != nil {
			return false, fmt.Sprintf("%s does not exist and cannot be created (%v): create it with mkdir -m 700 -p %s, or pass --state-dir", dir, err, dir)
		}
		return true, dir + " (not created yet: tmuxmcp creates it with mode 0700 at its first start)"
	}
	if err == nil {
		err = private.Tree(dir)
	}
	if err != nil {
		return false, fmt.Sprintf("%v; or pass --state-dir DIR", err)
	}
	if err := writable(dir); err != nil {
		return false, fmt.Sprintf("%s is not writable (%v): fix its owner or pass --state-dir", dir, err)
	}
	st, _ := os.Stat(dir)
	return true, fmt.Sprintf("%s (yours, mode %04o, writable; no directory in it others may write)", dir, st.Mode().Perm())
}

// writable creates and removes a file in dir.
func writable(dir string) error {
	f, err := os.CreateTemp(dir, ".tmuxmcp-doctor-*")
	if err != nil {
		return err
	}
	name := f.Name()
	_ = f.Close()
	return os.Remove(name)
}

// checkToken looks at the bearer token --http would use, without
// creating one.
func checkToken(c *config, stateDir string) (bool, string) {
	if c.noAuth {
		return true, "none: --no-auth (loopback only)"
	}
	path := c.tokenFile
	if path == "" {
		if env := strings.TrimSpace(os.Getenv("TMUXMCP_TOKEN")); env != "" {
			if len(env) < httpmcp.MinToken {
				return false, fmt.Sprintf("$TMUXMCP_TOKEN has %d characters; it needs at least %d", len(env), httpmcp.MinToken)
			}
			return true, "$TMUXMCP_TOKEN"
		}
		path = httpmcp.TokenPath(stateDir)
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return true, "none yet: --http creates " + path + " (mode 0600)"
		}
	}
	if _, err := httpmcp.ReadToken(path); err != nil {
		if errors.Is(err, httpmcp.ErrShortToken) && c.tokenFile == "" {
			return true, path + " is too short to be a token: --http writes a new one"
		}
		var pe *private.Error
		if errors.As(err, &pe) {
			return false, err.Error() // it names the file
		}
		return false, path + ": " + err.Error()
	}
	return true, path + " (yours, mode 0600)"
}

// checkPort says whether --http's address can be listened on now.
func checkPort(addr string) (bool, string) {
	if addr == "" {
		return true, "no --http given (stdio); to check a port: tmuxmcp doctor --http 127.0.0.1:8765"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return false, fmt.Sprintf("--http %s cannot be listened on (%v): a tmuxmcp (or another program) already serves it — stop it, or pick another port", addr, err)
	}
	_ = ln.Close()
	return true, addr + " is free"
}
