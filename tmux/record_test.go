package tmux

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// transcriptDir holds raw stdout of real `tmux -C` clients (tmux 3.3a),
// recorded by TestRecordTranscripts. The parser tests replay them and the
// fuzz targets are seeded from them.
const transcriptDir = "../testdata/transcripts"

// TestRecordTranscripts re-records the transcripts. It only runs with
// TMUXMCP_RECORD_TRANSCRIPTS=1 because the replay tests check specific lines
// of the files as recorded:
//
//	TMUXMCP_RECORD_TRANSCRIPTS=1 go test -run TestRecordTranscripts ./tmux
func TestRecordTranscripts(t *testing.T) {
	if os.Getenv("TMUXMCP_RECORD_TRANSCRIPTS") != "1" {
		t.Skip("set TMUXMCP_RECORD_TRANSCRIPTS=1 to re-record testdata/transcripts")
	}
	if err := os.MkdirAll(transcriptDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, script := range map[string]func(*testing.T, Target) []byte{
		"basic.txt":        recordBasic,
		"flow.txt":         recordFlow,
		"attach-error.txt": recordAttachError,
	} {
		t.Run(name, func(t *testing.T) {
			tg := newRecordServer(t)
			data := script(t, tg)
			if err := os.WriteFile(filepath.Join(transcriptDir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// allBytesCommand prints bytes 0..255 between BEGIN and END markers with
// output post-processing off, so the pane writes exactly those bytes. The
// command line itself is pure ASCII and contains neither marker.
func allBytesCommand() string {
	var b strings.Builder
	b.WriteString("stty -opost; printf '")
	for _, c := range []byte("BEGIN") {
		fmt.Fprintf(&b, "\\%03o", c)
	}
	for i := 0; i < 256; i++ {
		fmt.Fprintf(&b, "\\%03o", i)
	}
	for _, c := range []byte("END") {
		fmt.Fprintf(&b, "\\%03o", c)
	}
	b.WriteString("'; sleep 2")
	return b.String()
}

func newRecordServer(t *testing.T) Target {
	t.Helper()
	// A plain sh with a short prompt keeps the transcripts small.
	return newTestServerCmd(t, "env PS1='$ ' sh")
}

type recorder struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan []byte
	out   bytes.Buffer
	open  *guard // the block currently open, if any
}

func startRecorder(t *testing.T, tg Target, session string) *recorder {
	t.Helper()
	cmd := exec.Command("tmux", append(append([]string{"-u"}, tg.Args()...), "-C", "attach-session", "-t", session)...)
	cmd.Env = cleanEnv(tg.Env)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &recorder{t: t, cmd: cmd, stdin: stdin, lines: make(chan []byte, 1<<14)}
	go func() {
		defer close(r.lines)
		br := bufio.NewReader(stdout)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				r.lines <- line
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		for range r.lines {
		}
		_ = cmd.Wait()
	})
	return r
}

// next returns the next line (without "\n"); ok is false at EOF.
func (r *recorder) next() ([]byte, bool) {
	r.t.Helper()
	select {
	case l, ok := <-r.lines:
		if !ok {
			return nil, false
		}
		r.out.Write(l)
		line := bytes.TrimSuffix(l, []byte("\n"))
		if g, ok := parseGuard(line); ok {
			if r.open == nil && g.kind == "begin" {
				r.open = &g
			} else if r.open != nil && g.kind != "begin" && g.time == r.open.time && g.number == r.open.number {
				r.open = nil
			}
		}
		return line, true
	case <-time.After(waitTimeout):
		r.t.Fatalf("recorder: timed out; transcript so far:\n%s", r.out.String())
		return nil, false
	}
}

// expect reads lines until pred matches one.
func (r *recorder) expect(what string, pred func(line []byte, inBlock bool) bool) []byte {
	r.t.Helper()
	for {
		wasOpen := r.open != nil
		line, ok := r.next()
		if !ok {
			r.t.Fatalf("recorder: EOF while waiting for %s; transcript:\n%s", what, r.out.String())
		}
		if pred(line, wasOpen && r.open != nil) {
			return line
		}
	}
}

// run writes one command line and waits until n flags=1 blocks have ended.
func (r *recorder) run(line string, n int) {
	r.t.Helper()
	if _, err := io.WriteString(r.stdin, line+"\n"); err != nil {
		r.t.Fatal(err)
	}
	for n > 0 {
		l := r.expect("end of "+line, func(l []byte, _ bool) bool {
			g, ok := parseGuard(l)
			return ok && g.kind != "begin" && g.flags == 1 && r.open == nil
		})
		_ = l
		n--
	}
}

func (r *recorder) expectNotification(name string) {
	r.t.Helper()
	r.expect("%"+name, func(l []byte, inBlock bool) bool {
		n, ok := parseNotification(l)
		return ok && !inBlock && r.open == nil && n.Name == name
	})
}

// expectExit waits for %exit, which may come inside a block that never ends.
func (r *recorder) expectExit() {
	r.t.Helper()
	r.expect("%exit", func(l []byte, _ bool) bool {
		n, ok := parseNotification(l)
		return ok && n.Name == "exit"
	})
}

func (r *recorder) expectOutput(pane int, want string) {
	r.t.Helper()
	var got []byte
	r.expect(fmt.Sprintf("output %q on %%%d", want, pane), func(l []byte, inBlock bool) bool {
		if inBlock {
			return false
		}
		p, payload, _, ok := parseOutput(l)
		if !ok || p != pane {
			return false
		}
		got = Unescape(got, payload)
		return bytes.Contains(got, []byte(want))
	})
}

func (r *recorder) initial() {
	r.t.Helper()
	r.expect("initial block", func(l []byte, _ bool) bool {
		g, ok := parseGuard(l)
		return ok && g.kind != "begin" && g.flags == 0
	})
	r.expectNotification("session-changed")
}

func (r *recorder) eof() []byte {
	r.t.Helper()
	for {
		if _, ok := r.next(); !ok {
			return r.out.Bytes()
		}
	}
}

func recordBasic(t *testing.T, tg Target) []byte {
	r := startRecorder(t, tg, "main")
	r.initial()
	r.run("display-message -p hello", 1)
	r.run("list-windows -t nosuch", 1)
	r.run("nosuchcommand", 1)
	r.run("set-buffer -b t "+Quote("%end 1 2 1"), 1)
	r.run("show-buffer -b t", 1)
	r.run("new-window -d -P -F "+Quote("#{pane_id}")+" "+Quote(allBytesCommand()), 1)
	r.expectOutput(1, "END")
	r.run("send-keys -t %0 -l -- "+Quote(`printf 'A\001B\134C\tD é日😀\n'`), 1)
	r.run("send-keys -t %0 Enter", 1)
	r.expectOutput(0, "é日😀\r\n")
	r.run("split-window -d -t %0", 1)
	r.expectNotification("layout-change")
	r.run("has-session -t =nosuch ; display-message -p skipped", 1)
	r.run("display-message -p after-batch", 1)
	r.run("new-session -d -s other", 1)
	r.expectNotification("sessions-changed")
	if _, err := io.WriteString(r.stdin, "kill-server\n"); err != nil {
		t.Fatal(err)
	}
	r.expectExit()
	return r.eof()
}

func recordFlow(t *testing.T, tg Target) []byte {
	r := startRecorder(t, tg, "main")
	r.initial()
	r.run("refresh-client -f pause-after=5", 1)
	r.run("send-keys -t %0 -l -- "+Quote(`printf 'x : y\n'`), 1)
	r.run("send-keys -t %0 Enter", 1)
	r.expectOutput(0, "x : y\r\n")
	r.run("refresh-client -A "+Quote("%0:pause"), 1)
	r.run("refresh-client -A "+Quote("%0:continue"), 1)
	r.run("set-hook -g after-new-window "+Quote("display-message -p HOOKRAN"), 1)
	r.run("new-window -d", 1)
	r.expect("hook block", func(l []byte, _ bool) bool {
		g, ok := parseGuard(l)
		return ok && g.kind != "begin" && g.flags == 0
	})
	r.run("rename-window -t @0 "+Quote("my window"), 1)
	r.expectNotification("window-renamed")
	r.run("kill-window -t @1", 1)
	r.expectNotification("unlinked-window-close")
	r.run("rename-session -t main renamed", 1)
	r.expectNotification("session-renamed")
	r.run("refresh-client -B "+Quote("dead:%*:#{pane_dead}"), 1)
	r.expectNotification("subscription-changed")
	r.run("copy-mode -t %0", 1)
	r.expectNotification("pane-mode-changed")
	if _, err := io.WriteString(r.stdin, "\n"); err != nil { // empty line: detach
		t.Fatal(err)
	}
	r.expectExit()
	return r.eof()
}

func recordAttachError(t *testing.T, tg Target) []byte {
	r := startRecorder(t, tg, "nosuch")
	r.expectExit()
	return r.eof()
}

// readTranscripts returns the recorded transcripts by file name.
func readTranscripts(tb testing.TB) map[string][]byte {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(transcriptDir, "*.txt"))
	if err != nil {
		tb.Fatal(err)
	}
	if len(files) == 0 {
		tb.Fatalf("no transcripts in %s", transcriptDir)
	}
	m := map[string][]byte{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		m[filepath.Base(f)] = data
	}
	return m
}

// transcriptLines splits a transcript into lines without their "\n".
func transcriptLines(data []byte) [][]byte {
	lines := bytes.SplitAfter(data, []byte("\n"))
	out := make([][]byte, 0, len(lines))
	for _, l := range lines {
		if len(l) == 0 {
			continue
		}
		out = append(out, bytes.TrimSuffix(l, []byte("\n")))
	}
	return out
}
