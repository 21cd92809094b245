// Package machine is the computer a tmux server's panes run on, as the
// rooms above see it: what a terminal's processes are doing (a probe),
// signals to them, and the small private files job scripts and approval
// popups need. Local is this machine; package host provides one reached
// over SSH. It knows nothing of tmux, MCP, jobs or streams.
package machine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/tmuxmcp/tmuxmcp/private"
	"github.com/tmuxmcp/tmuxmcp/shell"
)

// Machine is the computer a tmux server's panes run on: this one, or a
// host reached over SSH (package host). The runner asks it everything
// that needs the panes' own processes and files: what a terminal's
// processes are doing, signals to them, and the job scripts a shell
// sources. Job records and outputs stay on tmuxmcp's machine.
type Machine interface {
	// Probe inspects the terminal tty of the pane whose first process is
	// pid (shell.ProbePane, where the pane runs).
	Probe(pid int, tty string) (shell.Probe, error)
	// Signal sends sig to process pid, or to the process group -pid when
	// pid is negative (syscall.Kill's convention). A process or group that
	// no longer exists is syscall.ESRCH.
	Signal(pid int, sig syscall.Signal) error
	// ScriptPath is the path, on the machine, of job id's script file with
	// suffix (".sh" the command, ".run" the script, ".rc" its status).
	ScriptPath(id, suffix string) string
	// WriteFile creates the new private file path (mode 0600) on the
	// machine, making its directory (0700) when missing. It fails when
	// anything is at path already (nothing there is followed or reused),
	// so a file another process put in place is never what runs.
	WriteFile(ctx context.Context, path string, data []byte) error
	// ReadFile reads a small file tmuxmcp made on the machine (a job's
	// status file): a regular file, never through a link, at most
	// MaxReadFile bytes (fs.ErrNotExist when missing). A sandboxed pane
	// can replace its own job's files: a link to /dev/zero, a FIFO or a
	// huge file is an error, never a hang or a read without bound.
	ReadFile(ctx context.Context, path string) ([]byte, error)
	// Remove deletes files on the machine, ignoring missing ones.
	Remove(ctx context.Context, paths ...string)
	// Stat says whether path is a directory and executable there
	// (fs.ErrNotExist when it does not exist).
	Stat(ctx context.Context, path string) (FileInfo, error)
	// ResolveDir is the directory dir with its symbolic links resolved on
	// the machine; for a directory that does not exist yet, its parent's
	// resolved with the last element joined. An error says neither could
	// be resolved there.
	ResolveDir(ctx context.Context, dir string) (string, error)
}

// FileInfo is what Machine.Stat says of a path.
type FileInfo struct {
	Dir  bool // a directory
	Exec bool // some execute bit is set
}

// Local is the machine tmuxmcp runs on; its job scripts live in Dir (the
// job store's directory).
type Local struct{ Dir string }

// Probe reads /proc and the terminal's mode.
func (Local) Probe(pid int, tty string) (shell.Probe, error) { return shell.ProbePane(pid, tty) }

// Signal is kill(2).
func (Local) Signal(pid int, sig syscall.Signal) error { return syscall.Kill(pid, sig) }

// ScriptPath is Dir/ID+suffix.
func (l Local) ScriptPath(id, suffix string) string { return filepath.Join(l.Dir, id+suffix) }

// WriteFile creates path exclusively (private.Create), making its
// directory a private one first when it is missing.
func (Local) WriteFile(_ context.Context, path string, data []byte) error {
	if _, err := os.Lstat(filepath.Dir(path)); errors.Is(err, fs.ErrNotExist) {
		if err := private.Dir(filepath.Dir(path)); err != nil {
			return err
		}
	}
	return private.Create(path, data)
}

// ReadFile is os.ReadFile.
func (Local) ReadFile(_ context.Context, path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("read %s: not a regular file (%s)", path, st.Mode().Type())
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxReadFile+1))
	if err == nil && len(b) > MaxReadFile {
		return nil, fmt.Errorf("read %s: over %d bytes", path, MaxReadFile)
	}
	return b, err
}

// MaxReadFile bounds what ReadFile reads.
const MaxReadFile = 4096

// Stat is os.Stat.
func (Local) Stat(_ context.Context, path string) (FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return FileInfo{}, err
	}
	return FileInfo{Dir: st.IsDir(), Exec: st.Mode()&0o111 != 0}, nil
}

// Remove removes each path.
func (Local) Remove(_ context.Context, paths ...string) {
	for _, p := range paths {
		_ = os.Remove(p)
	}
}

// ResolveDir is filepath.EvalSymlinks of dir, or of its parent with the
// last element joined when dir does not exist yet.
func (Local) ResolveDir(_ context.Context, dir string) (string, error) {
	clean := filepath.Clean(dir)
	real, err := filepath.EvalSymlinks(clean)
	if err == nil {
		return real, nil
	}
	parent, base := filepath.Split(clean)
	if parent == "" || parent == clean {
		return "", err
	}
	realParent, perr := filepath.EvalSymlinks(filepath.Clean(parent))
	if perr != nil {
		return "", err
	}
	return filepath.Join(realParent, base), nil
}
