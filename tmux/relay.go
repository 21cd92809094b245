package tmux

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// The relay: how a pane's raw output reaches tmuxmcp without control mode's
// escaping. `pipe-pane -O` starts a command whose standard input is one end
// of a socket pair tmux writes the pane's output to. That command is this
// program again, started with relayAddrEnv and relayTokenEnv: it connects to
// the fleet's listener (an abstract unix socket), hands its standard input
// over with SCM_RIGHTS and exits. From then on tmux writes the pane's bytes
// straight into a socket tmuxmcp reads: no copy in between, no escaping.

const (
	relayAddrEnv  = "TMUXMCP_RELAY"
	relayTokenEnv = "TMUXMCP_RELAY_TOKEN"
	// relayReadyEnv is set (to the process id) by RelayMain in a program
	// that can serve as a relay, so SelfRelay offers only such a program.
	relayReadyEnv = "TMUXMCP_RELAY_READY"
)

// RelayMain makes this program a pane-output relay when tmux started it as
// one (the environment says so): it hands its standard input to the
// tmuxmcp that asked and exits. Otherwise it notes that the program can
// serve as a relay (SelfRelay) and returns. Call it first in main, and in
// TestMain of test binaries that open hosts.
func RelayMain() {
	addr, token := os.Getenv(relayAddrEnv), os.Getenv(relayTokenEnv)
	if addr == "" {
		_ = os.Setenv(relayReadyEnv, strconv.Itoa(os.Getpid()))
		return
	}
	if err := handOver(addr, token); err != nil {
		fmt.Fprintln(os.Stderr, "tmuxmcp relay:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// SelfRelay is the command that makes this program a relay (for
// Options.Relay), or nil when RelayMain was not called in this process.
func SelfRelay() []string {
	if os.Getenv(relayReadyEnv) != strconv.Itoa(os.Getpid()) {
		return nil
	}
	// The running binary itself, even after a rebuild replaced or removed
	// its file.
	self := "/proc/" + strconv.Itoa(os.Getpid()) + "/exe"
	if _, err := os.Stat(self); err == nil {
		return []string{self}
	}
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	return []string{exe}
}

// handOver sends descriptor 0 and token to the listener at addr.
func handOver(addr, token string) error {
	c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: addr, Net: "unix"})
	if err != nil {
		return fmt.Errorf("connect to %s: %w", addr, err)
	}
	defer c.Close()
	if _, _, err := c.WriteMsgUnix([]byte(token), syscall.UnixRights(0), nil); err != nil {
		return fmt.Errorf("hand over the pane's output: %w", err)
	}
	return nil
}

// newToken returns a random relay token.
func newToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// relayCommand is the pipe-pane command that starts relay with addr and
// token: a shell command line (tmux runs it with sh -c), with every # doubled
// because tmux expands formats in it.
func relayCommand(relay []string, addr, token string) string {
	var b strings.Builder
	b.WriteString(relayAddrEnv + "=" + shellQuote(addr) + " " + relayTokenEnv + "=" + token + " exec")
	for _, a := range relay {
		b.WriteByte(' ')
		b.WriteString(shellQuote(a))
	}
	return strings.ReplaceAll(b.String(), "#", "##")
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// relayListener accepts the relays' hand-overs: each brings a token and a
// descriptor; only a relay of this user with an expected token is taken.
type relayListener struct {
	ln   *net.UnixListener
	addr string
	log  *slog.Logger

	mu      sync.Mutex
	waiting map[string]chan *os.File // by token
	done    chan struct{}
}

func listenRelay(log *slog.Logger) (*relayListener, error) {
	addr := "@tmuxmcp-relay-" + newToken()
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: addr, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listen for pane-output relays: %w", err)
	}
	l := &relayListener{ln: ln, addr: addr, log: log, waiting: map[string]chan *os.File{}, done: make(chan struct{})}
	go l.serve()
	return l, nil
}

// expect registers a new token; its descriptor arrives on the channel.
func (l *relayListener) expect() (string, chan *os.File) {
	token, ch := newToken(), make(chan *os.File, 1)
	l.mu.Lock()
	l.waiting[token] = ch
	l.mu.Unlock()
	return token, ch
}

// forget drops token; a descriptor already sent for it is closed.
func (l *relayListener) forget(token string) {
	l.mu.Lock()
	ch := l.waiting[token]
	delete(l.waiting, token)
	l.mu.Unlock()
	if ch == nil {
		return
	}
	select {
	case f := <-ch:
		_ = f.Close()
	default:
	}
}

func (l *relayListener) serve() {
	defer close(l.done)
	for {
		c, err := l.ln.AcceptUnix()
		if err != nil {
			return // closed
		}
		token, f, err := receive(c)
		if err != nil {
			l.log.Warn("pane-output relay refused", "err", err)
			continue
		}
		l.mu.Lock()
		ch := l.waiting[token]
		delete(l.waiting, token)
		l.mu.Unlock()
		if ch == nil {
			_ = f.Close() // late or unknown: its pipe closes
			continue
		}
		ch <- f
	}
}

func (l *relayListener) close() {
	_ = l.ln.Close()
	<-l.done
	l.mu.Lock()
	tokens := make([]string, 0, len(l.waiting))
	for t := range l.waiting {
		tokens = append(tokens, t)
	}
	l.mu.Unlock()
	for _, t := range tokens {
		l.forget(t)
	}
}

// errRelayUser refuses a hand-over from another user.
var errRelayUser = errors.New("relay of another user")

// receive reads one hand-over from c: its token and descriptor.
func receive(c *net.UnixConn) (string, *os.File, error) {
	defer c.Close()
	raw, err := c.SyscallConn()
	if err != nil {
		return "", nil, err
	}
	var cred *syscall.Ucred
	var credErr error
	_ = raw.Control(func(fd uintptr) {
		cred, credErr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	})
	if credErr != nil {
		return "", nil, credErr
	}
	if int(cred.Uid) != os.Getuid() {
		return "", nil, errRelayUser
	}
	buf := make([]byte, 64)
	oob := make([]byte, syscall.CmsgSpace(4))
	n, oobn, _, _, err := c.ReadMsgUnix(buf, oob)
	if err != nil {
		return "", nil, err
	}
	msgs, err := syscall.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return "", nil, fmt.Errorf("relay sent no descriptor: %v", err)
	}
	fds, err := syscall.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		for _, fd := range fds {
			_ = syscall.Close(fd)
		}
		return "", nil, fmt.Errorf("relay sent %d descriptors: %v", len(fds), err)
	}
	return string(buf[:n]), os.NewFile(uintptr(fds[0]), "pane-output"), nil
}
