package runner

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/tmuxmcp/tmuxmcp/internal/tmuxtest"
	"github.com/tmuxmcp/tmuxmcp/stream"
)

func TestMain(m *testing.M) { tmuxtest.Main(m) }

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
	o := newJobOutput(filepath.Join(t.TempDir(), "j.out"), 1024, false)
	if o.err != nil {
		t.Fatal(o.err)
	}
	// The disk fills up after the file was opened.
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	o.f.Close()
	o.f, o.w = full, bufio.NewWriterSize(full, 64<<10)
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
	raw.WriteString("\r\n") // every line settled: the file has all of it
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

// A running job's output ends with the line being drawn, as it is now;
// the file and the byte count hold only settled lines, so a read from the
// count gets that line again once it is final.
func TestARunningJobShowsTheLineBeingDrawnAndTheFileItsFinalState(t *testing.T) {
	path := filepath.Join(t.TempDir(), "job.out")
	o := newJobOutput(path, 4096, false)
	dec := stream.NewPlain(0)
	o.feed(dec, []byte("log\r\n10%\r20%"))
	if text, size, _, _ := o.since(0, 4096); text != "log\n20%" || size != 4 {
		t.Fatalf("while drawing: %q (%d bytes)", text, size)
	}
	o.feed(dec, []byte("\r30%\r\nnext\r\n"))
	if text, size, _, _ := o.since(4, 4096); text != "30%\nnext\n" || size != 13 {
		t.Fatalf("from the count: %q (%d bytes)", text, size)
	}
	o.close()
	if b, _ := os.ReadFile(path); string(b) != "log\n30%\nnext\n" || o.redraws() != 2 {
		t.Fatalf("file %q, %d redraws", b, o.redraws())
	}
}

// A bar drawn over several lines with the cursor moved up takes back the
// lines it redraws: the file, the counts and the text stay what the
// terminal shows, however the output arrives.
func TestAMultiLineBarRewritesTheFilesTailInPlace(t *testing.T) {
	var raw bytes.Buffer
	raw.WriteString("#0 building\r\n")
	for i := 0; i < 200; i++ {
		if i > 0 {
			raw.WriteString("\x1b[3A")
		}
		for _, l := range []string{"#1 layer", "#2 layer", "#3 layer"} {
			fmt.Fprintf(&raw, "\r\x1b[2K%s %s %d%%\r\n", l, strings.Repeat("=", i%40), i/2)
		}
	}
	raw.WriteString("#4 done\r\n")
	want, folds := stream.FoldText(raw.Bytes())
	path := filepath.Join(t.TempDir(), "job.out")
	o := newJobOutput(path, 128, false)
	dec := stream.NewPlain(0)
	for p := raw.Bytes(); len(p) > 0; {
		n := min(len(p), 97)
		o.feed(dec, p[:n])
		p = p[n:]
	}
	o.close()
	b, _ := os.ReadFile(path)
	if string(b) != string(want) || o.total != int64(len(want)) || o.lines != 5 || o.redraws() != folds || folds != 199*3 {
		t.Fatalf("file %q (total %d, %d lines, %d redraws of %d), want %q", b, o.total, o.lines, o.redraws(), folds, want)
	}
	if string(o.head) != string(want[:64]) || !strings.HasSuffix(string(want), string(o.buf)) {
		t.Fatalf("head %q, tail %q", o.head, o.buf)
	}
}
