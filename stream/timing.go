package stream

import (
	"sort"
	"time"
)

// The timing index: when a recording's bytes arrived, kept so a recording
// can be replayed at its own pace (asciicast). It is a list of samples,
// each the offset an append began at and its time; appends within
// sampleEvery of the last sample share it, and the list is thinned to half
// when it reaches maxSamples, so it stays bounded (maxSamples × 16 bytes)
// whatever the pane prints, and costs an append only a comparison (and,
// at most every sampleEvery, a slice append).
const (
	sampleEvery = 10 * time.Millisecond
	maxSamples  = 4096
)

// sample is one entry of the timing index: the bytes from off on arrived
// ns nanoseconds after the recording began (until the next sample).
type sample struct{ off, ns int64 }

// Sample is a moment of a recording: the bytes from Offset on (up to the
// next sample's) arrived at At, within sampleEvery (10 ms); older parts of
// a long recording are sampled more coarsely.
type Sample struct {
	Offset int64
	At     time.Time
}

// noteTimeLocked notes that the bytes from offset at arrived ns after the
// recording began (append checks that the last sample is older than
// sampleEvery); s.mu is held.
func (s *PaneStream) noteTimeLocked(at, ns int64) {
	if len(s.times) >= maxSamples {
		// Thin: keep every other sample (the first one stays, it covers
		// the oldest retained byte). Amortised O(1) per sample.
		k := 0
		for i := 0; i < len(s.times); i += 2 {
			s.times[k] = s.times[i]
			k++
		}
		s.times = s.times[:k]
	}
	s.times = append(s.times, sample{at, ns})
}

// pruneTimesLocked drops the samples of evicted bytes, keeping the one
// that covers the oldest retained byte (pruneLocked checks that the second
// sample is evicted); s.mu is held.
func (s *PaneStream) pruneTimesLocked() {
	i := sort.Search(len(s.times), func(i int) bool { return s.times[i].off > s.ring.start })
	s.times = append(s.times[:0], s.times[i-1:]...)
}

// Replay is a snapshot of a recording for replaying it: the retained
// bytes, when they arrived, and where tmux dropped output.
type Replay struct {
	Data  []byte   // the retained bytes [From, End), gap bytes included
	From  int64    // offset of Data[0]: > 0 when older bytes were evicted
	End   int64    // the stream's end
	Gaps  []int64  // offsets of gap bytes in Data: where tmux discarded output
	Times []Sample // ascending offsets; the first is at or before From when Data is not empty
	Born  time.Time
	Ended bool // the recording has stopped
	Died  bool // ... because the pane died
}

// Replay returns a snapshot of the retained bytes with their arrival
// times. The copy is bounded by the retained window (--retain).
func (s *PaneStream) Replay() Replay {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := Replay{From: s.ring.start, End: s.ring.end, Born: s.born, Ended: s.ended, Died: s.died}
	if s.ring.end > s.ring.start {
		r.Data = s.ring.read(make([]byte, 0, s.ring.end-s.ring.start), s.ring.start, s.ring.end)
	}
	r.Gaps = OffsetsIn(s.gaps, s.ring.start, s.ring.end)
	r.Times = make([]Sample, len(s.times))
	for i, t := range s.times {
		r.Times[i] = Sample{Offset: t.off, At: s.born.Add(time.Duration(t.ns))}
	}
	return r
}
