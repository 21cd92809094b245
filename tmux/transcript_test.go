package tmux

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// TestTranscriptsParse walks every recorded transcript with the same
// framing rules as Conn.read and checks that each line outside a block is a
// guard, an output line or a notification, then checks known lines.
func TestTranscriptsParse(t *testing.T) {
	for name, data := range readTranscripts(t) {
		t.Run(name, func(t *testing.T) {
			tr := walkTranscript(t, data)
			if len(tr.notes) == 0 || tr.notes[len(tr.notes)-1].Name != "exit" {
				t.Errorf("transcript does not end in %%exit: %+v", tr.notes)
			}
			if len(tr.blocks) == 0 || tr.blocks[0].flags != 0 {
				t.Errorf("first block is not the flags=0 attach block: %+v", tr.blocks)
			}
			switch name {
			case "basic.txt":
				checkBasicTranscript(t, tr)
			case "flow.txt":
				checkFlowTranscript(t, tr)
			case "attach-error.txt":
				if len(tr.blocks) != 1 || tr.blocks[0].kind != "error" || tr.blocks[0].flags != 0 {
					t.Errorf("want one flags=0 %%error block, got %+v", tr.blocks)
				}
				tr.body(t, "can't find session: nosuch")
			}
		})
	}
}

// transcript is what a recorded transcript holds, read with the framing
// rules of Conn.read.
type transcript struct {
	lines  [][]byte
	outs   map[int][]byte // every pane's output, unescaped
	notes  []Notification
	bodies map[uint64][]string // block bodies by command number
	blocks []guard             // closing guards in order
}

// walkTranscript reads data line by line, failing t on a line that is not
// a guard, an output line or a notification outside a block.
func walkTranscript(t *testing.T, data []byte) *transcript {
	t.Helper()
	tr := &transcript{lines: transcriptLines(data), outs: map[int][]byte{}, bodies: map[uint64][]string{}}
	var open *guard
	for _, line := range tr.lines {
		g, isGuard := parseGuard(line)
		if open != nil {
			if isGuard && g.kind != "begin" && g.time == open.time && g.number == open.number {
				if g.flags != open.flags {
					t.Errorf("block %d: begin flags %d, end flags %d", g.number, open.flags, g.flags)
				}
				tr.blocks = append(tr.blocks, g)
				open = nil
				continue
			}
			tr.bodies[open.number] = append(tr.bodies[open.number], string(line))
			continue
		}
		if isGuard {
			if g.kind != "begin" {
				t.Errorf("%s outside a block: %q", g.kind, line)
				continue
			}
			open = &g
			continue
		}
		if pane, payload, _, ok := parseOutput(line); ok {
			if !bytes.HasSuffix(line, payload) {
				t.Errorf("payload not a suffix of %q", line)
			}
			tr.outs[pane] = Unescape(tr.outs[pane], payload)
			continue
		}
		n, ok := parseNotification(line)
		if !ok {
			t.Errorf("unparsable line outside a block: %q", line)
			continue
		}
		if n.Name == "output" || n.Name == "extended-output" || n.Name == "begin" || n.Name == "end" || n.Name == "error" {
			t.Errorf("%q parsed as notification %q", line, n.Name)
		}
		tr.notes = append(tr.notes, n)
	}
	if open != nil {
		t.Errorf("block %d never closed", open.number)
	}
	return tr
}

// has fails t unless the transcript has notification name with args ("*":
// any).
func (tr *transcript) has(t *testing.T, name, args string) {
	t.Helper()
	for _, n := range tr.notes {
		if n.Name == name && (args == "*" || n.Args == args) {
			return
		}
	}
	t.Errorf("no notification %%%s %q in %+v", name, args, tr.notes)
}

// body fails t unless a block of the transcript has the body want.
func (tr *transcript) body(t *testing.T, want ...string) {
	t.Helper()
	for _, b := range tr.bodies {
		if strings.Join(b, "\n") == strings.Join(want, "\n") {
			return
		}
	}
	t.Errorf("no block with body %q", want)
}

