package tmux

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// startRawFleet starts a fleet that reads panes raw, through this test
// binary as the relay (TestMain calls RelayMain).
func startRawFleet(t *testing.T, tg Target, ev Events) *Fleet {
	t.Helper()
	relay := SelfRelay()
	if relay == nil {
		t.Fatal("SelfRelay is nil although TestMain called RelayMain")
	}
	f, err := StartFleetWith(testCtx(t), tg, ev, discardLog, Options{Relay: relay})
	if err != nil {
		t.Fatalf("StartFleetWith: %v", err)
	}
	t.Cleanup(f.Close)
	return f
}

// waitIngest waits until pane is read the way want says.
func waitIngest(t *testing.T, f *Fleet, pane int, want string) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for f.Ingest(pane) != want {
		if time.Now().After(deadline) {
			t.Fatalf("pane %%%d is read through %q, want %q", pane, f.Ingest(pane), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

var numbered = regexp.MustCompile(`L(\d+)\r\n`)

// TestARawPaneRecordsEveryByteOnceAcrossTheHandOver hands a pane that
// prints as fast as it can over from %output to its pipe: the recording has
// every line once, in order, with nothing lost or repeated at the switch.
func TestARawPaneRecordsEveryByteOnceAcrossTheHandOver(t *testing.T) {
	t.Parallel()
	const n = 300000
	tg := newTestServerCmd(t, fmt.Sprintf("sh -c 'sleep 0.5; i=0; while [ $i -lt %d ]; do i=$((i+1)); echo L$i; done; echo DONE; sleep 600'", n))
	ev := newFakeEvents()
	f := startRawFleet(t, tg, ev)
	id := mainPane(t, tg)
	ev.waitOutput(t, id, "DONE", 0)
	if got := f.Ingest(id); got != IngestPipe {
		t.Fatalf("Ingest = %q, want %q", got, IngestPipe)
	}
	out := ev.output(id)
	m := numbered.FindAllSubmatch(out, -1)
	if len(m) == 0 {
		t.Fatal("no numbered line recorded")
	}
	first, _ := strconv.Atoi(string(m[0][1]))
	for i, x := range m {
		v, _ := strconv.Atoi(string(x[1]))
		if v != first+i {
			t.Fatalf("line %d of the recording is L%d, want L%d (a byte lost or repeated at the hand-over)", i, v, first+i)
		}
	}
	if last := first + len(m) - 1; last != n {
		t.Fatalf("last line L%d, want L%d", last, n)
	}
	ev.mu.Lock()
	dropped := ev.dropped[id]
	ev.mu.Unlock()
	if dropped != 0 {
		t.Errorf("%d drops reported for a pane that lost nothing", dropped)
	}
}

func TestAPaneSomeoneAlreadyPipesStaysOnControlMode(t *testing.T) {
	t.Parallel()
	tg := newTestServer(t)
	id := mainPane(t, tg)
	log := t.TempDir() + "/log"
	if _, err := tg.Run(testCtx(t), "pipe-pane", "-t", PaneName(id), "cat >> "+log); err != nil {
		t.Fatal(err)
	}
	ev := newFakeEvents()
	f := startRawFleet(t, tg, ev)
	ctx := testCtx(t)
	if _, err := f.Exec(ctx, "send-keys", "-t", PaneName(id), "echo hi $((6*7))", "Enter"); err != nil {
		t.Fatal(err)
	}
	ev.waitOutput(t, id, "hi 42", 0)
	if got := f.Ingest(id); got != IngestControl {
		t.Errorf("Ingest = %q, want %q: the user's pipe must not be replaced", got, IngestControl)
	}
	// Their pipe still gets the pane's output.
	deadline := time.Now().Add(waitTimeout)
	for {
		b, _ := os.ReadFile(log)
		if bytes.Contains(b, []byte("hi 42")) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the user's pipe-pane log has %q", b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestAPipeClosedBySomeoneElseFallsBackToControlModeAndReportsTheGap(t *testing.T) {
	t.Parallel()
	tg := newTestServer(t)
	ev := newFakeEvents()
	f := startRawFleet(t, tg, ev)
	ctx := testCtx(t)
	id := mainPane(t, tg)
	waitIngest(t, f, id, IngestPipe)
	dropped := ev.dropChan(id)
	if _, err := tg.Run(ctx, "pipe-pane", "-t", PaneName(id)); err != nil { // closes the pane's pipe
		t.Fatal(err)
	}
	select {
	case <-dropped:
	case <-time.After(waitTimeout):
		t.Fatal("no PaneOutputDropped after the pipe was closed")
	}
	waitIngest(t, f, id, IngestControl)
	from := len(ev.output(id))
	if _, err := f.Exec(ctx, "send-keys", "-t", PaneName(id), "echo back $((6*7))", "Enter"); err != nil {
		t.Fatal(err)
	}
	ev.waitOutput(t, id, "back 42", from)
}

func TestAMarkSeesEveryByteThePanePrintedBeforeIt(t *testing.T) {
	t.Parallel()
	tg := newTestServer(t)
	ev := newFakeEvents()
	f := startRawFleet(t, tg, ev)
	ctx := testCtx(t)
	id := mainPane(t, tg)
	waitIngest(t, f, id, IngestPipe)
	for i := range 20 {
		want := fmt.Sprintf("mark%d-%d", i, i*7)
		if _, err := f.Exec(ctx, "send-keys", "-t", PaneName(id), fmt.Sprintf("echo mark%d-$((%d*7))", i, i), "Enter"); err != nil {
			t.Fatal(err)
		}
		ev.waitOutput(t, id, want, 0)
		// The pane printed its prompt after the line; a mark taken now must
		// see it in the recording once the pane is idle.
		var seen []byte
		if err := f.MarkPane(ctx, id, func() { seen = ev.output(id) }); err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(seen, []byte(want)) {
			t.Fatalf("mark %d ran before the bytes the pane printed before it were handed on", i)
		}
	}
}

func TestARelayWithAnUnknownTokenIsRefused(t *testing.T) {
	t.Parallel()
	l, err := listenRelay(discardLog, func() int { return 0 })
	if err != nil {
		t.Fatal(err)
	}
	defer l.close()
	token, ch := l.expect()
	defer l.forget(token)
	a, b, err := socketPair()
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	defer b.Close()
	// handOver sends descriptor 0; send b's descriptor with a wrong token.
	c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: l.addr, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.WriteMsgUnix([]byte("0123456789abcdef0123456789abcdef"), unixRights(b), nil); err != nil {
		t.Fatal(err)
	}
	c.Close()
	select {
	case f := <-ch:
		f.Close()
		t.Fatal("a hand-over with another token was taken")
	case <-time.After(300 * time.Millisecond):
	}
}

func socketPair() (*os.File, *os.File, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		return nil, nil, err
	}
	return os.NewFile(uintptr(fds[0]), "a"), os.NewFile(uintptr(fds[1]), "b"), nil
}

func unixRights(f *os.File) []byte { return syscall.UnixRights(int(f.Fd())) }

// TestABrokenRelayLosesNothingAndLeavesPanesOnControlMode: a relay that
// never connects (here /bin/false) leaves the pane on %output with every
// byte it printed meanwhile, and later panes are not tried again.
func TestABrokenRelayLosesNothingAndLeavesPanesOnControlMode(t *testing.T) {
	t.Parallel()
	tg := newTestServer(t)
	ev := newFakeEvents()
	f, err := StartFleetWith(testCtx(t), tg, ev, discardLog, Options{Relay: []string{"/bin/false"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	ctx := testCtx(t)
	id := mainPane(t, tg)
	if _, err := f.Exec(ctx, "send-keys", "-t", PaneName(id), "i=0; while [ $i -lt 300 ]; do i=$((i+1)); echo L$i; sleep 0.02; done", "Enter"); err != nil {
		t.Fatal(err)
	}
	ev.waitOutput(t, id, "L300\r\n", 0)
	m := numbered.FindAllSubmatch(ev.output(id), -1)
	if len(m) != 300 {
		t.Fatalf("%d numbered lines recorded, want 300", len(m))
	}
	for i, x := range m {
		if v, _ := strconv.Atoi(string(x[1])); v != i+1 {
			t.Fatalf("line %d is L%d", i+1, v)
		}
	}
	waitIngest(t, f, id, IngestControl)
	out, err := f.Exec(ctx, "new-window", "-d", "-P", "-F", "#{pane_id}", "sh")
	if err != nil {
		t.Fatal(err)
	}
	second := paneID(t, out[0])
	f.RefreshPanes()
	start := time.Now()
	if err := f.MarkPane(ctx, second, func() {}); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > relayWait/2 {
		t.Errorf("a mark on a pane after the relay failed took %v: it waited for another relay", took)
	}
}

// TestWhatAPaneShowsIsNeverAheadOfItsRecording: a raw pane's screen and
// state are read after its pipe is drained, so whatever the screen shows
// is already in the recording.
func TestWhatAPaneShowsIsNeverAheadOfItsRecording(t *testing.T) {
	t.Parallel()
	tg := newTestServer(t)
	ev := newFakeEvents()
	f := startRawFleet(t, tg, ev)
	ctx := testCtx(t)
	id := mainPane(t, tg)
	waitIngest(t, f, id, IngestPipe)
	if _, err := f.Exec(ctx, "send-keys", "-t", PaneName(id), "i=0; while [ $i -lt 3000 ]; do i=$((i+1)); echo S$i; done", "Enter"); err != nil {
		t.Fatal(err)
	}
	shown := regexp.MustCompile(`^S(\d+)$`)
	for seen := 0; seen < 3000; {
		_, rows, err := f.PaneScreen(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		rec := ev.output(id)
		for _, r := range rows {
			m := shown.FindStringSubmatch(r)
			if m == nil {
				continue
			}
			// The line, maybe without its line end yet (tmux read it in two).
			if !regexp.MustCompile(`S` + m[1] + `(\r|$)`).Match(rec) {
				t.Fatalf("the screen shows S%s before the recording has it", m[1])
			}
			if v, _ := strconv.Atoi(m[1]); v > seen {
				seen = v
			}
		}
	}
}

// TestTheNextFleetPipesAPaneTheLastOneLeft: a fleet that closes leaves
// its panes unpiped, and a pipe left by a process that has exited (a
// crash: no chance to close it) is taken over, while a pipe of anyone
// else is left alone.
func TestTheNextFleetPipesAPaneTheLastOneLeft(t *testing.T) {
	t.Parallel()
	tg := newTestServer(t)
	id := mainPane(t, tg)
	ctx := testCtx(t)
	first, err := StartFleetWith(ctx, tg, newFakeEvents(), discardLog, Options{Relay: SelfRelay()})
	if err != nil {
		t.Fatal(err)
	}
	waitIngest(t, first, id, IngestPipe)
	first.Close()
	if out, _ := tg.Run(ctx, "display-message", "-p", "-t", PaneName(id), "#{pane_pipe}"); out != "0" {
		t.Fatalf("after the fleet closed, pane_pipe = %q, want 0", out)
	}
	// A pipe whose owner has exited: a process that is gone by now.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.Run(ctx, "pipe-pane", "-t", PaneName(id), "cat > /dev/null"); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.Run(ctx, "set-option", "-p", "-t", PaneName(id), PipeOption, strconv.Itoa(dead.Process.Pid)); err != nil {
		t.Fatal(err)
	}
	ev := newFakeEvents()
	second := startRawFleet(t, tg, ev)
	waitIngest(t, second, id, IngestPipe)
	if _, err := second.Exec(ctx, "send-keys", "-t", PaneName(id), "echo again $((6*7))", "Enter"); err != nil {
		t.Fatal(err)
	}
	ev.waitOutput(t, id, "again 42", 0)
}

// TestThePanesOfAServerTmuxmcpStartsDoNotSeeItsRelayNote: RelayMain's
// note in this process's environment is not handed to tmux, so no shell
// of a pane sees it.
func TestThePanesOfAServerTmuxmcpStartsDoNotSeeItsRelayNote(t *testing.T) {
	for _, kv := range cleanEnv([]string{"A=1", relayReadyEnv + "=42", "TMUX=/tmp/x,1,0"}) {
		if kv != "A=1" {
			t.Errorf("cleanEnv kept %q", kv)
		}
	}
}

// TestOnlyAChildOfTheTmuxServerCanHandOverAPanesOutput: the right token
// is not enough (a process of the same user can read it from a relay's
// environment): the sender must be the tmux server's child.
func TestOnlyAChildOfTheTmuxServerCanHandOverAPanesOutput(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		server int
		taken  bool
	}{
		{"the sender's parent is the server", os.Getppid(), true},
		{"the sender's parent is another process", 1, false},
	} {
		l, err := listenRelay(discardLog, func() int { return c.server })
		if err != nil {
			t.Fatal(err)
		}
		token, ch := l.expect()
		go func() { _ = handOver(l.addr, token) }() // from this test process
		select {
		case f := <-ch:
			f.Close()
			if !c.taken {
				t.Errorf("%s: the hand-over was taken", c.name)
			}
		case <-time.After(2 * time.Second):
			if c.taken {
				t.Errorf("%s: the hand-over was refused", c.name)
			}
		}
		l.forget(token)
		l.close()
	}
}
