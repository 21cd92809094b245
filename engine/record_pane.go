package engine

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tmuxmcp/tmuxmcp/asciicast"
	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/shell"
	"github.com/tmuxmcp/tmuxmcp/stream"
)

// ReplayIdleLimit is the idle_time_limit a pane's recording asks players
// for: a pause longer than it plays as this long (the event times stay as
// recorded; `asciinema play -i N` chooses another).
const ReplayIdleLimit = 2 * time.Second

// RecordInfo says what a recording of a pane holds.
type RecordInfo struct {
	PaneID      string
	Bytes       int64 // retained output bytes in it, gap bytes aside
	MissedBytes int64 // output the pane printed before the oldest retained byte
	Commands    int   // commands of run_shell_command marked in it
	Events      int   // output and marker events written
}

// RecordPane writes pane paneID's retained output to w as an asciicast v2
// recording (`asciinema play` plays it): the bytes as the pane printed
// them, at the pace they arrived, the pane's size, each command
// run_shell_command typed into the pane marked where it started ("$
// command") and where it ended (its status), a marker where tmux dropped
// output, and, when older output was evicted (--retain), a first marker
// and the title saying how many bytes are missing. The secret tags of
// tmuxmcp's own shell marks are blanked (shell.BlankTags). It is bounded
// by the retained window.
func (h *Host) RecordPane(ctx context.Context, paneID string, w io.Writer) (*RecordInfo, error) {
	pane, s, err := h.paneStream(ctx, "paneId", paneID)
	if err != nil {
		return nil, err
	}
	hdr := asciicast.Header{Width: 80, Height: 24, IdleTimeLimit: ReplayIdleLimit,
		Title: "tmuxmcp pane " + paneName(pane)}
	if p, err := h.fleet.Pane(ctx, pane); err == nil && p.Width > 0 && p.Height > 0 {
		hdr.Width, hdr.Height = p.Width, p.Height
		hdr.Title += fmt.Sprintf(" (%s:%d.%d)", p.SessionName, p.WindowIndex, p.PaneIndex)
	}
	r := s.Replay()
	shell.BlankTags(r.Data, r.From > 0) // the marks' tags are secrets of the pane's shell
	info, err := writeReplay(w, hdr, r, commandMarks(h.jobs.List(), s.ID().String(), r.From, r.End))
	if info != nil {
		info.PaneID = paneName(pane)
	}
	return info, err
}

// replayMark is a marker at a stream offset.
type replayMark struct {
	at     int64
	t      time.Time // when it happened; zero: when the byte at at arrived
	label  string
	starts bool // a command's start (after an end at the same offset)
}

// commandMarks are the start and end marks of the jobs of stream (hex)
// within [from, end].
func commandMarks(all []*jobs.Job, stream string, from, end int64) []replayMark {
	var marks []replayMark
	for _, j := range all {
		if j.Stream != stream || j.Started.IsZero() || j.Status == jobs.NotStarted {
			continue
		}
		if j.StartOffset >= from && j.StartOffset <= end {
			marks = append(marks, replayMark{at: j.StartOffset, t: j.Started, label: commandLabel(j.Command), starts: true})
		}
		if j.Done() && j.EndOffset > j.StartOffset && j.EndOffset >= from && j.EndOffset <= end {
			marks = append(marks, replayMark{at: j.EndOffset, t: j.Ended, label: endLabel(j)})
		}
	}
	slices.SortStableFunc(marks, func(a, b replayMark) int {
		if c := cmp.Compare(a.at, b.at); c != 0 {
			return c
		}
		return cmp.Compare(a.t.UnixNano(), b.t.UnixNano())
	})
	return marks
}

// commandLabel is "$ " and the command's first line, at most 200
// characters.
func commandLabel(cmd string) string {
	first, rest, more := strings.Cut(strings.TrimSpace(cmd), "\n")
	if more && strings.TrimSpace(rest) != "" {
		first += " …"
	}
	if utf8.RuneCountInString(first) > 200 {
		first = string([]rune(first)[:199]) + "…"
	}
	return "$ " + first
}

