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
	"time"
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
	// Alive until the listener has checked who sent it (its parent).
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, _ = c.Read(make([]byte, 1))
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
	// server is the tmux server's process id (0: unknown): a relay is
	// tmux's pipe-pane child, any other process is refused, whatever token
	// it read from a relay's environment.
	server func() int

	mu      sync.Mutex
	waiting map[string]chan *os.File // by token
	done    chan struct{}
}

func listenRelay(log *slog.Logger, server func() int) (*relayListener, error) {
	addr := "@tmuxmcp-relay-" + newToken()
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: addr, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listen for pane-output relays: %w", err)
	}
	l := &relayListener{ln: ln, addr: addr, log: log, server: server, waiting: map[string]chan *os.File{}, done: make(chan struct{})}
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
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := l.ln.AcceptUnix()
		if err != nil {
			return // closed
		}
		wg.Add(1)
		go func() { // one silent connection holds up no other
			defer wg.Done()
			l.take(c)
		}()
	}
}

// take reads one hand-over from c and gives its descriptor to whoever
// waits for its token.
func (l *relayListener) take(c *net.UnixConn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(relayWait))
	token, f, err := receive(c, l.server())
	if err != nil {
		l.log.Warn("pane-output relay refused", "err", err)
		return
	}
	_, _ = c.Write([]byte{1}) // the relay may exit
	l.mu.Lock()
	ch := l.waiting[token]
	delete(l.waiting, token)
	l.mu.Unlock()
	if ch == nil {
		_ = f.Close() // late or unknown: its pipe closes
		return
	}
	ch <- f
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
func receive(c *net.UnixConn, server int) (string, *os.File, error) {
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
	if server <= 0 || parentOf(int(cred.Pid)) != server {
		return "", nil, fmt.Errorf("relay pid %d is not a child of the tmux server (pid %d)", cred.Pid, server)
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

// parentOf is pid's parent process id, from /proc (0 when unknown).
func parentOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// pid (comm) state ppid ...: comm may hold spaces and parentheses.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}
