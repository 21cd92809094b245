package runner

import (
	"context"
	"time"

	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/shell"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// A shell that ends while it runs a job (exit 3, kill -KILL $$, a crash)
// takes its end mark with it: only tmux saw how it ended. While a job runs,
// tmux is asked to keep the pane when its program exits (keepDead), dead,
// with its exit status or signal; the job reads them (deadEnd) and then
// puts the pane back as it was (letGo): a pane that would have closed by
// itself is closed. So the end of a shell is told one way in every mode —
// a pane given by paneId, a create_pane shell, a fresh pane, a background
// job.

// keepDead has tmux keep pane, dead, if its program exits during a job.
// nil when tmux could not be asked (the job runs all the same; a shell that
// ends then reports what its script recorded, if anything).
func (r *Runner) keepDead(ctx context.Context, pane int) *jobs.KeptDead {
	kd, err := r.fleet.KeepDeadPane(ctx, pane)
	if err != nil {
		r.log.Debug("remain-on-exit for a job", "pane", pane, "err", err)
		return nil
	}
	return &jobs.KeptDead{Restore: kd.Restore, Closes: kd.Closes}
}

// deadStatusWait bounds how long deadEnd waits for tmux to reap a pane it
// lists as dead without its status yet (it reaps on SIGCHLD, which tmux
// before 3.6 can miss until another child exits; a listing nudges it).
const deadStatusWait = 1500 * time.Millisecond

// deadEnd is how job j's shell ended once its pane died: the exit status
// or the signal tmux read from the dead pane, else the status the job's
// script recorded (nil, "" when neither says: the pane was killed).
func (r *Runner) deadEnd(j *jobs.Job, pane int) (*int, string) {
	ctx, cancel := context.WithTimeout(context.Background(), deadStatusWait+5*time.Second)
	defer cancel()
	if j.KeptDead != nil {
		if p, ok := r.deadPane(ctx, pane); ok {
			if p.DeadSignal != nil {
				return nil, shell.SignalName(128 + *p.DeadSignal)
			}
			return p.DeadStatus, ""
		}
	}
	return r.statusFile(j), ""
}

// deadPane is pane as tmux lists it once dead with its status or signal;
// ok is false for a pane that is gone or not dead, or whose status tmux
// did not have within deadStatusWait.
func (r *Runner) deadPane(ctx context.Context, pane int) (tmux.PaneInfo, bool) {
	deadline := time.Now().Add(deadStatusWait)
	for step := 25 * time.Millisecond; ; step *= 2 {
		p, err := r.fleet.Pane(ctx, pane)
		if err != nil || !p.Dead {
			return tmux.PaneInfo{}, false
		}
		if p.DeadStatus != nil || p.DeadSignal != nil {
			return p, true
		}
		// Reaped on tmux's next SIGCHLD: a listing nudges it.
		r.fleet.RefreshPanes()
		if time.Now().Add(step).After(deadline) {
			return tmux.PaneInfo{}, false
		}
		t := time.NewTimer(step)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return tmux.PaneInfo{}, false
		}
	}
}

// letGo puts back what keepDead changed on job j's pane: its own setting
// while it lives; a dead pane that would have closed by itself is closed
// (its status was read).
func (r *Runner) letGo(j *jobs.Job, died bool) {
	pane, err := parsePane(j.PaneID)
	if j.KeptDead == nil || err != nil || j.FreshPane && !j.Keep {
		return // a fresh pane closes after its job (afterJob)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if died && j.KeptDead.Closes {
		_ = r.fleet.KillPane(ctx, pane)
		return
	}
	_ = r.fleet.RestoreDeadPane(ctx, pane, tmux.KeptDead{Restore: j.KeptDead.Restore, Closes: j.KeptDead.Closes})
}
