package runner

import (
	"context"
	"time"

	"github.com/tmuxmcp/tmuxmcp/jobs"
)

// Resume picks up the jobs an earlier tmuxmcp left running: each is watched
// again on its pane's new recording (its output from before is in its
// file; the status comes from the shell's or the script's end mark). Jobs
// whose pane is gone are pane_died. Jobs waiting for a person's answer
// (decision pending) are the caller's.
func (r *Runner) Resume(ctx context.Context) {
	for _, j := range r.jobs.List() {
		if j.Done() || j.Decision == "pending" {
			continue
		}
		pane, err := parsePane(j.PaneID)
		if err == nil && j.PaneID != "" {
			_, err = r.fleet.Pane(ctx, pane)
		}
		if err != nil || j.PaneID == "" {
			_, _ = r.jobs.Update(j.ID, func(x *jobs.Job) { x.Status = jobs.PaneDied; x.Ended = time.Now().UTC() })
			continue
		}
		if j.Started.IsZero() {
			// A fresh pane whose shell was still starting: its command was
			// never typed.
			r.NotStarted(j.ID, "tmuxmcp restarted before the fresh pane's shell was ready; nothing was typed")
			continue
		}
		s := r.stream(pane)
		if s.ID().String() != j.Stream {
			// A new recording: its first end mark is this job's.
			j, _ = r.jobs.Update(j.ID, func(x *jobs.Job) { x.Stream, x.StartOffset = s.ID().String(), 0 })
			r.Spawn(&Started{Job: j, Stream: s, From: 0, Resumed: true})
			continue
		}
		r.Spawn(&Started{Job: j, Stream: s, From: j.StartOffset})
	}
}
