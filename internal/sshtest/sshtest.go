// Package sshtest starts a throwaway OpenSSH server for integration tests:
// sshd on 127.0.0.1 and a free port, with its own host key, an
// authorized key, and a forced command that gives every session a
// hermetic environment (its own HOME with the default rc files, a fixed
// PATH and prompt, its own TMUX_TMPDIR). It never touches the machine's
// own sshd, ~/.ssh or known_hosts: clients use the ssh config file it
// writes (ssh -F).
package sshtest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/internal/tmuxtest"
)

// Server is a running sshd.
type Server struct {
	// Port is where it listens on 127.0.0.1.
	Port int
	// User is the login name (the user running the test).
	User string
	// ConfigFile is an ssh client config (ssh -F) with the key, the
	// known_hosts holding the server's key, and BatchMode.
	ConfigFile string
	// Home is the HOME of every session, with the default rc files.
	Home string
	// TmuxDir is every session's TMUX_TMPDIR: tmux -L NAME there is
	// TmuxDir/tmux-UID/NAME.
	TmuxDir string
	// Dir holds the server's files.
	Dir string

	cmd      *exec.Cmd
	conf     string // the sshd_config
	cleanups []func()
	failed   func() bool // the test failed: Close logs sshd's log
	logf     func(string, ...any)
}

// Start starts sshd and registers its end with t.Cleanup. It skips the
// test when sshd is not installed, unless $TMUXMCP_REQUIRE_SSHD is set
// (CI sets it: there a missing sshd is a failure).
func Start(t testing.TB) *Server {
	t.Helper()
	if _, err := os.Stat(sshd); err != nil {
		if os.Getenv("TMUXMCP_REQUIRE_SSHD") != "" {
			t.Fatalf("sshd is not installed (%v): apt-get install openssh-server", err)
		}
		t.Skip("sshd is not installed (apt-get install openssh-server)")
	}
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	s.failed = t.Failed
	s.logf = t.Logf
	t.Cleanup(s.Close)
	return s
}

// sshd is the OpenSSH server binary.
const sshd = "/usr/sbin/sshd"

