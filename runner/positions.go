package runner

import (
	"sort"

	"github.com/tmuxmcp/tmuxmcp/jobs"
)

// positions pairs offsets of a job's recording with offsets of its output
// as the watcher reads it, so a cursor of the recording (what results,
// wait_for_text and capture_since give) says where the output after it
// starts. Every cursor a result hands out is kept exactly (hold); between
// them the pairs thin out as the output grows, so a cursor taken by a wait
// maps to a place at or a little before it — output is repeated, never
// skipped.
type positions struct {
	at   []jobs.Position
	held []bool // at[i] was handed out in a result: never thinned
}

// maxPositions bounds how many pairs a running job keeps before thinning;
// savedPositions how many its record keeps (besides those handed out).
const (
	maxPositions   = 512
	savedPositions = 64
)

// add notes that stream offset s is output offset o (both only grow).
func (p *positions) add(s, o int64) {
	if n := len(p.at); n > 0 && p.at[n-1].Stream >= s {
		if p.at[n-1].Output < o {
			p.at[n-1].Output = o
		}
		return
	}
	p.at = append(p.at, jobs.Position{Stream: s, Output: o})
	p.held = append(p.held, false)
	if len(p.at) > maxPositions {
		p.at, p.held = thin(p.at, p.held)
	}
}

// hold keeps the last pair: it is handed out as a result's cursor.
func (p *positions) hold() {
	if n := len(p.held); n > 0 {
		p.held[n-1] = true
	}
}

// thin drops every other pair that was not handed out (the last stays).
func thin(at []jobs.Position, held []bool) ([]jobs.Position, []bool) {
	keepAt, keepHeld := at[:0:0], held[:0:0]
	for i := range at {
		if held[i] || i%2 == 0 || i == len(at)-1 {
			keepAt, keepHeld = append(keepAt, at[i]), append(keepHeld, held[i])
		}
	}
	return keepAt, keepHeld
}

// saved is what the job's record keeps once it ended at stream offset end
// with total output bytes: the pairs handed out and a few others, and the
// end.
func (p *positions) saved(end, total int64) []jobs.Position {
	at, held := append([]jobs.Position(nil), p.at...), append([]bool(nil), p.held...)
	for len(at) > savedPositions {
		n := len(at)
		if at, held = thin(at, held); len(at) == n {
			break // all handed out
		}
	}
	if n := len(at); n == 0 || at[n-1].Stream < end {
		at = append(at, jobs.Position{Stream: end, Output: total})
	}
	return at
}

// outputAt is the output offset a cursor at stream offset s starts from:
// that of the last pair at or before it, 0 before the first.
func outputAt(at []jobs.Position, s int64) int64 {
	i := sort.Search(len(at), func(i int) bool { return at[i].Stream > s })
	if i == 0 {
		return 0
	}
	return at[i-1].Output
}

// OutputOffset is where job j's output after stream offset s of its
// recording starts: the output bytes before the cursor ltxc1.<j.Stream>.<s>.
func (r *Runner) OutputOffset(j *jobs.Job, s int64) int64 {
	r.mu.Lock()
	live := r.outputs[j.ID]
	r.mu.Unlock()
	if live != nil {
		live.mu.Lock()
		defer live.mu.Unlock()
		return outputAt(live.at.at, s)
	}
	return outputAt(j.OutputAt, s)
}
