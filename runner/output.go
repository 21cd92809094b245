package runner

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/private"
	"github.com/tmuxmcp/tmuxmcp/stream"
)

// jobOutput collects a job's plain output: the whole of it in a file, the
// head and the tail in memory.
type jobOutput struct {
	// mu guards what readers of a running job take (since): the watcher
	// holds it for each piece it feeds, so outside it the file holds
	// exactly total bytes.
	mu    sync.Mutex
	marks []lineMark // every markEvery bytes: the line breaks before
	// begun says the command's output has begun (its start mark was
	// seen); streamAt is the pane-stream offset its output is read up to:
	// a wait from there sees only what the command prints next, never
	// tmuxmcp's own typed line.
	begun    bool
	streamAt int64
	at       positions // stream offsets paired with output offsets
	path     string
	f        *os.File
	w        *bufio.Writer // batches the file's writes: flushed after each piece fed
	limit    int
	head     []byte // the first limit/2 bytes
	buf      []byte // the last bytes (at least limit)
	total    int64
	lines    int64 // line breaks in all of it
	missed   int64
	err      error // the first failed write of the file: it is not whole
	log      func(error)
	// fold keeps the output as a terminal shows it: a line is written
	// once settled (its line feed came), in its final state; emit and
	// ctl are its methods, taken once.
	fold *stream.Fold
	emit stream.Emit
	ctl  func(stream.Control)
	// foldedBefore is the redraws a resumed job had folded before.
	foldedBefore int64
}

// outputLines is a job output as the sink of its fold.
type outputLines struct{ o *jobOutput }

func (l outputLines) Line(b []byte) { l.o.write(b) }
func (l outputLines) Retract(n int) { l.o.retract(n) }

// keep is how many of the last bytes the output holds in memory: enough
// for the tail of a result and for what its fold may take back.
func (o *jobOutput) keep() int { return o.limit + stream.FoldReach }

// lineMark says how many line breaks the output has before byte off.
type lineMark struct{ off, lines int64 }

// markEvery is how often the output notes its line count, so a reader
// counts the lines after an offset from the nearest mark, not from 0.
const markEvery = 64 << 10

func newJobOutput(path string, limit int, appendExisting bool) *jobOutput {
	o := &jobOutput{path: path, limit: limit}
	o.fold = stream.NewFold(outputLines{o})
	o.emit, o.ctl = o.fold.Text, o.fold.Control
	// The file is opened without following a symbolic link, and used only
	// when it is the user's private file (a resumed job's is read only
	// then).
	flags := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	if appendExisting {
		flags = os.O_CREATE | os.O_WRONLY | os.O_APPEND
	}
	var err error
	if o.f, err = private.OpenFile(path, flags); err != nil {
		o.err = fmt.Errorf("open the output file: %w", err)
		return o
	}
	o.w = bufio.NewWriterSize(o.f, 64<<10)
	if appendExisting {
		if tail, size, err := readTail(path, o.keep()); err == nil {
			o.total, o.buf = size, tail
			o.head, o.lines = readHeadAndLines(path, limit/2)
		}
	}
	return o
}

// failed records the first error writing the file, and logs it once.
func (o *jobOutput) failed(err error) {
	if o.err != nil {
		return
	}
	o.err = fmt.Errorf("write the output file after %d bytes: %w", o.total, err)
	if o.log != nil {
		o.log(o.err)
	}
}

// feed decodes raw into the output; the file has every settled line of
// it on return (readers of a running job read the file, and the line
// still being drawn from the fold).
func (o *jobOutput) feed(dec *stream.Plain, raw []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	dec.FeedTerminal(raw, o.emit, o.ctl)
	o.flush()
	o.begun, o.streamAt = true, max(o.streamAt, dec.Offset())
	o.at.add(o.streamAt, o.total)
}

// begin records that the command's output begins at stream offset at.
func (o *jobOutput) begin(at int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.begun, o.streamAt = true, max(o.streamAt, at)
	o.at.add(o.streamAt, o.total)
}

