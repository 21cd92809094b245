package tmux

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/internal/leaktest"
)

func TestMain(m *testing.M) {
	RelayMain() // the raw-ingest tests start this binary as the relay
	// Test servers start panes with a plain sh: no user rc files, no
	// shell history written, fast startup. tmux takes default-shell from
	// $SHELL. (tmuxtest imports this package, so its Main cannot be used;
	// the leak check is leaktest's, as in tmuxtest.Main.)
	home, err := os.MkdirTemp("", "tmuxmcp-test-home")
	if err != nil {
		panic(err)
	}
	os.Setenv("HOME", home)
	os.Setenv("SHELL", "/bin/sh")
	os.Unsetenv("ENV")
	os.Unsetenv("ZDOTDIR")
	code := leaktest.Run(m)
	_ = os.RemoveAll(home)
	os.Exit(code)
}

// waitTimeout is the generous deadline for anything tmux should do "soon":
// on a loaded 2-core machine under -race every package runs at once.
const waitTimeout = 30 * time.Second

// discardLog is a logger for code under test that must not clutter output.
var discardLog = slog.New(slog.NewTextHandler(io.Discard, nil))

// newTestServer starts a tmux server on a private socket with a session
// "main" (80x24) and registers a kill-server of exactly that socket.
func newTestServer(t *testing.T) Target {
	t.Helper()
	return newTestServerCmd(t, "")
}

// newTestServerCmd is newTestServer with the first pane running shellCmd
// (the default shell when empty).
func newTestServerCmd(t *testing.T, shellCmd string) Target {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	var r [6]byte
	if _, err := rand.Read(r[:]); err != nil {
		t.Fatal(err)
	}
	tg := Target{SocketName: "tmuxmcp-test-" + hex.EncodeToString(r[:]), ConfigFile: "/dev/null"}
	var socketPath string
	t.Cleanup(func() { killServer(tg, socketPath) })
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	var err error
	if shellCmd == "" {
		// A plain sh with a home of its own: never the invoking user's rc.
		_, err = tg.EnsureSession(ctx, SessionSpec{Name: "main", Width: 80, Height: 24, Command: []string{"/bin/sh"},
			Env: map[string]string{"HOME": t.TempDir(), "PS1": "$ ", "ENV": "/dev/null"}})
	} else {
		_, err = tg.Run(ctx, "new-session", "-d", "-s", "main", "-x", "80", "-y", "24", shellCmd)
	}
	if err != nil {
		t.Fatalf("start tmux server: %v", err)
	}
	if socketPath, err = tg.Run(ctx, "display-message", "-p", "#{socket_path}"); err != nil {
		t.Fatal(err)
	}
	return tg
}

// killServer kills the server of tg (only that socket; errors mean it is
// already gone) and removes the socket file, which tmux 3.3a leaves behind.
func killServer(tg Target, socketPath string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _ = tg.Run(ctx, "kill-server")
	if socketPath != "" && strings.HasSuffix(socketPath, "/"+tg.SocketName) {
		_ = os.Remove(socketPath)
	}
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	t.Cleanup(cancel)
	return ctx
}

// fakeEvents is a thread-safe Events that collects output per pane and the
// listings, and wakes waiters through channels.
type fakeEvents struct {
	mu         sync.Mutex
	out        map[int][]byte
	outWait    []outWaiter
	listings   [][]PaneInfo
	listWait   []listWaiter
	restarted  map[int]int
	dropped    map[int]int
	dropWait   map[int]chan struct{}
	discErr    error
	disc       chan struct{}
	discOnce   sync.Once
	discCalled int
}

type outWaiter struct {
	pane int
	want []byte
	from int
	ch   chan struct{}
}

type listWaiter struct {
	pred func([]PaneInfo) bool
	ch   chan []PaneInfo
}

func newFakeEvents() *fakeEvents {
	return &fakeEvents{
		out:       map[int][]byte{},
		restarted: map[int]int{},
		dropped:   map[int]int{},
		dropWait:  map[int]chan struct{}{},
		disc:      make(chan struct{}),
	}
}

func (e *fakeEvents) PaneOutput(pane int, data []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.out[pane] = append(e.out[pane], data...)
	kept := e.outWait[:0]
	for _, w := range e.outWait {
		if w.pane == pane && len(e.out[pane]) >= w.from && bytes.Contains(e.out[pane][w.from:], w.want) {
			close(w.ch)
			continue
		}
		kept = append(kept, w)
	}
	e.outWait = kept
}

