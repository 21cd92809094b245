package host

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tmuxmcp/tmuxmcp/private"
	"github.com/tmuxmcp/tmuxmcp/shell"
)

// Options configure how a host is reached.
type Options struct {
	// ConfigFile, when set, is passed as ssh -F to every ssh tmuxmcp runs
	// (instead of ~/.ssh/config). ssh reads ~/.ssh from the passwd entry,
	// not $HOME: a separate config is how tests and unusual setups point
	// it at other keys and known_hosts.
	ConfigFile string
	// ControlDir holds the ControlMaster sockets (the state directory's
	// ssh/, mode 0700).
	ControlDir string
	// Log receives connection events.
	Log *slog.Logger
	// SSH is the ssh binary; "ssh" when empty.
	SSH string
}

// ConnectTimeout bounds one attempt to open a host's connection.
const ConnectTimeout = 15 * time.Second

// SSH is one host's OpenSSH connection: a ControlMaster tmuxmcp starts and
// owns, that every other ssh to the host (the tmux control clients, short
// tmux commands, the remote shell) multiplexes over. When the link drops,
// the master exits and every session over it ends; the next use starts a
// new master.
type SSH struct {
	spec Spec
	opts Options
	sock string
	log  *slog.Logger

	mu     sync.Mutex
	master *exec.Cmd
	gone   chan struct{} // closed when the master exits
	closed bool

	chMu sync.Mutex
	ch   *channel
	dir  string // the private directory on the host, once known
}

// New returns the connection to spec's host; nothing is started yet.
func New(spec Spec, opts Options) *SSH {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	return &SSH{spec: spec, opts: opts, sock: controlPath(opts.ControlDir, spec), log: opts.Log.With("host", spec.Name)}
}

// controlPath is the master's socket: short (a Unix socket path has room
// for 107 bytes, and ssh adds 17 while it makes it), unique per host and
// per state directory.
//
// It is this process's own: two tmuxmcp processes with one state
// directory each keep their own master (ssh removes a master's socket
// when it exits, which would leave the other one's sessions without).
func controlPath(dir string, spec Spec) string {
	sum := sha256.Sum256([]byte(dir + "\x00" + spec.Name + "\x00" + spec.URL() + "\x00" + strconv.Itoa(os.Getpid())))
	name := hex.EncodeToString(sum[:8])
	// ssh expands % in ControlPath and splits -o values at blanks.
	if p := filepath.Join(dir, name); len(p) <= 88 && !strings.ContainsAny(p, "% \t\n\"'\\") {
		return p
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("tmuxmcp-ssh-%d", os.Getuid()), name)
}

// Spec is the host's configuration.
func (s *SSH) Spec() Spec { return s.spec }

// String names the host for messages: "build (ssh://ci@build.example)".
func (s *SSH) String() string { return s.spec.Name + " (" + s.spec.URL() + ")" }

// args are the ssh options every ssh to the host gets: the user's config
// (or -F), no prompts, the shared connection.
func (s *SSH) args(extra ...string) []string {
	var a []string
	if s.opts.ConfigFile != "" {
		a = append(a, "-F", s.opts.ConfigFile)
	}
	// ServerAlive on every ssh, not only the master: should one connect
	// directly (its master gone), a silent link still ends it.
	a = append(a, "-o", "BatchMode=yes", "-o", "ControlPath="+s.sock, "-o", "ConnectTimeout=10",
		"-o", "ServerAliveInterval=1", "-o", "ServerAliveCountMax=1")
	if s.spec.Port != 0 {
		a = append(a, "-p", strconv.Itoa(s.spec.Port))
	}
	if s.spec.User != "" {
		a = append(a, "-l", s.spec.User)
	}
	return append(a, extra...)
}

func (s *SSH) binary() string {
	if s.opts.SSH != "" {
		return s.opts.SSH
	}
	return "ssh"
}

// Connect makes sure the host's connection is up, starting the master if
// it is not. An error quotes ssh's own message.
func (s *SSH) Connect(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("host %s: closed", s.spec.Name)
	}
	if s.master != nil {
		select {
		case <-s.gone:
			s.master = nil
		default:
			return nil
		}
	}
	if err := privateDir(filepath.Dir(s.sock)); err != nil {
		return fmt.Errorf("host %s: control socket directory: %w", s.spec.Name, err)
	}
	_ = os.Remove(s.sock) // a stale socket of a dead master
	const ready = "tmuxmcp-ssh-master-ready"
	cmd := exec.Command(s.binary(), s.args("-M", "-N", "-T",
		"-o", "ControlMaster=yes", "-o", "ControlPersist=no",
		"-o", "PermitLocalCommand=yes", "-o", "LocalCommand=echo "+ready,
		"--", s.spec.Addr)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("host %s: %w", s.spec.Name, err)
	}
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("host %s: start ssh: %w (install OpenSSH's client, e.g. apt-get install openssh-client)", s.spec.Name, err)
	}
	gone := make(chan struct{})
	up := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.TrimSpace(sc.Text()) == ready {
				close(up)
				break
			}
		}
		_, _ = bufio.NewReader(stdout).WriteTo(discard{})
		_ = cmd.Wait()
		close(gone)
	}()
	ctx, cancel := context.WithTimeout(ctx, ConnectTimeout)
	defer cancel()
	select {
	case <-up:
		s.master, s.gone = cmd, gone
		s.log.Info("ssh connection up", "url", s.spec.URL())
		go func() {
			<-gone
			s.log.Warn("ssh connection ended", "err", strings.TrimSpace(stderr.String()))
		}()
		return nil
	case <-gone:
		return s.sshError(stderr.String(), cmd.ProcessState)
	case <-ctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-gone
		return fmt.Errorf("host %s: ssh %s did not connect within %v (%s): check the address and that sshd runs there", s.spec.Name, s.spec.URL(), ConnectTimeout, strings.TrimSpace(stderr.String()))
	}
}