// checkBasicTranscript checks the known lines of basic.txt.
func checkBasicTranscript(t *testing.T, tr *transcript) {
	t.Helper()
	tr.has(t, "session-changed", "$0 main")
	tr.has(t, "window-add", "@1")
	tr.has(t, "layout-change", "*")
	tr.has(t, "sessions-changed", "")
	tr.body(t, "hello")
	tr.body(t, "can't find session: nosuch")
	tr.body(t, "parse error: unknown command: nosuchcommand")
	tr.body(t, "%end 1 2 1") // a body line that looks like a guard
	tr.body(t, "%1")         // new-window -P
	tr.body(t, "after-batch")
	if !bytes.Contains(tr.outs[0], []byte("A\x01B\\C\tD é日😀\r\n")) {
		t.Errorf("pane 0 output %q lacks the printf line", tr.outs[0])
	}
	if !bytes.Contains(tr.outs[1], []byte("BEGIN\x00\x01\x02")) || !bytes.HasSuffix(tr.outs[1], []byte("\xfe\xffEND")) {
		t.Errorf("pane 1 output %q is not bytes 0..255", tr.outs[1])
	}
	for _, n := range tr.notes {
		if n.Name == "layout-change" && !strings.HasPrefix(n.Args, "@0 ") {
			t.Errorf("layout-change args %q", n.Args)
		}
	}
}

