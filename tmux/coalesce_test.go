package tmux

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// callSink records every sink call in order.
type callSink struct {
	mu    sync.Mutex
	calls []string
	got   chan struct{}
}

func (s *callSink) output(_ *Conn, pane int, data []byte) {
	s.mu.Lock()
	s.calls = append(s.calls, callPane(pane)+":"+string(data))
	s.mu.Unlock()
	select {
	case s.got <- struct{}{}:
	default:
	}
}

func (s *callSink) notify(_ *Conn, n Notification) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, "%"+n.Name)
}

func callPane(p int) string { return "%" + string(rune('0'+p)) }

func newCallConn(t *testing.T, sink connSink) *Conn {
	t.Helper()
	proc := exec.Command("true")
	if err := proc.Start(); err != nil {
		t.Fatal(err)
	}
	return &Conn{session: "main", cmd: proc, stdin: nopWriteCloser{io.Discard}, sink: sink, log: discardLog,
		ready: make(chan struct{}), done: make(chan struct{})}
}

// Output lines of one pane that arrive together are handed on as one piece;
// a change of pane or any other line ends the piece, so order is kept.
func TestBufferedOutputOfOnePaneIsOnePiece(t *testing.T) {
	sink := &callSink{}
	c := newCallConn(t, sink)
	data := "%begin 1 1 0\n%end 1 1 0\n" +
		"%output %1 a\\015\\012\n%output %1 b\n%output %1 c\n" +
		"%output %2 x\n%output %1 d\n%window-renamed @1 w\n%output %1 e\n"
	c.read(bytes.NewReader([]byte(data)), make(chan error, 1), &bytes.Buffer{})
	want := []string{"%1:a\r\nbc", "%2:x", "%1:d", "%window-renamed", "%1:e"}
	if len(sink.calls) != len(want) {
		t.Fatalf("calls %q, want %q", sink.calls, want)
	}
	for i := range want {
		if sink.calls[i] != want[i] {
			t.Fatalf("calls %q, want %q", sink.calls, want)
		}
	}
}

// Output is never held back waiting for the next line.
func TestOutputIsHandedOnBeforeTheNextLineArrives(t *testing.T) {
	sink := &callSink{got: make(chan struct{}, 1)}
	c := newCallConn(t, sink)
	pr, pw := io.Pipe()
	go c.read(pr, make(chan error, 1), &bytes.Buffer{})
	if _, err := io.WriteString(pw, "%begin 1 1 0\n%end 1 1 0\n%output %1 first\n"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	select {
	case <-sink.got:
	case <-ctx.Done():
		t.Fatal("the first line was held until more output came")
	}
	_ = pw.Close()
	<-c.Done()
}
