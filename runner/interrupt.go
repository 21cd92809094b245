package runner

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"time"

	"github.com/tmuxmcp/tmuxmcp/shell"
	"github.com/tmuxmcp/tmuxmcp/stream"
)

// A stop request (cancel_command, a job's timeout) must not be mistaken
// for the end of a command that ended by itself a moment before it: that
// command reports its own status. So the first interrupt is sent only to
// a command still running, and the evidence of which came first is kept:
//
//   - the stream is read up to where it was when the stop was asked
//     first (for a moment: a watcher far behind a flood is not waited
//     for): an end mark in it ends the job with its own status, and
//     nothing is sent;
//   - a program of the command that owns the terminal gets SIGINT in its
//     process group, as C-c would send it (but only while one of its
//     processes is alive: a group that has exited is left to the shell,
//     whose end mark follows); a raw-mode program, which reads C-c as a
//     key, gets the key;
//   - when the shell itself is in front (a builtin, a function, or the
//     moment between its command's end and its end mark), C-c is typed
//     after a short grace, unless the shell's marks say it has left the
//     command; a shell the command started (sh -c '...') that runs no
//     program gets SIGINT after the same grace;
//   - the stream offset just before the interrupt went out is kept: an
//     end mark that starts before it was written before the interrupt
//     (completed, its own exit code); one at or after it ends a command
//     the interrupt reached (interrupted) — except when SIGINT went to a
//     group none of whose processes catches it and the end mark's status
//     is not a signal's: SIGINT kills such a process, so it had already
//     been exiting on its own (completed, its own exit code). A command
//     that catches SIGINT and exits with a status of its own (trap
//     'exit 0' INT) was stopped by the request: it is interrupted, with
//     the exit code it chose (and no signal, since none ended it).

// interruptResult is what a first interrupt step did.
type interruptResult int

const (
	// interruptLater: nothing was sent; the command may be ending by
	// itself (its end mark on its way): look again in a moment.
	interruptLater interruptResult = iota
	// interruptSignalled: SIGINT went to the command's running processes.
	interruptSignalled
	// interruptTyped: C-c was typed into the terminal.
	interruptTyped
	// interruptFailed: nothing could be sent.
	interruptFailed
)

// shellGrace is how long a stop waits, while the shell itself is in front
// with no program of the command running, before it types C-c: a shell
// between its command's last program and its end mark is there for
// moments; a builtin that waits (read) or loops is interrupted after it.
const shellGrace = 300 * time.Millisecond

// interruptRetry is how often a stop looks again at a command that may be
// ending by itself.
const interruptRetry = 20 * time.Millisecond

// interruptSent is what interruptFirst did.
type interruptSent struct {
	res interruptResult
	at  int64 // the stream's end just before the interrupt went out
	// caught: SIGINT went to a group with a process of the command that
	// catches it, or C-c was typed to a program that reads it as a key
	// (raw mode) or whose probe failed (commandCatches).
	caught bool
}

