package runner

import (
	"context"
	"errors"
	"time"

	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/shell"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// Watching reports whether job id has a watcher now.
func (r *Runner) Watching(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.runs[id]
	return ok
}

// Resume picks up the jobs an earlier tmuxmcp left running: each is watched
// again on its pane's new recording (its output from before is in its
// file; the status comes from the shell's or the script's end mark). Jobs
// whose pane is gone are pane_died. Jobs waiting for a person's answer
// (decision pending) are the caller's.
func (r *Runner) Resume(ctx context.Context) { r.resume(ctx, true) }

// Rewatch is Resume while this process runs (a remote host is back): it
// watches again the jobs that were typed and have no watcher. A job not
// typed yet is being launched by a call in progress, not left behind.
func (r *Runner) Rewatch(ctx context.Context) { r.resume(ctx, false) }

func (r *Runner) resume(ctx context.Context, startup bool) {
	r.resumeMu.Lock() // one at a time: a job gets one watcher
	defer r.resumeMu.Unlock()
	for _, j := range r.jobs.List() {
		if j.Done() || j.Decision == "pending" || r.Watching(j.ID) || !startup && j.Started.IsZero() {
			continue
		}
		pane, err := parsePane(j.PaneID)
		parsed := err == nil
		var p tmux.PaneInfo
		if err == nil && j.PaneID != "" {
			p, err = r.fleet.Pane(ctx, pane)
		}
		if err == nil && j.ShellTag != "" && p.ShellTag != "" && shell.MarkTag(p.ShellTag) != j.ShellTag {
			// A pane of a new tmux server with the old one's number: the
			// job's pane is gone.
			err = tmux.ErrNoPane
		}
		if j.PaneID == "" || errors.Is(err, tmux.ErrNoPane) {
			// The pane is gone, and the command with it: its script may
			// have recorded a status.
			code := r.statusFile(j)
			final, _ := r.jobs.Update(j.ID, func(x *jobs.Job) { x.Status, x.ExitCode, x.Ended = jobs.PaneDied, code, time.Now().UTC() })
			r.removeScripts(ctx, j)
			if final != nil && r.cfg.Ended != nil {
				r.cfg.Ended(final)
			}
			continue
		}
		if j.Started.IsZero() {
			// A fresh pane whose shell was still starting: its command was
			// never typed. Its pane goes too.
			r.NotStarted(j.ID, "tmuxmcp restarted before the fresh pane's shell was ready; nothing was typed")
			if j.FreshPane && parsed {
				_ = r.fleet.KillPane(ctx, pane)
			}
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
