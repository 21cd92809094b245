package stream

import (
	"bytes"
	"testing"
	"time"
)

// clockHub is a hub whose clock the test moves.
func clockHub(retain int) (*Hub, *time.Time) {
	h := NewHub(retain)
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	h.now = func() time.Time { return now }
	return h, &now
}

// A replay says when each retained byte arrived: output printed a second
// apart is a second apart in the snapshot.
func TestAReplaySaysWhenEachByteArrived(t *testing.T) {
	h, now := clockHub(1 << 20)
	s := h.Adopt(1)
	born := *now
	h.Output(1, []byte("one\r\n"))
	*now = now.Add(time.Second)
	h.Output(1, []byte("two\r\n"))
	*now = now.Add(time.Millisecond) // within sampleEvery: shares the last sample
	h.Output(1, []byte("three\r\n"))
	r := s.Replay()
	if string(r.Data) != "one\r\ntwo\r\nthree\r\n" || r.From != 0 || r.End != int64(len(r.Data)) {
		t.Fatalf("replay data %q [%d,%d)", r.Data, r.From, r.End)
	}
	want := []Sample{{0, born}, {5, born.Add(time.Second)}}
	if len(r.Times) != len(want) {
		t.Fatalf("samples %v, want %v", r.Times, want)
	}
	for i, w := range want {
		if r.Times[i].Offset != w.Offset || !r.Times[i].At.Equal(w.At) {
			t.Fatalf("sample %d = %v, want %v", i, r.Times[i], w)
		}
	}
}

// The timing index is bounded like the ring: evicted bytes take their
// samples with them (but the oldest retained byte keeps its time), and a
// pane that prints slowly for ever never holds more than maxSamples.
func TestTheTimingIndexIsBounded(t *testing.T) {
	h, now := clockHub(4096)
	s := h.Adopt(1)
	line := bytes.Repeat([]byte("x"), 100)
	for i := 0; i < 3*maxSamples; i++ {
		*now = now.Add(sampleEvery)
		h.Output(1, line)
	}
	r := s.Replay()
	if len(r.Times) == 0 || r.Times[0].Offset > r.From {
		t.Fatalf("first sample %v does not cover the oldest retained byte %d", r.Times[:1], r.From)
	}
	if len(r.Times) > 4096/100+2 {
		t.Fatalf("%d samples kept for %d retained bytes of 100-byte appends", len(r.Times), len(r.Data))
	}
	if want := now.Add(-sampleEvery * time.Duration(len(r.Data)/100-1)); !r.Times[1].At.Before(want.Add(sampleEvery)) {
		t.Fatalf("second sample at %v, want about %v", r.Times[1].At, want)
	}

	big, now2 := clockHub(64 << 20)
	s2 := big.Adopt(1)
	for i := 0; i < 3*maxSamples; i++ {
		*now2 = now2.Add(sampleEvery)
		big.Output(1, line)
	}
	r2 := s2.Replay()
	if len(r2.Times) > maxSamples || len(r2.Times) < maxSamples/2 {
		t.Fatalf("%d samples after %d timed appends, want %d..%d", len(r2.Times), 3*maxSamples, maxSamples/2, maxSamples)
	}
	for i := 1; i < len(r2.Times); i++ {
		if r2.Times[i].Offset <= r2.Times[i-1].Offset || r2.Times[i].At.Before(r2.Times[i-1].At) {
			t.Fatalf("samples out of order at %d: %v %v", i, r2.Times[i-1], r2.Times[i])
		}
	}
	if r2.Times[0].Offset != 0 {
		t.Fatalf("thinning lost the first sample: %v", r2.Times[0])
	}
}

// A replay shows where tmux dropped output and that evicted bytes are
// gone, so nothing is lost silently.
func TestAReplayShowsDropsAndEvictions(t *testing.T) {
	h, _ := clockHub(16)
	s := h.Adopt(1)
	h.Output(1, []byte("0123456789"))
	h.Dropped(1)
	h.Output(1, []byte("abcdefghij"))
	r := s.Replay()
	if r.From != 5 || r.End != 21 || len(r.Gaps) != 1 || r.Gaps[0] != 10 {
		t.Fatalf("replay [%d,%d) gaps %v, want [5,21) gaps [10]", r.From, r.End, r.Gaps)
	}
}