// interruptFirst is the first step of a stop: SIGINT (or C-c) to what runs
// the command in paneID, unless what the kernel and the shell's marks say
// shows the command already over. asked is how long ago the stop was
// asked; force types C-c whatever runs (a command not started yet, or one
// whose end never came). tag is the job's ShellTag (its shell's marks'
// tag).
func (r *Runner) interruptFirst(paneID string, s *stream.PaneStream, tag string, asked time.Duration, force bool) interruptSent {
	pane, err := parsePane(paneID)
	if err != nil {
		return interruptSent{res: interruptFailed}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	p, err := r.fleet.Pane(ctx, pane)
	if err != nil {
		return interruptSent{res: interruptFailed}
	}
	probe, err := r.machine.Probe(p.PID, p.TTY)
	if err != nil || force {
		if p.InMode {
			// Never C-c into copy mode, where it would throw the person
			// out of it.
			return r.signalOthers(probe, s)
		}
		return r.typeInterrupt(ctx, pane, s, err != nil || commandCatches(probe))
	}
	switch {
	case !probe.ShellGroup && probe.ForegroundPgrp > 1:
		// A program of the command (or a shell it started) owns the
		// terminal, in its own process group.
		if !probe.Running() {
			return interruptSent{res: interruptLater} // it has exited: the shell ends the command
		}
		if !probe.RunsProgram() && asked < shellGrace {
			// A shell the command started (sh -c '...') runs its builtins,
			// or is between its programs: about to exit, maybe.
			return interruptSent{res: interruptLater}
		}
		if !probe.Signals && !p.InMode {
			return r.typeInterrupt(ctx, pane, s, true) // raw mode: C-c is a key it reads
		}
		at, caught := s.End(), probe.CatchesInterrupt()
		if err := r.machine.Signal(-probe.ForegroundPgrp, syscall.SIGINT); err != nil {
			if errors.Is(err, syscall.ESRCH) {
				return interruptSent{res: interruptLater}
			}
			r.log.Warn("interrupt", "pane", paneID, "pgrp", probe.ForegroundPgrp, "err", err)
			return interruptSent{res: interruptFailed}
		}
		return interruptSent{res: interruptSignalled, at: at, caught: caught}
	case p.InMode:
		return r.signalOthers(probe, s)
	case tag != "" && probe.ShellGroup && leftCommand(lastMarks(s, strings.TrimPrefix(tag, "s")).last):
		// The shell has left the command (its end mark or its next prompt
		// is in the stream): the job ends with its own status. (What else
		// runs in its group is not the command: a job it put in the
		// background without job control.)
		return interruptSent{res: interruptLater}
	case len(probe.OtherPIDs) > 0:
		// The shell's own group runs a program (a command substitution, a
		// shell without job control): C-c, as a person would press it.
		return r.typeInterrupt(ctx, pane, s, commandCatches(probe))
	case asked < shellGrace:
		return interruptSent{res: interruptLater}
	}
	// The shell alone: it reports what it interrupts with a signal's
	// status (130).
	return r.typeInterrupt(ctx, pane, s, false)
}

// commandCatches reports whether a process of the command in front catches
// SIGINT, and so may end with a status of its own when C-c reaches it. The
// pane's shell itself is not counted: an interactive shell catches SIGINT,
// and what it interrupts (a builtin, a list) ends with a signal's status,
// so a plain status after C-c says C-c came after the command's end.
func commandCatches(probe shell.Probe) bool {
	if probe.ShellGroup {
		return probe.OthersCatchInterrupt()
	}
	return probe.CatchesInterrupt()
}

// leftCommand reports whether the kind of an integrated shell's last mark
// says it is past its command: its end mark or its next prompt (none in
// the recording's tail, under a flood of output, says nothing).
func leftCommand(last byte) bool { return last == 'D' || last == 'A' || last == 'B' }

// catchUpMax bounds how long a stop waits for the job's watcher to read
// what the pane printed before the stop was asked (under a flood it may
// be far behind; the offsets decide the status all the same).
const catchUpMax = 100 * time.Millisecond

// typeInterrupt types C-c into pane. The pane's next reader waits for
// the terminal's reaction to it, as for keys sent by hand.
func (r *Runner) typeInterrupt(ctx context.Context, pane int, s *stream.PaneStream, caught bool) interruptSent {
	at := s.End()
	if err := r.fleet.SendKeys(ctx, pane, "C-c"); err != nil {
		return interruptSent{res: interruptFailed}
	}
	s.KeysSubmitted(time.Now())
	return interruptSent{res: interruptTyped, at: at, caught: caught}
}

// signalOthers sends SIGINT to the processes of the foreground group other
// than its leader, when that is a shell (its own group must never be
// signalled as a whole), or to the whole group otherwise.
func (r *Runner) signalOthers(probe shell.Probe, s *stream.PaneStream) interruptSent {
	if probe.AtShellPrompt() || probe.ForegroundPgrp <= 1 {
		return interruptSent{res: interruptFailed}
	}
	sent := interruptSent{res: interruptFailed, at: s.End(), caught: probe.CatchesInterrupt()}
	if !probe.LeaderIsShell() {
		if r.machine.Signal(-probe.ForegroundPgrp, syscall.SIGINT) == nil {
			sent.res = interruptSignalled
		}
		return sent
	}
	for _, pid := range probe.OtherPIDs {
		if r.machine.Signal(pid, syscall.SIGINT) == nil {
			sent.res = interruptSignalled
		}
	}
	return sent
}
