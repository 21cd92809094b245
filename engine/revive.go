package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/shell"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// A tmux server tmuxmcp started itself (the embedded default, a remote
// host's private one: Config.RestartServer) is started again by the next
// call that needs it, never by a timer: a shell that logs out on a timer
// (TMOUT) would otherwise be restarted forever with nobody using it. The
// next result says so (serverNote), and why when the host can tell. A
// server that ends within quickLife of being started again counts as a
// quick death; after maxQuick of them in a row, calls get an error naming
// the cause until quickPause has passed since the last one, then one more
// start is tried.
//
// quickLife is longer than the 10 s a session's first shell may be held
// by its launcher until tmuxmcp records the pane (shell/scripts/launch.sh):
// a shell that exits as it starts after that wait is still a quick death.
const (
	quickLife  = 15 * time.Second
	maxQuick   = 3
	quickPause = 30 * time.Second
)

// revival is what a host knows of its tmux server's ends and restarts.
type revival struct {
	startMu sync.Mutex // one restart at a time

	mu       sync.Mutex
	since    time.Time         // when the current server was reached (opened or restarted)
	restarts int               // how many times tmuxmcp started it again
	endedAt  time.Time         // when the last server ended (zero: it has not)
	cause    string            // why it ended, as far as the host can tell
	quick    int               // quick deaths in a row
	note     string            // what the next result says (once)
	lostJobs map[string]string // jobs that ran when their server ended: why
	// ends counts the servers seen to end (serverEnded, endedAtStart);
	// startEnds is what it was when the current server was started (or
	// the host opened): the current one has ended when ends is past it.
	// endCh is closed, and replaced, at each end.
	ends, startEnds int
	endCh           chan struct{}
}

// endsNow is how many server ends the host has seen: a call keeps it to
// wait for the end of the server it meets going (afterLoss).
func (h *Host) endsNow() int {
	h.revive.mu.Lock()
	defer h.revive.mu.Unlock()
	return h.revive.ends
}

// ended counts one end of the server and wakes whoever waits for it.
// r.mu is held.
func (r *revival) ended() {
	r.ends++
	if r.endCh != nil {
		close(r.endCh)
		r.endCh = nil
	}
}

// endWait bounds how long a call waits for the host to see the end of a
// server whose connection closed under it (the fleet first asks tmux
// whether the whole server went).
const endWait = 10 * time.Second

