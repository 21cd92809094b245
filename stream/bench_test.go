package stream

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

func benchOutput() []byte {
	var b strings.Builder
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, "\x1b[3%dmline %d of output\x1b[0m with some text\r\n", i%8, i)
	}
	return []byte(b.String())
}

func BenchmarkPlainDecode(b *testing.B) {
	data := benchOutput()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		p := NewPlain(0)
		p.Feed(data, func([]byte, int64, int64) {})
	}
}

func BenchmarkAppend8KiB(b *testing.B) {
	h := NewHub(1 << 20)
	chunk := benchOutput()[:8192]
	b.SetBytes(int64(len(chunk)))
	for b.Loop() {
		h.Output(1, chunk)
	}
}

// BenchmarkWaitThroughput measures how fast a wait consumes recorded output
// looking for a pattern that appears only at the end.
func BenchmarkWaitThroughput(b *testing.B) {
	for _, regex := range []bool{false, true} {
		b.Run(fmt.Sprintf("regex=%v", regex), func(b *testing.B) {
			data := benchOutput()
			pat := "END-OF-BENCH"
			if regex {
				pat = "^END-OF-BENCH$"
			}
			m, _ := NewMatcher([]string{pat}, regex, 0)
			h := NewHub(len(data) + 4096)
			s := h.Adopt(1)
			h.Output(1, data)
			h.Output(1, []byte("END-OF-BENCH\r\n"))
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				r, _ := s.Wait(context.Background(), WaitSpec{From: 0, Matcher: m, Timeout: time.Minute})
				if r.Outcome != Matched {
					b.Fatal(r.Outcome)
				}
			}
		})
	}
}

// BenchmarkMatcher measures line-local matching over plain text with 1 and
// 64 literal patterns and 64 regex patterns (none of which match).
func BenchmarkMatcher(b *testing.B) {
	var lines [][]byte
	total := 0
	for i := 0; total < 1<<20; i++ {
		l := []byte(fmt.Sprintf("line %d of some ordinary program output with words", i))
		lines = append(lines, l)
		total += len(l) + 1
	}
	pats := func(n int, regex bool) []string {
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
	for _, c := range []struct {
		name  string
		n     int
		regex bool
	}{{"literal-1", 1, false}, {"literal-64", 64, false}, {"regex-64", 64, true}} {
		b.Run(c.name, func(b *testing.B) {
			m, err := NewMatcher(pats(c.n, c.regex), c.regex, 0)
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
		})
	}
}

// BenchmarkWaiters measures appending 8 KiB while 1, 100 or 1000 waits are
// open on the pane (each woken by the append and scanning the new bytes).
func BenchmarkWaiters(b *testing.B) {
	for _, n := range []int{1, 100, 1000} {
		b.Run(fmt.Sprintf("waiters-%d", n), func(b *testing.B) {
			h := NewHub(1 << 20)
			s := h.Adopt(1)
			m, _ := NewMatcher([]string{"never-printed"}, false, 0)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{}, n)
			for i := 0; i < n; i++ {
				go func() {
					_, _ = s.Wait(ctx, WaitSpec{From: 0, Matcher: m, Timeout: time.Hour})
					done <- struct{}{}
				}()
			}
			chunk := benchOutput()[:8192]
			b.SetBytes(int64(len(chunk)))
			for b.Loop() {
				h.Output(1, chunk)
			}
			cancel()
			for i := 0; i < n; i++ {
				<-done
			}
		})
	}
}
