// Package leaktest is the end-of-run check every package's TestMain runs:
// no goroutine, no tmux server and no process the tests started is left
// running. It keeps the one list of goroutines that may outlive the tests,
// and gives the test process a private tmux socket directory
// (TMUX_TMPDIR) so every tmux the tests start (servers, clients, the
// binary under test) agrees on where sockets live, whatever the invoking
// user set. Packages whose tests start tmux servers use it through
// tmuxtest.Main.
package leaktest

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
	"golang.org/x/sys/unix"
)

// RunVar is set, in the test process's environment, to a value unique to
// this run; every process the tests start inherits it (tmuxtest.Env passes
// it on to hermetic servers and ssh sessions), which is how the end-of-run
// check finds the ones left behind, and only those of this run.
const RunVar = "TMUXMCP_TEST_RUN"

// grace is how long processes still ending when the tests are done (a tmux
// server just told to exit, its panes) get before they count as left
// behind.
const grace = 10 * time.Second

// ignored are the goroutines that may outlive a test run: regexp2 starts
// one clock for all its match timeouts and never stops it.
func ignored() []goleak.Option {
	return []goleak.Option{goleak.IgnoreAnyFunction("github.com/dlclark/regexp2.runClock")}
}

// Run runs the package's tests in a private tmux socket directory and then
// checks that nothing is left running: a process the tests started (one
// that is killed and named) fails the run even when tests failed; a
// goroutine fails a run that passed. It returns the exit code for os.Exit.
func Run(m *testing.M) int {
	dir, err := Isolate()
	if err != nil {
		fmt.Fprintf(os.Stderr, "leaktest: %v\n", err)
		return 1
	}
	code := m.Run()
	if err := LeftBehind(dir, grace); err != nil {
		fmt.Fprintf(os.Stderr, "leaktest: the tests left processes behind (now killed): %v\n", err)
		code = 1
	}
	_ = os.RemoveAll(dir)
	if code == 0 {
		if err := goleak.Find(ignored()...); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: errors on successful test run: %v\n", err)
			code = 1
		}
	}
	return code
}

// Main runs the package's tests with Run and exits with its code. Use it
// as TestMain's only line.
func Main(m *testing.M) { os.Exit(Run(m)) }

// Isolate gives the test process a fresh private TMUX_TMPDIR (returned;
// the caller removes it), a unique RunVar, and no TMUX or TMUX_PANE, so no
// test talks to the tmux server the tests were started from, nor finds
// sockets in the directory the invoking user set.
func Isolate() (tmuxDir string, err error) {
	base := os.TempDir()
	// A unix socket path is at most 107 bytes: DIR/tmux-UID/tmuxmcp-test-<12 hex>.
	if len(base) > 48 {
		base = "/tmp"
	}
	tmuxDir, err = os.MkdirTemp(base, "tmuxmcp-test-tmux")
	if err != nil {
		return "", fmt.Errorf("make a private TMUX_TMPDIR: %w", err)
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	for k, v := range map[string]string{"TMUX_TMPDIR": tmuxDir, RunVar: strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(b)} {
		if err := os.Setenv(k, v); err != nil {
			return "", fmt.Errorf("set %s: %w", k, err)
		}
	}
	_ = os.Unsetenv("TMUX")
	_ = os.Unsetenv("TMUX_PANE")
	return tmuxDir, nil
}

// LeftBehind finds what the tests left running: every process (other than
// this one) that is a child of this process or carries this run's RunVar,
// and every socket under tmuxDir that still accepts connections. Processes
// get up to wait to end by themselves; those still alive then are killed
// (SIGKILL) and named in the error, as are live sockets.
func LeftBehind(tmuxDir string, wait time.Duration) error {
	var problems []string
	left := waitGone(findProcesses(), wait)
	for _, p := range left {
		problems = append(problems, fmt.Sprintf("process %d (%s)", p.pid, p.cmdline))
		_ = unix.Kill(p.pid, unix.SIGKILL)
	}
	waitGone(left, 5*time.Second)
	for _, s := range liveSockets(tmuxDir) {
		problems = append(problems, "a server still listening on "+s)
	}
	if len(problems) == 0 {
		return nil
	}
	return errors.New(strings.Join(problems, "; "))
}

// proc is a process found running.
type proc struct {
	pid     int
	cmdline string
}

// findProcesses lists the live (not zombie) processes that are children of
// this one or carry this run's RunVar.
func findProcesses() []proc {
	self := os.Getpid()
	mark := []byte(RunVar + "=" + os.Getenv(RunVar) + "\x00")
	entries, _ := os.ReadDir("/proc")
	var found []proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) < 2 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		environ, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if ppid != self && (os.Getenv(RunVar) == "" || !bytes.Contains(append([]byte{0}, environ...), append([]byte{0}, mark...))) {
			continue
		}
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		found = append(found, proc{pid: pid, cmdline: strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " "))})
	}
	return found
}

// waitGone waits up to d for the processes to end (woken by their pidfds)
// and returns those still alive.
func waitGone(ps []proc, d time.Duration) []proc {
	var fds []unix.PollFd
	var open []proc
	for _, p := range ps {
		fd, err := unix.PidfdOpen(p.pid, 0)
		if err != nil {
			continue // already gone
		}
		fds = append(fds, unix.PollFd{Fd: int32(fd), Events: unix.POLLIN})
		open = append(open, p)
	}
	deadline := time.Now().Add(d)
	for len(fds) > 0 && time.Now().Before(deadline) {
		n, err := unix.Poll(fds, int(time.Until(deadline).Milliseconds())+1)
		if err != nil && err != unix.EINTR {
			break
		}
		if n <= 0 {
			continue
		}
		keepFds, keep := fds[:0], open[:0]
		for i, f := range fds {
			if f.Revents != 0 {
				_ = unix.Close(int(f.Fd))
				continue
			}
			keepFds, keep = append(keepFds, f), append(keep, open[i])
		}
		fds, open = keepFds, keep
	}
	for _, f := range fds {
		_ = unix.Close(int(f.Fd))
	}
	return open
}

// liveSockets lists the unix sockets under dir that accept a connection.
func liveSockets(dir string) []string {
	var live []string
	if dir == "" {
		return nil
	}
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.Type()&os.ModeSocket == 0 {
			return nil
		}
		if c, err := net.DialTimeout("unix", p, time.Second); err == nil {
			_ = c.Close()
			live = append(live, p)
		}
		return nil
	})
	return live
}
