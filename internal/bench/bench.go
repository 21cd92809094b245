// Package bench holds the bodies of the hot-path benchmarks (plain-view
// decoding, pattern matching, waiters) so that `go test -bench` and the
// tmuxbench command run exactly the same code: the test file wraps each
// function, and tmuxbench calls them through testing.Benchmark to put their
// figures in the same table as its end-to-end measurements.
package bench

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/stream"
)

// Output returns about 1 MiB of coloured program output, CRLF line ends.
func Output() []byte {
	var b strings.Builder
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, "\x1b[3%dmline %d of output\x1b[0m with some text\r\n", i%8, i)
	}
	return []byte(b.String())
}

// plainLines returns about 1 MiB of plain lines and their total size
// (line feeds counted).
func plainLines() ([][]byte, int) {
	var lines [][]byte
	total := 0
	for i := 0; total < 1<<20; i++ {
		l := []byte(fmt.Sprintf("line %d of some ordinary program output with words", i))
		lines = append(lines, l)
		total += len(l) + 1
	}
	return lines, total
}

// Case is one named benchmark.
type Case struct {
	Name string
	F    func(*testing.B)
}

// Floor splits the output into lines and copies each: the least any
// line-local reader does, and the baseline the decoder is compared with.
func Floor(b *testing.B) {
	data := Output()
	b.SetBytes(int64(len(data)))
	var line []byte
	for b.Loop() {
		n := 0
		for p := data; len(p) > 0; n++ {
			i := bytes.IndexByte(p, '\n')
			if i < 0 {
				i = len(p) - 1
			}
			line = append(line[:0], p[:i]...)
			p = p[i+1:]
		}
		if n == 0 {
			b.Fatal("no lines")
		}
	}
}

// PlainDecode measures the plain-view decoder (escape sequences removed,
// lines split) over coloured output, as waits run it (FeedRuns).
func PlainDecode(b *testing.B) {
	data := Output()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		p := stream.NewPlain(0)
		p.FeedRuns(data, func([]byte, int64, int64) {})
	}
}

// PlainCopy is what a job's output did with the plain view before it was
// folded: PlainDecode, each unit copied into the output.
func PlainCopy(b *testing.B) {
	data := Output()
	b.SetBytes(int64(len(data)))
	var out []byte
	for b.Loop() {
		out = out[:0]
		p := stream.NewPlain(0)
		p.FeedRuns(data, func(text []byte, _, _ int64) { out = append(out, text...) })
	}
}

// PlainFold measures the folded view a job's output is now (PlainCopy
// through stream.Fold: each line held until its line feed, then copied).
func PlainFold(b *testing.B) {
	data := Output()
	b.SetBytes(int64(len(data)))
	s := &copySink{}
	for b.Loop() {
		s.out = s.out[:0]
		f := stream.NewFold(s)
		p := stream.NewPlain(0)
		p.FeedTerminal(data, f.Text, f.Control)
		f.Flush()
	}
}

// copySink copies a Fold's lines into one buffer.
type copySink struct{ out []byte }

func (s *copySink) Line(l []byte) { s.out = append(s.out, l...) }
func (s *copySink) Retract(n int) { s.out = s.out[:len(s.out)-n] }

func patterns(n int, regex bool) []string {
	var p []string
	for i := 0; i < n; i++ {
		if regex {
			p = append(p, fmt.Sprintf(`^ERROR-%d: (\w+)$`, i))
		} else {
			p = append(p, fmt.Sprintf("ERROR-%d", i))
		}
	}
	return p
}

// Matcher returns a benchmark of line-local matching over plain lines with
// n patterns (literal or regex), none of which match.
func Matcher(n int, regex bool) func(*testing.B) {
	return matchBench(patterns(n, regex), regex)
}

// Unfiltered is Matcher for one regex that starts with a character class,
// so the matcher has no literal to look for first: every line goes through
// the regex engine.
func Unfiltered(b *testing.B) { matchBench([]string{`[Ee]rror-0: (\w+)$`}, true)(b) }

func matchBench(pats []string, regex bool) func(*testing.B) {
	return func(b *testing.B) {
		lines, total := plainLines()
		m, err := stream.NewMatcher(pats, regex, 0)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(total))
		for b.Loop() {
			for _, l := range lines {
				if _, ok, _ := m.Find(l, 0); ok {
					b.Fatal("matched")
				}
			}
		}
	}
}

// WaitScan measures one wait reading recorded output (decode and match)
// for a pattern that appears only at the end.
func WaitScan(regex bool) func(*testing.B) {
	return func(b *testing.B) {
		data := Output()
		pat := "END-OF-BENCH"
		if regex {
			pat = "^END-OF-BENCH$"
		}
		m, _ := stream.NewMatcher([]string{pat}, regex, 0)
		h := stream.NewHub(len(data) + 4096)
		s := h.Adopt(1)
		h.Output(1, data)
		h.Output(1, []byte("END-OF-BENCH\r\n"))
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			r, _ := s.Wait(context.Background(), stream.WaitSpec{From: 0, Matcher: m, Timeout: time.Minute})
			if r.Outcome != stream.Matched {
				b.Fatal(r.Outcome)
			}
		}
	}
}

