package stream

import (
	"bytes"
	"testing"
)

// BenchmarkIngest measures the hot path every byte of every pane takes:
// Hub.Output appending to a retained ring (1 MiB, full, so each append
// also evicts), in tmux's usual pipe-sized chunks and in the small chunks
// of interactive output.
//
//	go test -run '^$' -bench Ingest ./stream
func BenchmarkIngest(b *testing.B) {
	for _, size := range []int{64, 4096} {
		b.Run(map[int]string{64: "chunk-64B", 4096: "chunk-4KiB"}[size], func(b *testing.B) {
			h := NewHub(1 << 20)
			h.Adopt(1)
			chunk := bytes.Repeat([]byte("output line\r\n"), size/13+1)[:size]
			for n := 0; n < 2<<20; n += size {
				h.Output(1, chunk) // fill the ring: appends evict from here on
			}
			b.SetBytes(int64(size))
			b.ResetTimer()
			for b.Loop() {
				h.Output(1, chunk)
			}
		})
	}
}
