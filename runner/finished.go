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
// when more than keepFinishedMax finished windows are kept: the oldest
// goes first. None of it is on the result's path: the job's result is
// recorded before the pane is touched.

// keepFinishedMax is how many finished windows are kept at most.
const keepFinishedMax = 4

// finishedPane is a kept finished window: when it closes, and its timer.
type finishedPane struct {
	until time.Time
	timer *time.Timer
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
		p, err := fleet.Pane(ctx, pane)
		if err != nil {
			return
		}
		// Whole seconds (the pane option's), rounded up.
		until := time.Unix(time.Now().Add(r.cfg.KeepFinished).Add(time.Second-1).Unix(), 0)
		fin := tmux.Finished{Name: finishedName(p.WindowName, final), Until: until, Exit: final.ExitCode, Dead: p.Dead}
		if final.Signal != nil {
			fin.Signal = *final.Signal
		}
		if err := fleet.FinishPane(ctx, pane, fin); err != nil {
			r.log.Debug("keep a finished job's window", "pane", pane, "err", err)
			_ = fleet.KillPane(ctx, pane)
			return
		}
		r.keepUntil(pane, until)
	}()
}

// finishedName is window name marked with how job j ended: "✓" for exit
// status 0, "✗ 2" for another, "✗ SIGTERM" for a signal, "?" when
// nobody knows.
func finishedName(name string, j *jobs.Job) string {
	if name == "" {
		name = "job"
	}
	switch {
	case j.Signal != nil:
		return name + " ✗ " + *j.Signal
	case j.ExitCode == nil:
		return name + " ?"
	case *j.ExitCode == 0:
		return name + " ✓"
	default:
		return name + " ✗ " + strconv.Itoa(*j.ExitCode)
	}
}

// keepUntil closes finished pane at until (now, when it is past), and the
// oldest kept finished windows past keepFinishedMax now. Cheap to call
// again with the same time (every pane listing does).
func (r *Runner) keepUntil(pane int, until time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if f, ok := r.finished[pane]; ok {
		if f.until.Equal(until) {
			return
		}
		f.timer.Stop()
	}
	if r.finished == nil {
		r.finished = map[int]finishedPane{}
	}
	r.finished[pane] = finishedPane{until: until, timer: time.AfterFunc(time.Until(until), func() { r.closeFinished(pane, until) })}
	for len(r.finished) > keepFinishedMax {
		oldest, of := -1, finishedPane{}
		for p, f := range r.finished {
			if oldest < 0 || f.until.Before(of.until) || f.until.Equal(of.until) && p < oldest {
				oldest, of = p, f
			}
		}
		of.timer.Stop()
		delete(r.finished, oldest)
		time.AfterFunc(0, func() { r.closeFinished(oldest, of.until) })
	}
}

// closeFinished closes finished pane if it is still the finished window
// that was to close at until (a pane listed dead with that time).
func (r *Runner) closeFinished(pane int, until time.Time) {
	r.mu.Lock()
	if f, ok := r.finished[pane]; ok && f.until.Equal(until) {
		delete(r.finished, pane)
	}
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
	p, err := fleet.Pane(ctx, pane)
	if err != nil || !p.Dead || !p.FinishedUntil.Equal(until) {
		return
	}
	if err := fleet.KillPane(ctx, pane); err != nil {
		r.log.Debug("close a finished job's window", "pane", pane, "err", err)
	}
}
