package runner

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/internal/tmuxtest"
	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/stream"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

func TestMain(m *testing.M) { tmuxtest.Main(m) }

// noEvents drops what the fleet sees: these tests feed the hub by hand.
type noEvents struct{}

func (noEvents) PaneOutput(int, []byte)                 {}
func (noEvents) PaneRestarted(int)                      {}
func (noEvents) PaneOutputDropped(int)                  {}
func (noEvents) PanesListed([]tmux.PaneInfo, time.Time) {}
func (noEvents) Disconnected(error)                     {}
func (noEvents) Reconnected()                           {}

// handFed returns a runner on a private tmux server whose hub is fed by
// hand: pane 999 exists only in the hub.
func handFed(t *testing.T, retain int) (*Runner, *stream.Hub) {
	t.Helper()
	target := tmuxtest.Server(t, "main", 80, 24)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	fleet, err := tmux.StartFleet(ctx, target, noEvents{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	store, err := jobs.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	hub := stream.NewHub(retain)
	r := New(Config{Hub: hub, Fleet: fleet, Jobs: store})
	t.Cleanup(func() {
		r.Close()
		fleet.Close()
		hub.Close()
	})
	return r, hub
}

// watchFed starts watching a fresh-pane job on pane 999 and feeds output.
func watchFed(t *testing.T, retain int, output string) (*Runner, *stream.Hub, *jobs.Job, *Run) {
	t.Helper()
	r, hub := handFed(t, retain)
	s := hub.Adopt(999)
	j, _ := r.jobs.Create(&jobs.Job{Status: jobs.Running, Mode: "integrated", ShellTag: "s1", OutputLimit: 8192, PaneID: "%999", FreshPane: true, Started: time.Now()})
	r.Spawn(&Started{Job: j, Stream: s, From: 0})
	r.mu.Lock()
	run := r.runs[j.ID] // before any output: a watcher that is done leaves runs
	r.mu.Unlock()
	hub.Output(999, []byte(output))
	return r, hub, j, run
}

func TestEndMarkSplitAcrossReads(t *testing.T) {
	r, hub, j, run := watchFed(t, 0, "\x1b]133;C;tmuxmcp=s1\x07hello\r\n\x1b]133;D;")
	hub.Output(999, []byte("7;tmuxmcp=s1\x07\x1b]133;A;tmuxmcp=s1\x07$ "))
	select {
	case <-run.done:
	case <-time.After(10 * time.Second):
		t.Fatal("job did not end")
	}
	got, _ := r.jobs.Get(j.ID)
	if got.Status != jobs.Completed || got.ExitCode == nil || *got.ExitCode != 7 || got.Output != "hello\n" {
		t.Fatalf("got %+v", got)
	}
}

func TestStartMarkEvictedBeforeItWasRead(t *testing.T) {
	r, _, j, run := watchFed(t, 1024, "\x1b]133;C;tmuxmcp=s1\x07"+strings.Repeat("x", 4096)+"\r\n\x1b]133;D;0;tmuxmcp=s1\x07\x1b]133;A;tmuxmcp=s1\x07$ ")
	select {
	case <-run.done:
	case <-time.After(10 * time.Second):
		t.Fatal("job never ended: its start mark was evicted")
	}
	// Either the bytes were lost before the job's spool was tapped (and
	// counted), or the spool kept them all.
	if got, _ := r.jobs.Get(j.ID); got.Status != jobs.Completed || got.MissedBytes == 0 && got.OutputBytes != 4097 {
		t.Fatalf("got %+v", got)
	}
}

// Where tmux discarded output, the job's output says so on a line of its
// own and counts it missed, instead of splicing the two sides together.
func TestDiscardedOutputIsMarkedInPlace(t *testing.T) {
	r, hub, j, run := watchFed(t, 0, "\x1b]133;C;tmuxmcp=s1\x07before-")
	hub.Dropped(999)
	hub.Output(999, []byte("-after\r\n\x1b]133;D;0;tmuxmcp=s1\x07\x1b]133;A;tmuxmcp=s1\x07$ "))
	select {
	case <-run.done:
	case <-time.After(10 * time.Second):
		t.Fatal("job did not end")
	}
	got, _ := r.jobs.Get(j.ID)
	if want := "before-\n" + gapLine + "-after\n"; got.Output != want || got.MissedBytes < 1 {
		t.Fatalf("output %q, missed %d; want %q", got.Output, got.MissedBytes, want)
	}
}

func TestCutOutputKeepsTheHeadAndTheTailOnLineBoundaries(t *testing.T) {
	var all strings.Builder
	for i := 1; i <= 10000; i++ {
		fmt.Fprintf(&all, "%d\n", i)
	}
	s := all.String()
	limit := 1000
	text, left := headTail([]byte(s[:limit/2]), []byte(s[len(s)-2*limit:]), int64(len(s)), 10000, limit)
	if len(text) > limit || !strings.HasPrefix(text, "1\n2\n") || !strings.HasSuffix(text, "\n9999\n10000\n") {
		t.Fatalf("head and tail (%d bytes):\n%s", len(text), text)
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	var marker string
	kept := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "[… tmuxmcp left out") {
			marker = l
			continue
		}
		kept += len(l) + 1
		if _, err := strconv.Atoi(l); err != nil {
			t.Fatalf("a cut line %q", l)
		}
	}
	want := fmt.Sprintf("[… tmuxmcp left out %d bytes (%d lines) here: outputFile has the whole output …]", left, 10000-(len(lines)-1))
	if marker != want || int64(kept)+left != int64(len(s)) {
		t.Fatalf("marker %q, want %q (kept %d + left %d != %d)", marker, want, kept, left, len(s))
	}
}

// A failed write of the output file (a full disk) is told, once, and the
// output and its count stay right.
func TestAFullDiskIsToldNotHidden(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	var logged []error
	o := newJobOutput("/dev/full", 1024, false)
	o.log = func(err error) { logged = append(logged, err) }
	dec := stream.NewPlain(0)
	for i := 0; i < 3; i++ {
		o.feed(dec, []byte("line of output\r\n"))
	}
	o.close()
	if o.err == nil || !strings.Contains(o.err.Error(), "no space left on device") || len(logged) != 1 {
		t.Fatalf("err %v, logged %v", o.err, logged)
	}
	if text, _ := o.text(); text != strings.Repeat("line of output\n", 3) || o.total != 45 {
		t.Fatalf("output %q (%d bytes)", text, o.total)
	}
}

// A spool gives back what the watcher read, so a job that prints for
// hours keeps a bounded file on disk, and still serves what is unread.
func TestTheSpoolStaysBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.raw")
	sp, err := newSpool(path)
	if err != nil {
		t.Fatal(err)
	}
	defer sp.remove()
	sp.start(1000)
	chunk := bytes.Repeat([]byte("0123456789abcdef"), 4096) // 64 KiB
	for at := int64(1000); at < 1000+64<<20; at += int64(len(chunk)) {
		sp.write(at, chunk, false)
		sp.release(at) // the watcher keeps up
	}
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	if used := st.Blocks * 512; used > 24<<20 {
		t.Fatalf("the spool holds %d MiB on disk after 64 MiB written and read", used>>20)
	}
	end := int64(1000 + 64<<20)
	if got := sp.readAt(end-16, 16, nil); string(got) != "0123456789abcdef" {
		t.Fatalf("unread bytes: %q", got)
	}
	if got := sp.readAt(1000, 16, nil); got != nil {
		t.Fatalf("freed bytes served: %q", got)
	}
}