// position is the pane-stream offset the output is read up to, once the
// output has begun.
func (o *jobOutput) position() (int64, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.at.hold() // a result hands it out: await_command_result may bring it back
	return o.streamAt, o.begun
}

// flush writes what the file's buffer holds.
func (o *jobOutput) flush() {
	if o.w != nil && o.err == nil {
		if err := o.w.Flush(); err != nil {
			o.failed(err)
		}
	}
}

// gapLine marks, in the output, where tmux discarded output.
const gapLine = "[… tmux discarded output here (flow control: the pane printed faster than it could be sent); how much is not known …]\n"

// gap records that tmux discarded output here: a line of its own in the
// file and the text, and one missed byte (tmux does not say how many).
func (o *jobOutput) gap() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.missed++
	o.fold.Flush()
	mark := gapLine
	if n := len(o.buf); n > 0 && o.buf[n-1] != '\n' {
		mark = "\n" + mark
	}
	o.write([]byte(mark))
	o.flush()
}

// write adds text to the file and the head and tail kept in memory.
func (o *jobOutput) write(text []byte) {
	if n := len(o.marks); n == 0 || o.total-o.marks[n-1].off >= markEvery {
		o.marks = append(o.marks, lineMark{o.total, o.lines})
	}
	o.total += int64(len(text))
	o.lines += int64(bytes.Count(text, []byte("\n")))
	if room := o.limit/2 - len(o.head); room > 0 {
		o.head = append(o.head, text[:min(room, len(text))]...)
	}
	if o.w != nil && o.err == nil {
		if _, err := o.w.Write(text); err != nil {
			o.failed(err)
		}
	}
	o.buf = append(o.buf, text...)
	if keep := o.keep(); len(o.buf) > 2*keep {
		o.buf = append(o.buf[:0], o.buf[len(o.buf)-keep:]...)
	}
}

// retract takes back the last n bytes written (at most what buf holds):
// the fold is drawing those lines again.
func (o *jobOutput) retract(n int) {
	n = min(n, len(o.buf))
	if n <= 0 {
		return
	}
	cut := o.buf[len(o.buf)-n:]
	o.lines -= int64(bytes.Count(cut, []byte("\n")))
	o.buf = o.buf[:len(o.buf)-n]
	o.total -= int64(n)
	o.head = o.head[:min(int64(len(o.head)), o.total)]
	for k := len(o.marks); k > 0 && o.marks[k-1].off > o.total; k-- {
		o.marks = o.marks[:k-1]
	}
	if o.w == nil || o.err != nil {
		return
	}
	o.flush()
	if err := o.f.Truncate(o.total); err != nil {
		o.failed(err)
	} else if _, err := o.f.Seek(o.total, io.SeekStart); err != nil {
		o.failed(err)
	}
}

// redraws is how many redraws of a line the output folded away.
func (o *jobOutput) redraws() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.foldedBefore + o.fold.Redraws()
}

// text is the output as a result shows it, and how many bytes it leaves
// out: all of it when it fits in limit, else its head and tail.
func (o *jobOutput) text() (string, int64) {
	pending := o.fold.Pending()
	total := o.total + int64(len(pending))
	if total <= int64(o.limit) {
		return strings.ToValidUTF8(string(o.buf)+string(pending), ""), 0
	}
	head := o.head
	if len(head) < o.limit/2 {
		head = append(head[:len(head):len(head)], pending[:min(len(pending), o.limit/2-len(head))]...)
	}
	tail := append(o.buf[:len(o.buf):len(o.buf)], pending...)
	return headTail(head, tail, total, o.lines+int64(bytes.Count(pending, []byte("\n"))), o.limit)
}

