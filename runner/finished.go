package runner

import (
	"context"
	"strconv"
	"time"

	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// A fresh pane's job that ended leaves its window for a person to see
// (Config.KeepFinished): dead, its output on the screen and tmux's "Pane
// is dead (status N, …)" line under it, the window's name marked with how
// the job ended ("build ✓", "test ✗ 2"). It closes when its time is over
// (a timer; the time is also in the pane's tmux.FinishedOption, so a
// tmuxmcp started later closes it then, or at once when it is past), or
// when the next fresh-pane job's window finishes: one finished window is
// kept (keepFinishedMax), the newest, as a person watching wants the last
// job's end, and every window more would cost each later fresh pane time
// (each pane listing is longer). The program that reprints the screen
// (tmux.FinishPane) runs outside any sandbox the shell ran in: it is
// tmuxmcp's own fixed script, the screen only its argument, never run.
// None of it is on the result's path: the job's result is
// recorded before the pane is touched.

// keepFinishedMax is how many finished windows are kept at most: the
// newest.
const keepFinishedMax = 1

// finishedPane is a kept finished window: when it closes, and its timer.
type finishedPane struct {
	until time.Time
	timer *time.Timer
	seq   uint64 // the order it was kept in: the first kept goes first
}

// finishFresh leaves the fresh pane of job final, which just ended, to show
// how it ended, in the background.
func (r *Runner) finishFresh(final *jobs.Job, pane int) {
	r.mu.Lock()
	ok := r.addWorkerLocked()
	fleet := r.fleet
	r.mu.Unlock()
	if !ok {
		return
	}
	go func() {
		defer r.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		// Whole seconds (the pane option's), rounded up.
		until := time.Unix(time.Now().Add(r.cfg.KeepFinished).Add(time.Second-1).Unix(), 0)
		fin := tmux.Finished{Mark: finishedMark(final), Until: until, Exit: final.ExitCode, Close: r.keepUntil(pane, until)}
		if final.Signal != nil {
			fin.Signal = *final.Signal
		}
		if err := fleet.FinishPane(ctx, pane, fin); err != nil {
			r.log.Debug("keep a finished job's window", "pane", pane, "err", err)
			r.forget(pane, until)
			_ = fleet.KillPane(ctx, pane)
		}
	}()
}

// finishedMark says how job j ended, for its window's name: "✓" for exit
// status 0, "✗ 2" for another, "✗ SIGTERM" for a signal, "?" when nobody
// knows.
func finishedMark(j *jobs.Job) string {
	switch {
	case j.Signal != nil:
		return "✗ " + *j.Signal
	case j.ExitCode == nil:
		return "?"
	case *j.ExitCode == 0:
		return "✓"
	default:
		return "✗ " + strconv.Itoa(*j.ExitCode)
	}
}

// keepUntil has finished pane closed at until (at once when it is past),
// and returns the kept finished panes it puts over keepFinishedMax, the
// first kept, which are to close now (with the time each was kept until);
// their timers are stopped. Cheap to call again with the same time (every
// pane listing does).
func (r *Runner) keepUntil(pane int, until time.Time) map[int]time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	if f, ok := r.finished[pane]; ok {
		if f.until.Equal(until) {
			return nil
		}
		f.timer.Stop()
	}
	if r.finished == nil {
		r.finished = map[int]finishedPane{}
	}
	r.finishedSeq++
	r.finished[pane] = finishedPane{until: until, seq: r.finishedSeq, timer: time.AfterFunc(time.Until(until), func() { r.closeFinished(pane, until) })}
	var over map[int]time.Time
	for len(r.finished) > keepFinishedMax {
		oldest, of := -1, finishedPane{}
		for p, f := range r.finished {
			if oldest < 0 || f.seq < of.seq {
				oldest, of = p, f
			}
		}
		of.timer.Stop()
		delete(r.finished, oldest)
		if over == nil {
			over = map[int]time.Time{}
		}
		over[oldest] = of.until
	}
	return over
}

// forget stops keeping finished pane (kept until until).
func (r *Runner) forget(pane int, until time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if f, ok := r.finished[pane]; ok && f.until.Equal(until) {
		f.timer.Stop()
		delete(r.finished, pane)
	}
}

// keepListed keeps a finished pane a listing shows (left by an earlier
// tmuxmcp, or by this one), closing the ones it puts over
// keepFinishedMax in the background.
func (r *Runner) keepListed(pane int, until time.Time) {
	for p, u := range r.keepUntil(pane, until) {
		time.AfterFunc(0, func() { r.closeFinished(p, u) })
	}
}

// closeFinished closes finished pane if it is still the finished window
// that was to close at until (dead, with that time).
func (r *Runner) closeFinished(pane int, until time.Time) {
	r.forget(pane, until)
	r.mu.Lock()
	ok := r.addWorkerLocked()
	fleet := r.fleet
	r.mu.Unlock()
	if !ok {
		return
	}
	defer r.wg.Done()
	if fleet == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := fleet.CloseFinished(ctx, pane, until); err != nil {
		r.log.Debug("close a finished job's window", "pane", pane, "err", err)
	}
}