// A running job's output is read from its live counts: the same text,
// size and left-out bytes as counting the whole file, from any offset.
func TestRunningOutputFromAnyOffsetIsWhatTheFileSays(t *testing.T) {
	path := filepath.Join(t.TempDir(), "job.out")
	o := newJobOutput(path, 4096, false)
	dec := stream.NewPlain(0)
	var raw bytes.Buffer
	for i := 0; raw.Len() < 600<<10; i++ {
		fmt.Fprintf(&raw, "line %d of the job's output\r\n", i)
		if i%1000 == 0 {
			raw.WriteString(strings.Repeat("é", 70<<10)) // a line longer than a mark's span
		}
	}
	data := raw.Bytes()
	for p := data; len(p) > 0; {
		n := min(len(p), 7777)
		o.feed(dec, p[:n])
		p = p[n:]
	}
	for _, from := range []int64{0, 1, 4095, 4096, markEvery - 1, markEvery, markEvery + 1, 3*markEvery + 17, o.total - 5000, o.total - 4096, o.total - 1, o.total, o.total + 9} {
		for _, limit := range []int{1024, 4096, 10000} {
			text, size, left, ok := o.since(from, limit)
			wText, wSize, wLeft, wOK := fileOutputSince(path, from, limit)
			if !ok || !wOK || text != wText || size != wSize || left != wLeft {
				t.Fatalf("from %d limit %d: live (%d, %d, %v) %q\nfile (%d, %d, %v) %q", from, limit, size, left, ok, text[:min(len(text), 200)], wSize, wLeft, wOK, wText[:min(len(wText), 200)])
			}
		}
	}
	o.close()
}