// privateDir makes dir (mode 0700) or checks that it is ours and private:
// whoever can write there could put their own socket in the master's
// place.
func privateDir(dir string) error {
	if err := private.Dir(dir); err != nil {
		return err
	}
	st, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !st.IsDir() || !ok || int(sys.Uid) != os.Getuid() || st.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("%s must be a directory of yours that nobody else can open (mode 0700): fix it with chmod 700, or remove it", dir)
	}
	return nil
}

// sshError quotes what ssh said when it could not connect, with the fix.
func (s *SSH) sshError(msg string, st *os.ProcessState) error {
	msg = strings.TrimSpace(msg)
	if msg == "" && st != nil {
		msg = st.String()
	}
	fix := "check that `ssh " + s.Login() + " true` works from this account without a prompt"
	switch {
	case strings.Contains(msg, "Host key verification failed"), strings.Contains(msg, "REMOTE HOST IDENTIFICATION HAS CHANGED"), strings.Contains(msg, "No ED25519 host key is known"), strings.Contains(msg, "host key is known"):
		fix = "the host's key is not in your known_hosts (or changed): connect once with `ssh " + s.Login() + "` and check the fingerprint; tmuxmcp never accepts a host key itself"
	case strings.Contains(msg, "Permission denied"):
		fix = "the host refused your key: add your public key to the remote ~/.ssh/authorized_keys, or load it into ssh-agent; tmuxmcp never types a password (BatchMode)"
	case strings.Contains(msg, "Connection refused"), strings.Contains(msg, "No route to host"), strings.Contains(msg, "Could not resolve"), strings.Contains(msg, "timed out"):
		fix = "the host is not reachable: check the address and port, and that sshd runs there"
	}
	return fmt.Errorf("host %s: ssh said: %s — %s", s.spec.Name, msg, fix)
}

// Login is the ssh command line (without "ssh") a person runs to reach
// the host as tmuxmcp does: to check it, or to watch its panes with
// `ssh -t LOGIN tmux -L tmuxmcp attach`.
func (s *SSH) Login() string {
	var a []string
	if s.opts.ConfigFile != "" {
		a = append(a, "-F", s.opts.ConfigFile)
	}
	if s.spec.Port != 0 {
		a = append(a, "-p", strconv.Itoa(s.spec.Port))
	}
	if s.spec.User != "" {
		a = append(a, s.spec.User+"@"+s.spec.Addr)
	} else {
		a = append(a, s.spec.Addr)
	}
	return strings.Join(a, " ")
}

// Command runs argv on the host over the shared connection (a
// tmux.Transport). The master is started first when it is down; if it
// cannot be, the command fails with ssh's message.
func (s *SSH) Command(ctx context.Context, argv []string) *exec.Cmd {
	if err := s.Connect(ctx); err != nil {
		cmd := exec.CommandContext(ctx, "/bin/sh", "-c", `printf '%s\n' "$1" >&2; exit 255`, "sh", err.Error())
		return cmd
	}
	cmd := exec.CommandContext(ctx, s.binary(), s.args("-T", "-o", "ControlMaster=no", "--", s.spec.Addr, remoteCommand(argv))...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	return cmd
}

// remoteCommand is argv as the line the remote login shell runs.
func remoteCommand(argv []string) string {
	return "exec " + shell.QuoteAll(argv)
}

// Drop ends the host's connection (as a dropped link would); the next use
// connects again.
func (s *SSH) Drop() {
	s.mu.Lock()
	m, gone := s.master, s.gone
	s.master = nil
	s.mu.Unlock()
	if m != nil {
		_ = syscall.Kill(-m.Process.Pid, syscall.SIGTERM)
		<-gone
	}
}

// Up reports whether the connection is up now.
func (s *SSH) Up() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.master == nil {
		return false
	}
	select {
	case <-s.gone:
		return false
	default:
		return true
	}
}

// Close ends the connection for good.
func (s *SSH) Close() {
	s.mu.Lock()
	s.closed = true // no Connect starts a master from here on
	s.mu.Unlock()
	s.chMu.Lock()
	if s.ch != nil {
		s.ch.close()
		s.ch = nil
	}
	s.chMu.Unlock()
	s.Drop()
	_ = os.Remove(s.sock)
}

// lockedBuffer is a bytes.Buffer safe for the writer goroutine exec
// starts and a reader.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() > 64<<10 {
		return len(p), nil
	}
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

var errChannelGone = errors.New("the remote shell ended")