// New starts sshd; Close ends it (for callers without a testing.TB, such
// as the benchmark suite).
func New() (*Server, error) {
	if os.Geteuid() == 0 {
		// sshd run as root wants its privilege-separation directory.
		if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
			return nil, fmt.Errorf("sshd: %w", err)
		}
	}
	dir, err := os.MkdirTemp("", "tmuxmcp-sshd-")
	if err != nil {
		return nil, err
	}
	s := &Server{Dir: dir, Home: filepath.Join(dir, "home"), TmuxDir: filepath.Join(dir, "tmux")}
	s.cleanups = append(s.cleanups, func() { _ = os.RemoveAll(dir) })
	if err := s.setUp(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Close ends sshd and removes its files.
func (s *Server) Close() {
	for i := len(s.cleanups) - 1; i >= 0; i-- {
		s.cleanups[i]()
	}
	s.cleanups = nil
}

func (s *Server) setUp() error {
	dir := s.Dir
	out, err := exec.Command("id", "-un").Output()
	if err != nil {
		return fmt.Errorf("id -un: %w", err)
	}
	s.User = strings.TrimSpace(string(out))
	for _, d := range []string{s.Home, s.TmuxDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	if err := tmuxtest.DefaultRC(s.Home); err != nil {
		return err
	}
	for _, name := range []string{"host_key", "user_key"} {
		out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "tmuxmcp-test", "-f", filepath.Join(dir, name)).CombinedOutput()
		if err != nil {
			return fmt.Errorf("ssh-keygen: %v: %s", err, out)
		}
	}
	pub := func(name string) string {
		b, _ := os.ReadFile(filepath.Join(dir, name+".pub"))
		return strings.TrimSpace(string(b))
	}
	var werr error
	write := func(name, body string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), mode); err != nil && werr == nil {
			werr = err
		}
		return p
	}
	write("authorized_keys", pub("user_key")+"\n", 0o600)
	var env strings.Builder
	for _, kv := range append(tmuxtest.Env(s.Home), "TMUX_TMPDIR="+s.TmuxDir) {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(&env, "export %s=%s\n", k, shellQuote(v))
	}
	session := write("session.sh", "#!/bin/sh\n# The environment of every session: hermetic, like a test's tmux server.\nunset XDG_STATE_HOME XDG_CONFIG_HOME XDG_DATA_HOME XDG_RUNTIME_DIR ENV BASH_ENV ZDOTDIR\n"+env.String()+"cd \"$HOME\" || exit 1\nexec /bin/sh -c \"$SSH_ORIGINAL_COMMAND\"\n", 0o755)
	for attempt := 0; ; attempt++ {
		port, err := freePort()
		if err != nil {
			return err
		}
		s.Port = port
		s.conf = write("sshd_config", fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %s
AuthorizedKeysFile %s
PidFile %s
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PermitRootLogin prohibit-password
AllowUsers %s
ForceCommand %s
MaxSessions 200
MaxStartups 100:30:200
LogLevel VERBOSE
`, s.Port, filepath.Join(dir, "host_key"), filepath.Join(dir, "authorized_keys"), filepath.Join(dir, "sshd.pid"), s.User, session), 0o600)
		if werr != nil {
			return werr
		}
		err = s.listen()
		if err == nil {
			break
		}
		if attempt == 3 {
			return err
		}
	}
	write("known_hosts", fmt.Sprintf("[127.0.0.1]:%d %s\n", s.Port, pub("host_key")), 0o600)
	s.ConfigFile = write("ssh_config", fmt.Sprintf(`Host *
  HostName 127.0.0.1
  Port %d
  User %s
  IdentityFile %s
  IdentitiesOnly yes
  IdentityAgent none
  UserKnownHostsFile %s
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  UpdateHostKeys no
  LogLevel ERROR
`, s.Port, s.User, filepath.Join(dir, "user_key"), filepath.Join(dir, "known_hosts")), 0o600)
	return werr
}

// listen starts sshd on s.Port; it stops with Close.
func (s *Server) listen() error {
	// -D: stays in the foreground as our child; -e: log to stderr.
	cmd := exec.Command(sshd, "-D", "-e", "-f", s.conf)
	// A file, not a pipe: what a session starts (a tmux server that
	// daemonizes) may keep sshd's stderr open, and Wait would wait for it.
	logPath := filepath.Join(s.Dir, "sshd.log")
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer log.Close()
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start sshd: %w", err)
	}
	if !listening(s.Port, 10*time.Second) {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		b, _ := os.ReadFile(logPath)
		return fmt.Errorf("sshd did not listen on 127.0.0.1:%d: %s", s.Port, b)
	}
	s.cmd = cmd
	s.cleanups = append(s.cleanups, func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		if s.failed != nil && s.failed() {
			b, _ := os.ReadFile(logPath)
			s.logf("sshd log:\n%s", tail(string(b), 4000))
		}
	})
	return nil
}

// Restart starts sshd again on the same port after Stop.
func (s *Server) Restart() error { return s.listen() }

// URL is the host spec's URL for this server: ssh://USER@127.0.0.1:PORT.
func (s *Server) URL() string {
	return fmt.Sprintf("ssh://%s@127.0.0.1:%d", s.User, s.Port)
}

// KillTmux kills the tmux server with socket name (-L) that a session of
// this sshd started (registered by the test with t.Cleanup).
func (s *Server) KillTmux(name string) {
	sock := filepath.Join(s.TmuxDir, fmt.Sprintf("tmux-%d", os.Getuid()), name)
	_ = exec.Command("tmux", "-S", sock, "kill-server").Run()
}

// DropConnections kills every connection sshd serves (its per-connection
// children), as a dropped link would end them; the listener stays up.
func (s *Server) DropConnections() { s.signalConnections(syscall.SIGKILL) }

// Freeze stops (SIGSTOP) every connection sshd serves: the link goes
// silent, as a cable pulled or a laptop closed leaves it, with no reset
// to tell either end. Thaw undoes it.
func (s *Server) Freeze() { s.signalConnections(syscall.SIGSTOP) }

// Thaw lets frozen connections run again.
func (s *Server) Thaw() { s.signalConnections(syscall.SIGCONT) }

func (s *Server) signalConnections(sig syscall.Signal) {
	out, _ := exec.Command("pgrep", "-P", strconv.Itoa(s.cmd.Process.Pid)).Output()
	for _, f := range strings.Fields(string(out)) {
		if pid, err := strconv.Atoi(f); err == nil {
			_ = syscall.Kill(pid, sig)
		}
	}
}

// Stop ends sshd and every connection (the host becomes unreachable
// until Restart).
func (s *Server) Stop() {
	s.DropConnections()
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	_ = s.cmd.Wait()
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// listening waits (a connect attempt every 20 ms: sshd says nothing when
// it is ready) until the port accepts connections.
func listening(port int, within time.Duration) bool {
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second); err == nil {
			c.Close()
			return true
		}
	}
	return false
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