// Waiters measures 1 MiB of output arriving in 8 KiB appends while n waits
// are open on the pane, until every wait has found the line after it: the
// throughput of the pane's output as all n waiters see it. The waits are
// open and parked before the output starts (as agents waiting on a build
// are), so the figure is the scan, not goroutine start-up racing it.
func Waiters(n int) func(*testing.B) { return waiters(n, false) }

// RegexWaiters is Waiters with a regex pattern: the waits share the
// decoding and line splitting, and each runs its regex on each line.
func RegexWaiters(n int) func(*testing.B) { return waiters(n, true) }

func waiters(n int, regex bool) func(*testing.B) {
	return func(b *testing.B) {
		data := Output()
		h := stream.NewHub(4 << 20)
		s := h.Adopt(1)
		pattern := "END-OF-CHUNK"
		if regex {
			pattern = `^END-OF-(?<what>CHUNK)$`
		}
		m, _ := stream.NewMatcher([]string{pattern}, regex, 0)
		b.SetBytes(int64(len(data)))
		var wg sync.WaitGroup
		for b.Loop() {
			from := s.End()
			for i := 0; i < n; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r, _ := s.Wait(context.Background(), stream.WaitSpec{From: from, Matcher: m, Timeout: time.Minute})
					if r.Outcome != stream.Matched {
						panic(fmt.Sprintf("waiter ended %s", r.Outcome))
					}
				}()
			}
			parked(s, n)
			for p := data; len(p) > 0; {
				k := min(len(p), 8192)
				h.Output(1, p[:k])
				p = p[k:]
			}
			h.Output(1, []byte("END-OF-CHUNK\r\n"))
			wg.Wait()
		}
	}
}

// parked returns once n waits are open on s and, when there are several,
// all of them are in its shared pass.
func parked(s *stream.PaneStream, n int) {
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Microsecond) {
		open, shared := s.Waits()
		if open == n && (n < 2 || shared == n) {
			return
		}
		if time.Now().After(deadline) {
			panic(fmt.Sprintf("%d of %d waits open, %d shared, after a minute", open, n, shared))
		}
	}
}

// NewLine measures what an agent's typical wait costs: a line is printed
// and a wait opened just before it finds it. retained bytes are already in
// the pane, and others waits are parked on other panes; neither should
// change the cost.
func NewLine(retained, others int) func(*testing.B) {
	return func(b *testing.B) {
		h := stream.NewHub(max(retained, 1<<20))
		s := h.Adopt(1)
		data := Output()
		for n := 0; n < retained; n += len(data) {
			h.Output(1, data[:min(len(data), retained-n)])
		}
		ctx, cancel := context.WithCancel(context.Background())
		var parked sync.WaitGroup
		never, _ := stream.NewMatcher([]string{"never-printed"}, false, 0)
		for i := 0; i < others; i++ {
			o := h.Adopt(2 + i)
			parked.Add(1)
			go func() {
				defer parked.Done()
				_, _ = o.Wait(ctx, stream.WaitSpec{From: 0, Matcher: never, Timeout: time.Hour})
			}()
		}
		m, _ := stream.NewMatcher([]string{`^ready (\d+)$`}, true, 0)
		line := []byte("ready 42\r\n")
		for b.Loop() {
			from := s.End()
			h.Output(1, line)
			r, _ := s.Wait(ctx, stream.WaitSpec{From: from, Matcher: m, Timeout: time.Minute})
			if r.Outcome != stream.Matched {
				b.Fatal(r.Outcome)
			}
		}
		b.StopTimer()
		cancel()
		parked.Wait()
	}
}

// Cases lists every hot-path benchmark, in report order (the many-waiter
// cases last: they leave the most garbage behind).
func Cases() []Case {
	return []Case{
		{"Floor", Floor},
		{"PlainDecode", PlainDecode},
		{"PlainCopy", PlainCopy},
		{"PlainFold", PlainFold},
		{"Matcher/literal-1", Matcher(1, false)},
		{"Matcher/literal-64", Matcher(64, false)},
		{"Matcher/regex-1", Matcher(1, true)},
		{"Matcher/regex-64", Matcher(64, true)},
		{"Matcher/regex-1-unfiltered", Unfiltered},
		{"WaitScan/literal", WaitScan(false)},
		{"WaitScan/regex", WaitScan(true)},
		{"NewLine/retained-0", NewLine(0, 0)},
		{"NewLine/retained-64MiB", NewLine(64<<20, 0)},
		{"NewLine/others-1000", NewLine(0, 1000)},
		{"Waiters/1", Waiters(1)},
		{"Waiters/100", Waiters(100)},
		{"Waiters/1000", Waiters(1000)},
		{"RegexWaiters/1", RegexWaiters(1)},
		{"RegexWaiters/100", RegexWaiters(100)},
	}
}
