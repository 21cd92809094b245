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