// awaitEnd waits until the host has seen more than seen server ends, at
// most endWait, and reports whether it has.
func (h *Host) awaitEnd(ctx context.Context, seen int) bool {
	r := &h.revive
	t := time.NewTimer(endWait)
	defer t.Stop()
	for {
		r.mu.Lock()
		if r.ends > seen {
			r.mu.Unlock()
			return true
		}
		if r.endCh == nil {
			r.endCh = make(chan struct{})
		}
		ch := r.endCh
		r.mu.Unlock()
		select {
		case <-ch:
		case <-t.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// afterLoss is what a call does that met its connection to tmux closing
// (tmux.ErrClosed) when the host had seen seen server ends: for a server
// tmuxmcp starts itself, it waits until the end is seen (and counted: a
// server that dies during a call after a restart is a quick death too),
// then starts it again, or returns the error that says why not (the cap
// on quick deaths). nil: the server is back and the call may be tried
// again.
func (h *Host) afterLoss(ctx context.Context, seen int) error {
	if h.opts.RestartServer == nil || h.opts.Machine != nil || !h.awaitEnd(ctx, seen) {
		return lostError()
	}
	return h.connected()
}

// serverEnded notes that the host lost its tmux server: why, as far as the
// panes it watched can tell (read before their recordings end), and the
// jobs that were running in it. Called from the fleet's loop: it must not
// block.
func (h *Host) serverEnded(err error) {
	cause := h.endCause(err)
	now := time.Now()
	if le := (*tmux.LostError)(nil); errors.As(err, &le) && le.At.Before(now) {
		now = le.At // its life ended then, however long the fleet took to tell
	}
	r := &h.revive
	r.mu.Lock()
	defer r.mu.Unlock()
	r.endedAt, r.cause = now, cause
	switch {
	case r.ends > r.startEnds:
		// Its end was counted already: it ended as it started
		// (endedAtStart), and the fleet had reached it all the same.
	case r.restarts > 0 && now.Sub(r.since) < quickLife:
		r.quick++
	default:
		r.quick = 0
	}
	r.ended()
	if h.opts.Machine != nil {
		return // a remote host: its jobs may run on while the link is down
	}
	for _, j := range h.jobs.List() {
		if j.Status != jobs.Running || j.Started.IsZero() {
			continue
		}
		if r.lostJobs == nil {
			r.lostJobs = map[string]string{}
		}
		r.lostJobs[j.ID] = fmt.Sprintf("the tmux server (%s) ended while this command ran: %s. The command ended with it; its exit status is unknown.", h.opts.Target, cause)
	}
}

// endCause says why the server ended, from what tmux said and what the
// panes printed last: a shell's logout, bash's TMOUT message.
func (h *Host) endCause(err error) string {
	if tmux.Crashed(err) {
		return "the tmux server crashed or was killed with a signal"
	}
	var logout, exited bool
	for _, s := range h.hub.Recent(2) {
		if time.Since(s.LastAppend()) > 10*time.Second {
			continue // printed nothing as the server went: no evidence
		}
		tail := strings.TrimRight(s.Tail(3, 512, false).Output, " \r\n")
		last := tail[strings.LastIndexByte(tail, '\n')+1:]
		switch {
		case strings.Contains(tail, "auto-logout"):
			logout = true
		case strings.HasSuffix(last, "logout") || strings.HasSuffix(last, "exit"):
			exited = true
		}
	}
	tmout := h.idleLogout()
	if tmout != "" {
		tmout += ": bash and zsh exit after that many seconds without input; unset it for the shells an agent keeps"
	}
	switch {
	case logout:
		return join("every shell in it exited: bash logged out after TMOUT seconds without input (\"timed out waiting for input: auto-logout\")", tmout)
	case exited:
		return join("every shell in it exited (the last one printed logout or exit)", tmout)
	}
	return join("every shell in it exited or the server was killed (kill-server)", tmout)
}

func join(why, more string) string {
	if more == "" {
		return why
	}
	return why + "; " + more
}

// idleLogout says where TMOUT is set for the server's shells: in the
// environment tmux was started with, or a startup file in the home it
// gives its panes ("" when nowhere, or on another machine).
func (h *Host) idleLogout() string {
	if h.opts.Machine != nil {
		return ""
	}
	env := map[string]string{"HOME": os.Getenv("HOME"), "TMOUT": os.Getenv("TMOUT")}
	for _, kv := range h.opts.Target.Env { // the server's own environment, when set
		if k, v, ok := strings.Cut(kv, "="); ok && (k == "HOME" || k == "TMOUT") {
			env[k] = v
		}
	}
	if env["TMOUT"] != "" {
		return "TMOUT=" + env["TMOUT"] + " is in the environment tmux starts shells with"
	}
	if where := shell.IdleLogout(env["HOME"]); where != "" {
		return "TMOUT is set in " + where
	}
	return ""
}

// restartServer starts the host's own tmux server again (lost is why the
// fleet has none) and reconnects, or returns an error naming the cause and
// what will work. A server that ends as it starts, before tmuxmcp reaches
// it, is a quick death like one that ends a moment later: it is started
// again until the cap.
func (h *Host) restartServer(lost error) error {
	r := &h.revive
	r.startMu.Lock()
	defer r.startMu.Unlock()
	if h.fleet.Err() == nil {
		return nil // another call started it meanwhile
	}
	// The fleet may still be finding out whether the whole server went:
	// its end is counted first (a start now would hide it).
	r.mu.Lock()
	current := r.startEnds
	r.mu.Unlock()
	h.awaitEnd(context.Background(), current)
	if h.fleet.Err() == nil {
		return nil // only its sessions went, and the fleet is back
	}
	for try := 0; ; try++ {
		r.mu.Lock()
		quick, endedAt, cause := r.quick, r.endedAt, r.cause
		r.mu.Unlock()
		if cause == "" {
			cause = lost.Error()
		}
		if quick >= maxQuick && time.Since(endedAt) < quickPause {
			why := "Every shell in it exits as it starts: your shell's startup files most likely end the shell (exit, a TMOUT of a second or two, exec of a program that ends). Run tmuxmcp doctor to see the line, fix it, and"
			if strings.Contains(cause, "killed") {
				// tmux cannot tell a kill-server from its last shell exiting.
				why = "Either something kills it (kill-server, a signal: stop that), or every shell in it exits as it starts (startup files that exit, a TMOUT of a second or two: tmuxmcp doctor shows the line). Fix the cause and"
			}
			return errorf("tmux is not reachable: the tmux server tmuxmcp starts (%s) ended %d times in a row within %v of being started (last: %s). %s call again after %s; nothing was done", h.opts.Target, quick, quickLife, cause, why, endedAt.Add(quickPause).Format(time.TimeOnly))
		}
		started, err := h.startAgain()
		switch {
		case started < 0:
			return errorf("tmux is not reachable (%s: %s), and starting it again failed: %v. Nothing was done. Check that tmux starts (tmuxmcp doctor), then call again", h.opts.Target, cause, err)
		case err == nil:
			r.mu.Lock()
			r.note = fmt.Sprintf("The tmux server (%s) ended at %s: %s. tmuxmcp started it again with session %s: its panes, pane ids and cursors are new (list_panes shows them); job records are kept, and commands that ran in it ended as pane_died.", h.opts.Target, endedAt.Format(time.TimeOnly), cause, h.opts.Session)
			r.mu.Unlock()
			return nil
		}
		if try == maxQuick || !h.awaitEnd(context.Background(), started) {
			return errorf("tmux is not reachable (%s: %s): it was started again, and reaching it failed: %v. Nothing was done. Check that tmux starts (tmuxmcp doctor), then call again", h.opts.Target, cause, err)
		}
	}
}

// startAgain starts the server and reconnects. It is counted as started
// before it starts: a server that dies at once, even before the reconnect
// is done, is a quick death (serverEnded; endedAtStart when the fleet
// never reached it). started is the count of ends before this start (its
// own end is past it), or -1 when tmux did not start a server.
func (h *Host) startAgain() (started int, err error) {
	r := &h.revive
	r.mu.Lock()
	since, restarts := r.since, r.restarts
	r.since, r.startEnds = time.Now(), r.ends
	r.restarts++
	started = r.ends
	r.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err = h.opts.RestartServer(ctx)
	if err == nil {
		err = h.fleet.Reconnect(ctx)
		if err != nil && h.fleet.Err() == nil {
			err = nil // reached: only its first listing failed
		}
		if err == nil {
			h.bindHandOff(ctx)
		}
	}
	switch {
	case err == nil:
	case tmux.NoServer(err):
		// It started, and was gone before tmuxmcp reached it (its first
		// shell exited, and the server with it, even before new-session
		// answered).
		h.endedAtStart(started)
	case errors.Is(err, context.DeadlineExceeded):
	default:
		r.mu.Lock()
		r.since, r.restarts = since, restarts // it never ran
		r.mu.Unlock()
		return -1, err
	}
	return started, err
}

// endedAtStart counts a server that ended before the fleet reached it (its
// first shell exited at once, and the server with it) as a quick death,
// unless serverEnded did (the host has seen more than seen ends).
func (h *Host) endedAtStart(seen int) {
	r := &h.revive
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ends > seen {
		return
	}
	r.endedAt, r.cause = time.Now(), "the server ended as it started, before tmuxmcp could reach it: the first shell in it exited at once"
	r.quick++
	r.ended()
}

// gone is the error for a call that finds a server tmuxmcp does not start
// itself gone (lost says why): it names how to start it.
func (h *Host) gone(lost error) error {
	r := &h.revive
	r.mu.Lock()
	cause := r.cause
	r.mu.Unlock()
	if cause == "" {
		cause = lost.Error()
	}
	t := h.fleet.Target()
	return errorf("tmux is not reachable: %s is gone (%s). Nothing was done. tmuxmcp starts a server you chose (-L/-S) only at its own launch, never again: start it, e.g. %s; tmuxmcp reconnects by itself within seconds of it running (then list_panes shows the new panes: pane ids and cursors from before are gone)", t, cause, t.StartLine(h.opts.Session))
}

// restartedSince is a clause for errors about panes: when tmuxmcp started
// the server again, pane ids before that name nothing now.
func (h *Host) restartedSince() string {
	r := &h.revive
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.restarts == 0 {
		return ""
	}
	return fmt.Sprintf("; the tmux server was started again at %s, so pane ids from before then are gone", r.since.Format(time.TimeOnly))
}

// takeServerNote returns what the next result says about the server being
// started again, once, or nil.
func (h *Host) takeServerNote() *string {
	r := &h.revive
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.note == "" {
		return nil
	}
	n := r.note
	r.note = ""
	return &n
}

// jobServerNote is what a job's result says about its server: why it
// ended while the job ran, or the one-time restart note.
func (h *Host) jobServerNote(j *jobs.Job) *string {
	r := &h.revive
	r.mu.Lock()
	note, lost := r.lostJobs[j.ID]
	r.mu.Unlock()
	if lost && j.Done() {
		if n := h.takeServerNote(); n != nil {
			note += " " + *n
		}
		return &note
	}
	return h.takeServerNote()
}
