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
	"strings"
	"syscall"
	"time"

	"github.com/tmuxmcp/tmuxmcp/machine"
	"github.com/tmuxmcp/tmuxmcp/shell"
)

// dirScript makes the private directory on the host and prints its path:
// $XDG_STATE_HOME/tmuxmcp/remote (default ~/.local/state/tmuxmcp/remote),
// mode 0700, with jobs/ for job scripts and shell/ for the integration:
// apart from the state of a tmuxmcp that runs on the host itself.
const dirScript = `umask 077
d=${XDG_STATE_HOME:-$HOME/.local/state}/tmuxmcp
mkdir -p "$d/remote/jobs" "$d/remote/shell" && chmod 700 "$d" "$d/remote" && cd "$d/remote" && pwd -P`

// setUp runs once per remote shell (so once per connection): it finds the
// private directory and installs the shell integration in it.
func (s *SSH) setUp(ctx context.Context) error {
	out, code, err := s.ch.run(ctx, dirScript)
	if err != nil {
		return fmt.Errorf("host %s: make the private directory: %w", s.spec.Name, err)
	}
	dir := strings.TrimSpace(string(out))
	if code != 0 || !strings.HasPrefix(dir, "/") || strings.ContainsAny(dir, "\n") {
		return fmt.Errorf("host %s: cannot make the private directory ${XDG_STATE_HOME:-$HOME/.local/state}/tmuxmcp: %s", s.spec.Name, strings.TrimSpace(string(out)))
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

// WriteFile writes a private file on the host.
func (s *SSH) WriteFile(ctx context.Context, p string, data []byte) error {
	if err := s.checkPath(ctx, p); err != nil {
		return err
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return fmt.Errorf("host %s: %s: a NUL byte cannot go into a remote script", s.spec.Name, p)
	}
	var b strings.Builder
	b.WriteString("umask 077\nset -e\n")
	writeScript(&b, p, data)
	out, code, err := s.Run(ctx, b.String())
	if err != nil {
		return err
	}
	if code != 0 {
		return fmt.Errorf("host %s: write %s: %s", s.spec.Name, p, strings.TrimSpace(string(out)))
	}
	return nil
}

// ReadFile reads a file on the host.
func (s *SSH) ReadFile(ctx context.Context, p string) ([]byte, error) {
	if err := s.checkPath(ctx, p); err != nil {
		return nil, err
	}
	out, code, err := s.Run(ctx, "f="+shell.Quote(p)+"\n[ -e \"$f\" ] || exit 3\nexec cat -- \"$f\"")
	switch {
	case err != nil:
		return nil, err
	case code == 3:
		return nil, fmt.Errorf("host %s: %s: %w", s.spec.Name, p, fs.ErrNotExist)
	case code != 0:
		return nil, fmt.Errorf("host %s: read %s: %s", s.spec.Name, p, strings.TrimSpace(string(out)))
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
	q := make([]string, len(paths))
	for i, p := range paths {
		q[i] = shell.Quote(p)
	}
	_, _, _ = s.Run(ctx, "rm -f -- "+strings.Join(q, " "))
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