// headTail lays out output of total bytes and lines line breaks that does
// not fit in limit bytes: its first and its last whole lines (about half
// each), with one marker line between them saying how much was left out
// and where all of it is. It returns the text and the bytes left out.
func headTail(head, tail []byte, total, lines int64, limit int) (string, int64) {
	h := head[:min(len(head), limit/2)]
	if i := bytes.LastIndexByte(h, '\n'); i >= 0 {
		h = h[:i+1] // whole lines
	}
	keep := limit - len(h) - 120 // room for the marker
	t := tail
	if len(t) > keep {
		t = t[len(t)-max(keep, 0):]
		if i := bytes.IndexByte(t, '\n'); i >= 0 && i < len(t)-1 {
			t = t[i+1:]
		}
	}
	left := total - int64(len(h)) - int64(len(t))
	if left <= 0 {
		return strings.ToValidUTF8(string(tail), ""), 0
	}
	leftLines := lines - int64(bytes.Count(h, []byte("\n"))) - int64(bytes.Count(t, []byte("\n")))
	var b strings.Builder
	b.Write(h)
	if len(h) > 0 && h[len(h)-1] != '\n' {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "[… tmuxmcp left out %d bytes (%d lines) here: outputFile has the whole output …]\n", left, max(leftLines, 0))
	b.Write(t)
	return strings.ToValidUTF8(b.String(), ""), left
}

func (o *jobOutput) cut() bool { return o.total > int64(o.limit) }

// since is OutputSince for the running job this output belongs to: the
// text from output offset from within limit (the file's, then the line
// still being drawn), the bytes in the file, the bytes left out. It
// reads at most about limit bytes and markEvery more; ok is false when
// the file is not whole (the caller falls back).
func (o *jobOutput) since(from int64, limit int) (text string, size, left int64, ok bool) {
	o.mu.Lock()
	size, lines, err := o.total, o.lines, o.err
	pending := o.fold.Pending()
	k := sort.Search(len(o.marks), func(i int) bool { return o.marks[i].off > from }) - 1
	mark := lineMark{}
	if k >= 0 {
		mark = o.marks[k]
	}
	o.mu.Unlock()
	if err != nil {
		return "", 0, 0, false
	}
	f, err := os.Open(o.path)
	if err != nil {
		return "", 0, 0, false
	}
	defer f.Close()
	text, left = readSpan(f, from, size, pending, limit, func(from int64) int64 {
		before := mark.lines // line breaks before from
		if mark.off < from {
			b := make([]byte, from-mark.off)
			got, _ := f.ReadAt(b, mark.off)
			before += int64(bytes.Count(b[:got], []byte("\n")))
		}
		return lines - before
	})
	return text, size, left, true
}

// readSpan reads output bytes [from, size) of f, then extra (the line
// still being drawn), within limit: all of them, or their head and tail
// with a marker line (lines counts the line breaks in the file from from
// on, asked only then). It returns the text and the bytes left out.
func readSpan(f *os.File, from, size int64, extra []byte, limit int, lines func(from int64) int64) (string, int64) {
	from = min(from, size)
	n := size - from + int64(len(extra))
	if n <= int64(limit) {
		return strings.ToValidUTF8(string(readJoined(f, from, size, extra, 0, n)), ""), 0
	}
	head := readJoined(f, from, size, extra, 0, int64(limit/2))
	tail := readJoined(f, from, size, extra, n-int64(limit), int64(limit))
	return headTail(head, tail, n, lines(from)+int64(bytes.Count(extra, []byte("\n"))), limit)
}

// readJoined reads n bytes at offset at of f's bytes [from, size) followed
// by extra.
func readJoined(f *os.File, from, size int64, extra []byte, at, n int64) []byte {
	b := make([]byte, 0, n)
	if inFile := size - from; at < inFile {
		k := min(n, inFile-at)
		b = b[:k]
		got, _ := f.ReadAt(b, from+at)
		b = b[:got]
		if int64(got) < k {
			return b
		}
	}
	if end := at + n - (size - from); end > 0 {
		start := max(at-(size-from), 0)
		b = append(b, extra[min(start, int64(len(extra))):min(end, int64(len(extra)))]...)
	}
	return b
}

// dropPending drops the line being drawn from the output: it is the
// shell's prompt, drawn without the marks that tell it from output.
func (o *jobOutput) dropPending() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.fold.Discard()
	o.flush()
}

func (o *jobOutput) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.fold.Flush() // the last line, as it was left
	if o.f != nil {
		o.flush()
		if err := o.f.Close(); err != nil {
			o.failed(err)
		}
		o.f = nil
	}
}

