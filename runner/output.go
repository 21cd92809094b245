package runner

import (
	"io"
	"os"
	"strings"

	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/stream"
)

// jobOutput collects a job's plain output: the whole of it in a file, the
// tail in memory.
type jobOutput struct {
	path   string
	f      *os.File
	limit  int
	buf    []byte
	total  int64
	missed int64
}

func newJobOutput(path string, limit int, appendExisting bool) *jobOutput {
	o := &jobOutput{path: path, limit: limit}
	flags := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	if appendExisting {
		flags = os.O_CREATE | os.O_WRONLY | os.O_APPEND
		if tail, size, err := readTail(path, limit); err == nil {
			o.total, o.buf = size, tail
		}
	}
	o.f, _ = os.OpenFile(path, flags, 0o600)
	return o
}

func (o *jobOutput) feed(dec *stream.Plain, raw []byte) {
	dec.FeedRuns(raw, func(text []byte, _, _ int64) {
		o.total += int64(len(text))
		if o.f != nil {
			_, _ = o.f.Write(text)
		}
		o.buf = append(o.buf, text...)
		if len(o.buf) > 2*o.limit+4096 {
			o.buf = append(o.buf[:0], o.buf[len(o.buf)-o.limit:]...)
		}
	})
}

func (o *jobOutput) tail() string {
	b := o.buf
	if len(b) > o.limit {
		b = b[len(b)-o.limit:]
	}
	return strings.ToValidUTF8(string(b), "")
}

func (o *jobOutput) cut() bool { return o.total > int64(o.limit) }

func (o *jobOutput) close() {
	if o.f != nil {
		_ = o.f.Close()
	}
}

func (o *jobOutput) remove() { _ = os.Remove(o.path) }

// Output returns a running job's output so far (its last outputLimit
// bytes) and how many bytes it has printed.
func (r *Runner) Output(j *jobs.Job) (string, int64) {
	b, size, err := readTail(r.jobs.Path(j.ID, ".out"), j.OutputLimit)
	if err != nil {
		return "", 0
	}
	return strings.ToValidUTF8(string(b), ""), size
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
