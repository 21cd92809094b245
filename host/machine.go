package host

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tmuxmcp/tmuxmcp/machine"
	"github.com/tmuxmcp/tmuxmcp/private"
	"github.com/tmuxmcp/tmuxmcp/shell"
)

// dirScript makes the private directory on the host and prints its path:
// $XDG_STATE_HOME/tmuxmcp/remote (default ~/.local/state/tmuxmcp/remote),
// with jobs/ for job scripts, shell/ for the integration and approvals/
// for the popups' files: apart from the state of a tmuxmcp that runs on
// the host itself. What it makes is mode 0700 (umask 077); what was there
// already is left as it is, for checkScript to judge. It then prints the
// user's uid, gid, name and group name.
const dirScript = `umask 077
d=${XDG_STATE_HOME:-$HOME/.local/state}/tmuxmcp
mkdir -p "$d/remote/jobs" "$d/remote/shell" "$d/remote/approvals" && cd -P "$d/remote" && pwd -P && id -u && id -g && id -un && id -gn`

// checkScript prints the ls -ldn line of each of its arguments, in
// order, or "missing" for one it cannot list.
const checkScript = `for p in "$@"; do ls -ldn -- "$p" 2>/dev/null || echo missing; done`

// setUp runs once per remote shell (so once per connection): it finds the
// private directory, checks it (checkDir), and installs the shell
// integration in it.
func (s *SSH) setUp(ctx context.Context) error {
	out, code, err := s.ch.run(ctx, dirScript)
	if err != nil {
		return fmt.Errorf("host %s: make the private directory: %w", s.spec.Name, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if code != 0 || len(lines) != 5 || !strings.HasPrefix(lines[0], "/") {
		return fmt.Errorf("host %s: cannot make the private directory ${XDG_STATE_HOME:-$HOME/.local/state}/tmuxmcp/remote: %s", s.spec.Name, strings.TrimSpace(string(out)))
	}
	dir := lines[0]
	if err := s.checkDir(ctx, dir, lines[1:]); err != nil {
		return err
	}
	files, err := shell.Files()
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("umask 077\nset -e\n")
	for _, name := range slices.Sorted(maps.Keys(files)) {
		writeScript(&b, path.Join(dir, "shell", name), files[name])
	}
	if out, code, err := s.ch.run(ctx, b.String()); err != nil || code != 0 {
		return fmt.Errorf("host %s: install the shell integration in %s: %v %s", s.spec.Name, dir, err, strings.TrimSpace(string(out)))
	}
	s.mu.Lock()
	s.dir = dir
	s.mu.Unlock()
	return nil
}

// checkDir checks the private directory dir on the host by the rules of
// package private, for the user ids ("uid gid name group", dirScript's
// lines): dir, its jobs/, shell/ and approvals/, and the state directory
// above it must be private directories of the user's, and each parent of
// that must be the user's or root's and writable by others only when
// sticky. A directory that fails is refused with its path, owner and mode
// and the fix, and nothing is written there.
func (s *SSH) checkDir(ctx context.Context, dir string, ids []string) error {
	uid, err1 := strconv.Atoi(ids[0])
	gid, err2 := strconv.Atoi(ids[1])
	if err1 != nil || err2 != nil {
		return fmt.Errorf("host %s: id printed %q, not the user's ids", s.spec.Name, ids)
	}
	u := private.User{UID: uid, GID: gid, OwnGroup: -1}
	if ids[2] == ids[3] {
		u.OwnGroup = gid
	}
	mine := []string{dir, path.Join(dir, "jobs"), path.Join(dir, "shell"), path.Join(dir, "approvals"), path.Dir(dir)}
	var parents []string
	for p := path.Dir(path.Dir(dir)); ; p = path.Dir(p) {
		parents = append(parents, p)
		if p == "/" {
			break
		}
	}
	all := append(slices.Clone(mine), parents...)
	script := "set -- " + shell.QuoteAll(all) + "\n" + checkScript
	out, code, err := s.ch.run(ctx, script)
	if err != nil {
		return fmt.Errorf("host %s: check the private directory: %w", s.spec.Name, err)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if code != 0 || len(lines) != len(all) {
		return fmt.Errorf("host %s: check the private directory %s: ls printed %q", s.spec.Name, dir, out)
	}
	for i, p := range all {
		e, err := private.ParseLS(p, lines[i])
		if err != nil {
			return fmt.Errorf("host %s: check the private directory: %w", s.spec.Name, err)
		}
		judge := u.PrivateDir
		if i >= len(mine) {
			judge = u.Parent
		}
		if err := judge(e); err != nil {
			return fmt.Errorf("host %s: the private directory on the host cannot be used (fix it there, as the user tmuxmcp logs in as): %w", s.spec.Name, err)
		}
	}
	return nil
}

// writeScript appends to b the lines that write data to p atomically (a
// temporary file renamed over it), its directory made first.
func writeScript(b *strings.Builder, p string, data []byte) {
	tmp := p + ".tmp"
	fmt.Fprintf(b, "mkdir -p %s\nprintf '%%s' %s > %s\nmv -f %s %s\n", shell.Quote(path.Dir(p)), shell.Quote(string(data)), shell.Quote(tmp), shell.Quote(tmp), shell.Quote(p))
}

// Dir is the private directory on the host; it connects first when the
// host's remote shell is not running.
func (s *SSH) Dir(ctx context.Context) (string, error) {
	s.mu.Lock()
	d := s.dir
	s.mu.Unlock()
	if d != "" {
		return d, nil
	}
	if _, _, err := s.Run(ctx, "true"); err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dir, nil
}

// Integration is the shell integration installed on the host.
func (s *SSH) Integration(ctx context.Context) (*shell.Integration, error) {
	d, err := s.Dir(ctx)
	if err != nil {
		return nil, err
	}
	return shell.At(path.Join(d, "shell")), nil
}

// probeTimeout bounds one remote probe, signal or file operation made
// without a caller's context.
const probeTimeout = 5 * time.Second

// Probe inspects a pane's terminal on the host: one script prints what
// the probe reads there, and the same logic as a local probe runs on it.
func (s *SSH) Probe(pid int, tty string) (shell.Probe, error) {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	out, _, err := s.Run(ctx, shell.SnapshotScript(pid, tty))
	if err != nil {
		return shell.Probe{}, err
	}
	proc, err := shell.ParseSnapshot(out)
	if err != nil {
		return shell.Probe{}, fmt.Errorf("host %s: probe of pane process %d: %w", s.spec.Name, pid, err)
	}
	return shell.ProbeWith(proc, pid, tty)
}

// Signal sends sig to pid (a group when negative) on the host.
func (s *SSH) Signal(pid int, sig syscall.Signal) error {
	if pid == 0 || pid == -1 {
		return syscall.EINVAL // never "every process"
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	out, code, err := s.Run(ctx, fmt.Sprintf("kill -s %d -- %d", int(sig), pid))
	switch {
	case err != nil:
		return err
	case code == 0:
		return nil
	case bytes.Contains(bytes.ToLower(out), []byte("no such process")):
		return syscall.ESRCH
	}
	return fmt.Errorf("host %s: kill %d: %s", s.spec.Name, pid, strings.TrimSpace(string(out)))
}

// ScriptPath is the private directory's jobs/ID+suffix.
func (s *SSH) ScriptPath(id, suffix string) string {
	d, err := s.Dir(context.Background())
	if err != nil {
		return "" // WriteFile and ReadFile refuse it, with the reason
	}
	return path.Join(d, "jobs", id+suffix)
}

// createScript writes $2 to a new file $1 (umask 077: mode 0600), making
// its directory when missing. Anything at $1 already (a file, or a
// symbolic link, never followed) is exit 17; noclobber keeps the write
// from opening one that appeared since. The directory is the private one
// checkDir passed, which only the user can write, and no fork is made
// when it exists.
const createScript = `umask 077
[ -d "${1%/*}" ] || mkdir -p -- "${1%/*}" || exit 1
if [ -e "$1" ] || [ -L "$1" ]; then exit 17; fi
set -C
printf '%s' "$2" > "$1"`

// WriteFile creates the new private file p (mode 0600) on the host; it
// fails when anything is at p already.
func (s *SSH) WriteFile(ctx context.Context, p string, data []byte) error {
	if err := s.checkPath(ctx, p); err != nil {
		return err
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return fmt.Errorf("host %s: %s: a NUL byte cannot go into a remote script", s.spec.Name, p)
	}
	out, code, err := s.Run(ctx, "set -- "+shell.Quote(p)+" "+shell.Quote(string(data))+"\n"+createScript)
	switch {
	case err != nil:
		return err
	case code == 17:
		return fmt.Errorf("host %s: %w", s.spec.Name, &private.Error{Path: p, Problem: "exists already, and tmuxmcp writes this file only afresh (something put it there)",
			Fix: "remove it on the host (rm " + p + ") and look at who could write in " + path.Dir(p)})
	case code != 0:
		return fmt.Errorf("host %s: write %s: %s", s.spec.Name, p, strings.TrimSpace(string(out)))
	}
	return nil
}

// ReadFile reads a file on the host.
func (s *SSH) ReadFile(ctx context.Context, p string) ([]byte, error) {
	if err := s.checkPath(ctx, p); err != nil {
		return nil, err
	}
	out, code, err := s.Run(ctx, "f="+shell.Quote(p)+"\n[ -e \"$f\" ] || [ -L \"$f\" ] || exit 3\n[ -f \"$f\" ] && ! [ -L \"$f\" ] || { echo not a regular file; exit 4; }\nexec head -c "+strconv.Itoa(machine.MaxReadFile+1)+" -- \"$f\"")
	switch {
	case err != nil:
		return nil, err
	case code == 3:
		return nil, fmt.Errorf("host %s: %s: %w", s.spec.Name, p, fs.ErrNotExist)
	case code != 0:
		return nil, fmt.Errorf("host %s: read %s: %s", s.spec.Name, p, strings.TrimSpace(string(out)))
	case len(out) > machine.MaxReadFile:
		return nil, fmt.Errorf("host %s: read %s: over %d bytes", s.spec.Name, p, machine.MaxReadFile)
	}
	return out, nil
}

// checkPath refuses a path that is not absolute: a script path made while
// the host's private directory was unknown ("").
func (s *SSH) checkPath(ctx context.Context, p string) error {
	if strings.HasPrefix(p, "/") {
		return nil
	}
	if _, err := s.Dir(ctx); err != nil {
		return err
	}
	return fmt.Errorf("host %s: %q is not an absolute path", s.spec.Name, p)
}

// Stat says whether p is a directory and executable on the host.
func (s *SSH) Stat(ctx context.Context, p string) (machine.FileInfo, error) {
	out, code, err := s.Run(ctx, "p="+shell.Quote(p)+"\n[ -e \"$p\" ] || exit 3\nd=0 x=0\n[ -d \"$p\" ] && d=1\n[ -x \"$p\" ] && x=1\necho $d $x")
	switch {
	case err != nil:
		return machine.FileInfo{}, err
	case code == 3:
		return machine.FileInfo{}, fmt.Errorf("host %s: %s: %w", s.spec.Name, p, fs.ErrNotExist)
	case code != 0:
		return machine.FileInfo{}, fmt.Errorf("host %s: stat %s: %s", s.spec.Name, p, strings.TrimSpace(string(out)))
	}
	f := strings.Fields(string(out))
	return machine.FileInfo{Dir: len(f) == 2 && f[0] == "1", Exec: len(f) == 2 && f[1] == "1"}, nil
}

// Remove deletes files on the host.
func (s *SSH) Remove(ctx context.Context, paths ...string) {
	_, _, _ = s.Run(ctx, "rm -f -- "+shell.QuoteAll(paths))
}

// resolveScript prints the directory $1 resolved with cd -P (exit 0), or,
// when it does not exist, its parent $2 resolved (exit 4): one line, with
// no CDPATH to make cd print anything else. Anything else is exit 3.
const resolveScript = `unset CDPATH
if cd -P -- "$1" 2>/dev/null; then pwd -P; exit 0; fi
[ -e "$1" ] && exit 3
cd -P -- "$2" 2>/dev/null || exit 3
pwd -P
exit 4`

// ResolveDir resolves the absolute directory dir's symbolic links on the
// host, in one remote script: dir entered with cd -P, or, when it does
// not exist yet, its parent with the last element joined.
// ErrNoDirectory is ResolveDir's answer for a path that is not a
// directory there (nor is its parent): the host answered. Any other error
// means it could not be asked.
var ErrNoDirectory = errors.New("neither it nor its parent is a directory there")

func (s *SSH) ResolveDir(ctx context.Context, dir string) (string, error) {
	if !strings.HasPrefix(dir, "/") {
		return "", fmt.Errorf("host %s: resolve %q: not an absolute path: %w", s.spec.Name, dir, ErrNoDirectory)
	}
	clean := path.Clean(dir)
	parent, base := path.Split(clean)
	script := "set -- " + shell.Quote(clean) + " " + shell.Quote(path.Clean(parent)) + "\n" + resolveScript
	out, code, err := s.Run(ctx, script)
	switch {
	case err != nil:
		return "", err
	case code != 0 && code != 4:
		return "", fmt.Errorf("host %s: resolve %s: %w", s.spec.Name, clean, ErrNoDirectory)
	}
	real, ok := strings.CutSuffix(string(out), "\n")
	if !ok || !strings.HasPrefix(real, "/") {
		return "", fmt.Errorf("host %s: resolve %s: pwd -P printed %q, not a path", s.spec.Name, clean, out)
	}
	if code == 4 {
		return path.Join(real, base), nil
	}
	return real, nil
}
