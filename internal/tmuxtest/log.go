package tmuxtest

import (
	"log/slog"
	"sync"
	"testing"
)

// logKeep is how much of a test's log Log keeps: the end of it, where a
// failure is.
const logKeep = 256 << 10

// Log is a debug logger for the code a test starts: it keeps the last
// logKeep bytes and prints them when the test failed, so a failure seen
// once (on a loaded CI machine) says what led to it.
func Log(t testing.TB) *slog.Logger {
	b := &tailBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the log's last %d bytes:\n%s", logKeep, b.String())
		}
	})
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// tailBuffer keeps the last logKeep bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - logKeep; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
