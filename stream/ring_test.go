package stream

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

func TestRingMatchesModel(t *testing.T) {
	for _, limit := range []int{1, 7, 4096, 10000} {
		r := ring{limit: limit}
		var all []byte
		rng := rand.New(rand.NewPCG(1, uint64(limit)))
		for i := 0; i < 500; i++ {
			p := make([]byte, rng.IntN(3*limit+5))
			for j := range p {
				p[j] = byte(rng.IntN(256))
			}
			r.write(p)
			all = append(all, p...)
			if r.end != int64(len(all)) {
				t.Fatalf("end %d want %d", r.end, len(all))
			}
			wantStart := max(0, int64(len(all)-limit))
			if r.start != wantStart {
				t.Fatalf("limit %d: start %d want %d", limit, r.start, wantStart)
			}
			from := r.start + int64(rng.IntN(int(r.end-r.start)+1))
			got := r.read(nil, from, r.end)
			if !bytes.Equal(got, all[from:]) {
				t.Fatalf("limit %d: read mismatch", limit)
			}
		}
	}
}

func TestRingShrinkKeepsRetainedBytes(t *testing.T) {
	r := ring{limit: 1 << 16}
	var all []byte
	for i := 0; i < 100; i++ {
		p := bytes.Repeat([]byte{byte(i)}, 1000)
		r.write(p)
		all = append(all, p...)
	}
	r.start = r.end - 3000 // what evict does
	r.shrink()
	if len(r.buf()) > 4096 {
		t.Fatalf("buffer still %d bytes for 3000 retained", len(r.buf()))
	}
	if got := r.read(nil, r.start, r.end); !bytes.Equal(got, all[len(all)-3000:]) {
		t.Fatal("shrink lost bytes")
	}
	r.write([]byte("more"))
	if got := r.read(nil, r.start, r.end); !bytes.Equal(got, append(all[len(all)-3000:], "more"...)) {
		t.Fatal("write after shrink")
	}
}