// checkFlowTranscript checks the known lines of flow.txt.
func checkFlowTranscript(t *testing.T, tr *transcript) {
	t.Helper()
	tr.has(t, "window-renamed", "@0 my window")
	tr.has(t, "unlinked-window-close", "@1")
	tr.has(t, "session-renamed", "$0 renamed")
	tr.has(t, "subscription-changed", "dead $0 @0 0 %0 : 0")
	tr.has(t, "pane-mode-changed", "%0")
	tr.body(t, "%pause %0")
	tr.body(t, "%continue %0")
	tr.body(t, "HOOKRAN")
	if !bytes.Contains(tr.outs[0], []byte("\r\nx : y\r\n")) {
		t.Errorf("pane 0 output %q lacks x : y", tr.outs[0])
	}
	for _, l := range tr.lines {
		if bytes.HasPrefix(l, []byte("%output ")) {
			t.Errorf("plain %%output after pause-after: %q", l)
		}
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// replay runs Conn.read over a transcript after queueing cmds (each one
// line; several commands in one element form one batch line) and returns
// the requests, the sink and what the initial channel received.
func replay(t *testing.T, data []byte, lines ...[][]string) ([][]*request, *recordSink, *Conn, error) {
	t.Helper()
	proc := exec.Command("true")
	if err := proc.Start(); err != nil {
		t.Fatal(err)
	}
	sink := newRecordSink()
	c := &Conn{
		session: "main", cmd: proc, stdin: nopWriteCloser{io.Discard}, sink: sink, log: discardLog,
		ready: make(chan struct{}), done: make(chan struct{}),
	}
	var reqs [][]*request
	for _, l := range lines {
		r, err := c.send(context.Background(), nil, l)
		if err != nil {
			t.Fatal(err)
		}
		reqs = append(reqs, r)
	}
	initial := make(chan error, 1)
	c.read(bytes.NewReader(data), initial, &bytes.Buffer{})
	select {
	case <-c.Done():
	default:
		t.Fatal("read returned without closing done")
	}
	var initErr error
	select {
	case initErr = <-initial:
	default:
		t.Fatal("read never reported the initial block")
	}
	for _, rs := range reqs {
		for _, r := range rs {
			select {
			case <-r.done:
			default:
				t.Fatalf("request %s never completed", r.command)
			}
		}
	}
	return reqs, sink, c, initErr
}

func one(args ...string) [][]string { return [][]string{args} }

func wantLines(t *testing.T, r *request, want ...string) {
	t.Helper()
	if r.err != nil {
		t.Errorf("%s: unexpected error %v", r.command, r.err)
		return
	}
	if strings.Join(r.lines, "\n") != strings.Join(want, "\n") || len(r.lines) != len(want) {
		t.Errorf("%s: lines %q, want %q", r.command, r.lines, want)
	}
}

func wantCommandError(t *testing.T, r *request, msg string) {
	t.Helper()
	var ce *CommandError
	if !errors.As(r.err, &ce) || ce.Message != msg || ce.Command != r.command {
		t.Errorf("%s: error %v, want CommandError %q", r.command, r.err, msg)
	}
}

// TestReplayBasic feeds basic.txt through Conn.read with the commands the
// recorder sent queued as pending requests.
func TestReplayBasic(t *testing.T) {
	data := readTranscripts(t)["basic.txt"]
	reqs, sink, c, initErr := replay(t, data,
		one("display-message", "-p", "hello"),
		one("list-windows", "-t", "nosuch"),
		one("nosuchcommand"),
		one("set-buffer", "-b", "t", "%end 1 2 1"),
		one("show-buffer", "-b", "t"),
		one("new-window", "-d", "-P", "-F", "#{pane_id}", "..."),
		one("send-keys", "-t", "%0", "-l", "--", "..."),
		one("send-keys", "-t", "%0", "Enter"),
		one("split-window", "-d", "-t", "%0"),
		[][]string{{"has-session", "-t", "=nosuch"}, {"display-message", "-p", "skipped"}},
		one("display-message", "-p", "after-batch"),
		one("new-session", "-d", "-s", "other"),
		one("kill-server"),
		one("display-message", "-p", "never answered"),
	)
	if initErr != nil {
		t.Errorf("initial block: %v", initErr)
	}
	wantLines(t, reqs[0][0], "hello")
	wantCommandError(t, reqs[1][0], "can't find session: nosuch")
	wantCommandError(t, reqs[2][0], "parse error: unknown command: nosuchcommand")
	wantLines(t, reqs[3][0])
	wantLines(t, reqs[4][0], "%end 1 2 1")
	wantLines(t, reqs[5][0], "%1")
	for i := 6; i <= 8; i++ {
		wantLines(t, reqs[i][0])
	}
	wantCommandError(t, reqs[9][0], "can't find session: nosuch")
	if !errors.Is(reqs[9][1].err, errNotRun) {
		t.Errorf("skipped batch command: err %v, want errNotRun", reqs[9][1].err)
	}
	wantLines(t, reqs[10][0], "after-batch")
	wantLines(t, reqs[11][0])
	wantLines(t, reqs[12][0])
	if !errors.Is(reqs[13][0].err, ErrClosed) {
		t.Errorf("request after %%exit: err %v, want ErrClosed", reqs[13][0].err)
	}
	if _, err := c.Exec(t.Context(), "display-message"); !errors.Is(err, ErrClosed) {
		t.Errorf("Exec after EOF: %v, want ErrClosed", err)
	}
	if c.ExitReason() != "" {
		t.Errorf("ExitReason = %q", c.ExitReason())
	}

	sink.mu.Lock()
	out0, out1 := sink.out[0], sink.out[1]
	sink.mu.Unlock()
	if !bytes.Contains(out0, []byte("A\x01B\\C\tD é日😀\r\n")) {
		t.Errorf("pane 0 output %q", out0)
	}
	var all []byte
	for i := 0; i < 256; i++ {
		all = append(all, byte(i))
	}
	if want := append(append([]byte("BEGIN"), all...), "END"...); !bytes.Equal(out1, want) {
		t.Errorf("pane 1 output %q, want %q", out1, want)
	}
	var names []string
	for _, n := range sink.notifications() {
		names = append(names, n.Name)
	}
	got := strings.Join(names, " ")
	for _, want := range []string{"session-changed", "window-add", "layout-change", "unlinked-window-add", "sessions-changed", "exit"} {
		if !strings.Contains(" "+got+" ", " "+want+" ") {
			t.Errorf("notification %s missing from %s", want, got)
		}
	}
	for _, n := range names {
		if n == "end" || n == "1" || n == "begin" || n == "error" {
			t.Errorf("a body line leaked out as notification %q", n)
		}
	}
}

// TestReplayFlow: pause-after output, %pause/%continue inside
// refresh-client blocks, and a hook's flags=0 block that must not consume a
// pending request.
func TestReplayFlow(t *testing.T) {
	data := readTranscripts(t)["flow.txt"]
	reqs, sink, c, initErr := replay(t, data,
		one("refresh-client", "-f", "pause-after=5"),
		one("send-keys", "-t", "%0", "-l", "--", "..."),
		one("send-keys", "-t", "%0", "Enter"),
		one("refresh-client", "-A", "%0:pause"),
		one("refresh-client", "-A", "%0:continue"),
		one("set-hook", "-g", "after-new-window", "display-message -p HOOKRAN"),
		one("new-window", "-d"),
		one("rename-window", "-t", "@0", "my window"),
		one("kill-window", "-t", "@1"),
		one("rename-session", "-t", "main", "renamed"),
		one("refresh-client", "-B", "dead:%*:#{pane_dead}"),
		one("copy-mode", "-t", "%0"),
	)
	if initErr != nil {
		t.Errorf("initial block: %v", initErr)
	}
	for _, rs := range reqs {
		wantLines(t, rs[0]) // every reply is empty; HOOKRAN belongs to no request
	}
	sink.mu.Lock()
	out0 := sink.out[0]
	sink.mu.Unlock()
	if !bytes.Contains(out0, []byte("\r\nx : y\r\n")) {
		t.Errorf("pane 0 output %q", out0)
	}
	var pauses, continues int
	for _, n := range sink.notifications() {
		p, ok := n.PaneArg()
		switch n.Name {
		case "pause":
			pauses++
			if !ok || p != 0 {
				t.Errorf("%%pause args %q", n.Args)
			}
		case "continue":
			continues++
			if !ok || p != 0 {
				t.Errorf("%%continue args %q", n.Args)
			}
		}
	}
	if pauses != 1 || continues != 1 {
		t.Errorf("%d pauses and %d continues, want 1 and 1", pauses, continues)
	}
	if _, err := c.Exec(t.Context(), "display-message"); !errors.Is(err, ErrClosed) {
		t.Errorf("Exec after EOF: %v, want ErrClosed", err)
	}
}

func TestReplayAttachError(t *testing.T) {
	data := readTranscripts(t)["attach-error.txt"]
	_, _, _, initErr := replay(t, data)
	if initErr == nil || !strings.Contains(initErr.Error(), "can't find session: nosuch") {
		t.Errorf("initial error %v, want can't find session", initErr)
	}
}

// TestReplayLongLines: lines longer than the reader's 64 KiB buffer, as an
// %output payload and as a body line.
func TestReplayLongLines(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 300<<10/16)
	var in bytes.Buffer
	in.WriteString("%begin 1 1 0\n%end 1 1 0\n")
	in.WriteString("%output %3 ")
	in.Write(tmuxEscape(big))
	in.WriteString("\n%begin 2 2 1\n")
	in.Write(big)
	in.WriteString("\nshort\n%end 2 2 1\n%exit\n")
	reqs, sink, _, initErr := replay(t, in.Bytes(), one("show-buffer"))
	if initErr != nil {
		t.Fatal(initErr)
	}
	wantLines(t, reqs[0][0], string(big), "short")
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if !bytes.Equal(sink.out[3], big) {
		t.Errorf("long %%output: got %d bytes, want %d", len(sink.out[3]), len(big))
	}
}