func (o *jobOutput) remove() { _ = os.Remove(o.path) }

// Output returns a running job's output so far (all of it, or its head
// and tail within outputLimit), how many bytes it has printed, and how
// many the text leaves out.
func (r *Runner) Output(j *jobs.Job) (string, int64, int64) {
	return r.OutputSince(j, 0, j.OutputLimit)
}

// RunningCursor is the pane-stream offset a running job's output has been
// read up to — after tmuxmcp's own typed line and everything in output
// so far — once its output has begun (ok is false before, and when the
// job is not running).
func (r *Runner) RunningCursor(id string) (int64, bool) {
	r.mu.Lock()
	live := r.outputs[id]
	r.mu.Unlock()
	if live == nil {
		return 0, false
	}
	return live.position()
}

// FoldedRedraws is how many redraws of a line job j's output has folded
// away so far (see stream.Fold).
func (r *Runner) FoldedRedraws(j *jobs.Job) int64 {
	r.mu.Lock()
	live := r.outputs[j.ID]
	r.mu.Unlock()
	if live != nil {
		return live.redraws()
	}
	return j.FoldedRedraws
}

// OutputSince returns the job's output from output byte offset from on,
// within limit bytes (all of it, or its head and tail with a marker line),
// how many output bytes the job has printed, and how many the text leaves
// out. It reads the output file while it exists; else (a finished job whose
// output fitted in its record) the record's output. The output is folded
// (stream.Fold): a running job's text ends with the line being drawn as
// it is now, which the byte count leaves out until its line feed settles
// it, so a later call from there gets it in its final state.
func (r *Runner) OutputSince(j *jobs.Job, from int64, limit int) (string, int64, int64) {
	r.mu.Lock()
	live := r.outputs[j.ID]
	r.mu.Unlock()
	if live != nil {
		if text, size, left, ok := live.since(from, limit); ok {
			return text, size, left
		}
	}
	text, size, left, ok := fileOutputSince(r.jobs.Path(j.ID, ".out"), from, limit)
	if ok {
		return text, size, left
	}
	// No file: the whole output is in the record.
	b := []byte(j.Output)
	from = min(from, int64(len(b)))
	rest := b[from:]
	if len(rest) <= limit {
		return string(rest), int64(len(b)), 0
	}
	text, left = headTail(rest[:limit/2], rest[len(rest)-limit:], int64(len(rest)), int64(bytes.Count(rest, []byte("\n"))), limit)
	return text, int64(len(b)), left
}

// fileOutputSince is OutputSince from an output file: it reads the file
// from from to its end (to count the line breaks left out). ok is false
// when there is no file.
func fileOutputSince(path string, from int64, limit int) (text string, size, left int64, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, 0, false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", 0, 0, true
	}
	size = st.Size()
	text, left = readSpan(f, from, size, nil, limit, func(from int64) int64 {
		lines := int64(0)
		buf := make([]byte, 256<<10)
		for off := from; off < size; {
			m, err := f.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
			lines += int64(bytes.Count(buf[:m], []byte("\n")))
			off += int64(m)
			if err != nil || m == 0 {
				break
			}
		}
		return lines
	})
	return text, size, left, true
}

// readHeadAndLines reads the first n bytes of a file and counts its line
// breaks.
func readHeadAndLines(path string, n int) ([]byte, int64) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0
	}
	defer f.Close()
	head := make([]byte, n)
	k, _ := io.ReadFull(f, head)
	head = head[:k]
	lines := int64(bytes.Count(head, []byte("\n")))
	buf := make([]byte, 256<<10)
	for {
		m, err := f.Read(buf)
		lines += int64(bytes.Count(buf[:m], []byte("\n")))
		if err != nil {
			return head, lines
		}
	}
}

// readTail reads the last limit bytes of a file, and its size.
func readTail(path string, limit int) ([]byte, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	off := max(0, st.Size()-int64(limit))
	b := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(b, off); err != nil && err != io.EOF {
		return nil, 0, err
	}
	return b, st.Size(), nil
}