func (e *fakeEvents) PaneRestarted(pane int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.restarted[pane]++
}

func (e *fakeEvents) PaneOutputDropped(pane int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.dropped[pane]++
	if ch, ok := e.dropWait[pane]; ok {
		close(ch)
		delete(e.dropWait, pane)
	}
}

func (e *fakeEvents) PanesListed(panes []PaneInfo, _ time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	cp := append([]PaneInfo(nil), panes...)
	e.listings = append(e.listings, cp)
	kept := e.listWait[:0]
	for _, w := range e.listWait {
		if w.pred(cp) {
			w.ch <- cp // buffered, capacity 1, sent once
			continue
		}
		kept = append(kept, w)
	}
	e.listWait = kept
}

func (e *fakeEvents) Disconnected(err error) {
	e.mu.Lock()
	e.discErr = err
	e.discCalled++
	e.mu.Unlock()
	e.discOnce.Do(func() { close(e.disc) })
}

func (e *fakeEvents) Reconnected() {}

// output returns a copy of everything pane has delivered so far.
func (e *fakeEvents) output(pane int) []byte {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]byte(nil), e.out[pane]...)
}

// waitOutput waits until pane's collected output from offset from on
// contains want.
func (e *fakeEvents) waitOutput(t *testing.T, pane int, want string, from int) {
	t.Helper()
	e.mu.Lock()
	if len(e.out[pane]) >= from && bytes.Contains(e.out[pane][from:], []byte(want)) {
		e.mu.Unlock()
		return
	}
	ch := make(chan struct{})
	e.outWait = append(e.outWait, outWaiter{pane: pane, want: []byte(want), from: from, ch: ch})
	e.mu.Unlock()
	select {
	case <-ch:
	case <-time.After(waitTimeout):
		t.Fatalf("pane %%%d: %q never arrived; got %q", pane, want, e.output(pane))
	}
}

// waitListing waits for a listing (past or future) that satisfies pred.
func (e *fakeEvents) waitListing(t *testing.T, what string, pred func([]PaneInfo) bool) []PaneInfo {
	t.Helper()
	e.mu.Lock()
	for _, l := range e.listings {
		if pred(l) {
			e.mu.Unlock()
			return l
		}
	}
	ch := make(chan []PaneInfo, 1)
	e.listWait = append(e.listWait, listWaiter{pred: pred, ch: ch})
	e.mu.Unlock()
	select {
	case l := <-ch:
		return l
	case <-time.After(waitTimeout):
		t.Fatalf("no pane listing with %s", what)
		return nil
	}
}

// dropChan returns a channel closed at the next PaneOutputDropped(pane).
func (e *fakeEvents) dropChan(pane int) <-chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	ch, ok := e.dropWait[pane]
	if !ok {
		ch = make(chan struct{})
		e.dropWait[pane] = ch
	}
	return ch
}

func hasPane(id int) func([]PaneInfo) bool {
	return func(ps []PaneInfo) bool {
		for _, p := range ps {
			if p.ID == id {
				return true
			}
		}
		return false
	}
}

// recordSink is a connSink that records everything a Conn decodes.
type recordSink struct {
	mu     sync.Mutex
	out    map[int][]byte
	notes  []Notification
	noteCh chan Notification // optional, non-blocking sends
}

func newRecordSink() *recordSink { return &recordSink{out: map[int][]byte{}} }

func (s *recordSink) output(_ *Conn, pane int, data []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.out[pane] = append(s.out[pane], data...)
}

func (s *recordSink) notify(_ *Conn, n Notification) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notes = append(s.notes, n)
	if s.noteCh != nil {
		select {
		case s.noteCh <- n:
		default:
		}
	}
}

func (s *recordSink) notifications() []Notification {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Notification(nil), s.notes...)
}

// paneID parses "%12" into 12 or fails the test.
func paneID(t *testing.T, s string) int {
	t.Helper()
	s = strings.TrimSpace(s)
	n, ok := parsePaneNumber([]byte(strings.TrimPrefix(s, "%")))
	if !ok || !strings.HasPrefix(s, "%") {
		t.Fatalf("not a pane id: %q", s)
	}
	return n
}
