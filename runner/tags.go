package runner

import (
	"context"
	"time"

	"github.com/tmuxmcp/tmuxmcp/jobs"

	"github.com/tmuxmcp/tmuxmcp/shell"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// tagged is the tmux server as the runner reads it: the pane option that
// names a pane's integrated shell (tmux.ShellOption) holds the shell's
// public ID, which any process of the pane can read; the runner works with
// the secret tag the integration's key makes of it (shell.Integration.Secret),
// which nothing in the pane can. A pane whose ID the key does not know (an
// integration without a key) reads as a pane without an integrated shell.
type tagged struct {
	paneServer
	in *shell.Integration
}

// withTags wraps s so that panes read through it carry secret tags.
func withTags(s paneServer, in *shell.Integration) paneServer {
	if s == nil {
		return nil
	}
	return tagged{paneServer: s, in: in}
}

// Pane is the pane as tmux lists it, with its shell's secret tag.
func (t tagged) Pane(ctx context.Context, pane int) (tmux.PaneInfo, error) {
	p, err := t.paneServer.Pane(ctx, pane)
	p.ShellTag = t.in.Secret(p.ShellTag)
	return p, err
}

// PaneScreen is the pane and its screen, with its shell's secret tag.
func (t tagged) PaneScreen(ctx context.Context, pane int) (tmux.PaneInfo, []string, error) {
	p, screen, err := t.paneServer.PaneScreen(ctx, pane)
	p.ShellTag = t.in.Secret(p.ShellTag)
	return p, screen, err
}

// secretTags returns panes with each ShellTag (a public ID) replaced by
// the shell's secret tag.
func (r *Runner) secretTags(panes []tmux.PaneInfo) []tmux.PaneInfo {
	out := make([]tmux.PaneInfo, len(panes))
	for i, p := range panes {
		p.ShellTag = r.cfg.Shell.Secret(p.ShellTag)
		out[i] = p
	}
	return out
}

// shellInFront reports whether the terminal of job j's pane belongs to
// the job's shell alone, as it does between commands: its process group in
// front, led by the shell, and nothing else in it. No command the shell
// runs can make that so while it runs (it holds the terminal itself, in
// its own group or in the shell's).
func (r *Runner) shellInFront(j *jobs.Job) bool {
	pane, err := parsePane(j.PaneID)
	if err != nil {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	p, err := r.fleet.Pane(ctx, pane)
	if err != nil || p.Dead {
		return false
	}
	probe, err := r.machine.Probe(p.PID, p.TTY)
	return err == nil && shellAlone(probe, j.ShellGroup)
}

// shellAlone reports whether probe finds the shell whose process group is
// group (0: the pane's own shell) alone in front of its terminal, and not
// waiting for a command of its own (which may have handed the terminal to
// the shell's group while it runs).
func shellAlone(probe shell.Probe, group int) bool {
	if group > 0 && probe.ForegroundPgrp != group || group <= 0 && !probe.ShellGroup {
		return false
	}
	return probe.LeaderIsShell() && len(probe.Others) == 0 && !probe.WaitsForCommand()
}

// shellReads reports whether probe finds the shell whose process group is
// group (0: the pane's own shell) in front of its terminal, reading its
// next command (shell.Probe.ReadingCommand: fish's own background work may
// share its group while its line editor reads), and not waiting for a
// command of its own.
func shellReads(probe shell.Probe, group int) bool {
	if group > 0 && probe.ForegroundPgrp != group || group <= 0 && !probe.ShellGroup {
		return false
	}
	return probe.ReadingCommand() && !probe.WaitsForCommand()
}

// shellFront reports whether probe finds the process group of the shell
// whose group is group (0: the pane's own shell) in front of its terminal:
// no program the shell started as a job holds it (what the shell runs in
// its own group, such as a command substitution in its prompt, may).
func shellFront(probe shell.Probe, group int) bool {
	if group > 0 {
		return probe.ForegroundPgrp == group
	}
	return probe.ShellGroup
}