// endLabel says how a job ended: "completed, exit 0".
func endLabel(j *jobs.Job) string {
	s := string(j.Status)
	if j.ExitCode != nil {
		s += fmt.Sprintf(", exit %d", *j.ExitCode)
	}
	if j.Signal != nil {
		s += ", " + *j.Signal
	}
	return s
}

// writeReplay writes r as a recording with marks (ascending offsets).
func writeReplay(w io.Writer, hdr asciicast.Header, r stream.Replay, marks []replayMark) (*RecordInfo, error) {
	when := replayClock(r)
	t0 := when(r.From)
	info := &RecordInfo{MissedBytes: r.From, Bytes: r.End - r.From - int64(len(r.Gaps))}
	if r.From > 0 {
		hdr.Title += fmt.Sprintf(", the first %d bytes not retained", r.From)
	}
	hdr.Timestamp = t0
	cw, err := asciicast.NewWriter(w, hdr)
	if err != nil {
		return nil, err
	}
	if r.From > 0 {
		_ = cw.Marker(0, fmt.Sprintf("%d earlier bytes of this pane's output are not in this recording (tmuxmcp retains --retain bytes per pane)", r.From))
		info.Events++
	}
	for _, seg := range replaySegments(r, marks) {
		for _, m := range marks[seg.marks[0]:seg.marks[1]] {
			t := m.t
			if t.IsZero() {
				t = when(m.at)
			}
			_ = cw.Marker(t.Sub(t0), m.label)
			info.Events++
			if m.starts {
				info.Commands++
			}
		}
		switch {
		case seg.gap:
			_ = cw.Cut(when(seg.from).Sub(t0))
			_ = cw.Marker(when(seg.from).Sub(t0), "tmux dropped output here (the pane printed faster than it was read)")
			info.Events++
		case seg.to > seg.from:
			_ = cw.Output(when(seg.from).Sub(t0), r.Data[seg.from-r.From:seg.to-r.From])
			info.Events++
		}
	}
	return info, cw.Close()
}

// replayClock returns when the byte at an offset arrived, from r's
// samples (the recording's birth when it has none).
func replayClock(r stream.Replay) func(off int64) time.Time {
	return func(off int64) time.Time {
		i, found := slices.BinarySearchFunc(r.Times, off, func(s stream.Sample, off int64) int { return cmp.Compare(s.Offset, off) })
		switch {
		case found:
			return r.Times[i].At
		case i > 0:
			return r.Times[i-1].At
		case len(r.Times) > 0:
			return r.Times[0].At
		}
		return r.Born
	}
}

// replaySegment is a run of bytes [from, to) with one arrival time, or a
// gap byte, and the marks (indexes [marks[0], marks[1])) that come before it.
type replaySegment struct {
	from, to int64
	gap      bool
	marks    [2]int
}

// replaySegments cuts r's retained range at every sample, gap and mark, so
// each segment has one time and each mark falls between segments; a last
// empty segment carries the marks at the end.
func replaySegments(r stream.Replay, marks []replayMark) []replaySegment {
	cuts := []int64{r.From, r.End}
	for _, s := range r.Times {
		cuts = append(cuts, s.Offset)
	}
	for _, g := range r.Gaps {
		cuts = append(cuts, g, g+1)
	}
	for _, m := range marks {
		cuts = append(cuts, m.at)
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	var segs []replaySegment
	mi := 0
	for i, c := range cuts {
		if c < r.From || c > r.End {
			continue
		}
		seg := replaySegment{from: c, to: c, marks: [2]int{mi, mi}}
		for mi < len(marks) && marks[mi].at <= c {
			mi++
		}
		seg.marks[1] = mi
		if i+1 < len(cuts) && c < r.End {
			seg.to = min(cuts[i+1], r.End)
			_, seg.gap = slices.BinarySearch(r.Gaps, c)
		}
		segs = append(segs, seg)
	}
	return segs
}
