package runner

import (
	"context"
	"time"

	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/shell"
)

// InputSettle is how long a pane must have printed nothing, and been sent
// nothing, before its program is said to wait for input: a prompt is
// printed, then read; an answer just typed is read, then acted on.
const InputSettle = 500 * time.Millisecond

// InputWait is a program waiting for someone to type: it is blocked
// reading the pane's terminal and has printed nothing for InputSettle.
type InputWait struct {
	// Program is the waiting program's name (less, python3, sudo, bash
	// in its read builtin).
	Program string
	// Prompt is the text before the cursor on the cursor's line: the
	// question asked ("Continue? [y/N]"), a pager's ":" or "(END)".
	Prompt string
}

// WaitingForInput says whether the program in the foreground of pane
// waits for input. A shell reading a command line is not waiting in this
// sense (it is ready for a command; a shell's read builtin, in canonical
// mode, is); nor is a program that printed within InputSettle.
func (r *Runner) WaitingForInput(ctx context.Context, pane int) (InputWait, bool) {
	if s, ok := r.hub.Live(pane); ok && time.Since(s.LastActivity()) < InputSettle {
		// It printed, or was sent input, a moment ago: not settled.
		return InputWait{}, false
	}
	p, screen, err := r.fleet.PaneScreen(ctx, pane)
	if err != nil || p.Dead {
		return InputWait{}, false
	}
	probe, err := r.machine.Probe(p.PID, p.TTY)
	if err != nil || probe.Reader == "" || probe.ReadingCommand() && !r.inCommand(ctx, pane, p.ShellTag, probe) {
		return InputWait{}, false
	}
	w := InputWait{Program: probe.Reader, Prompt: cursorText(screen, p)}
	if probe.ReadingCommand() && r.atOwnPrompt(pane, p.ShellTag, w.Prompt) {
		// The shell reads at its own prompt, drawn without its marks: the
		// command removed its hooks, and the job's watcher ends it so.
		return InputWait{}, false
	}
	return w, true
}

// atOwnPrompt reports whether line, what an integrated shell inside a
// command shows before the cursor, is its own prompt (as its marks last
// drew it, or drawn with a prompt mark after the command's start): not a
// question of the command's but the shell back without its hooks.
func (r *Runner) atOwnPrompt(pane int, tag, line string) bool {
	s, ok := r.hub.Live(pane)
	if !ok || tag == "" {
		return false
	}
	return lastMarks(s, tag).showsOwnPrompt(line)
}

// inCommand reports whether the pane's integrated shell, in front, is
// inside a command (its last mark is a command's start): its line editor
// then reads for the command (fish's read, bash's read -e, zsh's vared),
// not the next command line.
func (r *Runner) inCommand(ctx context.Context, pane int, tag string, probe shell.Probe) bool {
	s, ok := r.hub.Live(pane)
	if !ok || tag == "" || !probe.ShellGroup || lastMarks(s, tag).last != 'C' {
		return false
	}
	// The shell may be back at its prompt, its end mark still on the
	// way: what tmux read from the pane before this look is in first.
	if err := r.fleet.MarkPane(ctx, pane, func() {}); err != nil {
		return false
	}
	return lastMarks(s, tag).last == 'C'
}

// awaitInput returns when job id's run is done, wait has passed, ctx has
// ended, or the job's program waits for input (unless it is being
// stopped: then only its end or wait counts). It is woken by the pane's
// output: after each quiet spell of InputSettle it looks once whether the
// program reads the terminal, and again after longer spells (1 s, 2 s,
// ... 8 s) while the pane stays quiet.
func (r *Runner) awaitInput(ctx context.Context, run *Run, j *jobs.Job, wait time.Duration) {
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	pane, err := parsePane(j.PaneID)
	s, ok := r.hub.Live(pane)
	if err != nil || !ok {
		select {
		case <-run.done:
		case <-deadline.C:
		case <-ctx.Done():
		}
		return
	}
	look := stoppedTimer()
	defer look.Stop()
	// due is how quiet the pane must be for the next look: InputSettle
	// after any output or input, then each spell longer than the last
	// look (a pane that never printed — a fresh pane's shell starting —
	// counts from now, never as quiet forever).
	spell, due := InputSettle, InputSettle
	quiet := func() time.Duration {
		if at := s.LastActivity(); !at.IsZero() {
			return time.Since(at)
		}
		return 0
	}
	for {
		c := s.ReadRaw(s.End(), 0, nil)
		look.Reset(max(0, due-quiet()))
		select {
		case <-run.done:
			return
		case <-deadline.C:
			return
		case <-ctx.Done():
			return
		case <-c.Changed:
			spell, due = InputSettle, InputSettle
			look.Stop()
		case <-look.C:
			if cur, ok := r.jobs.Get(j.ID); ok && !cur.Done() && !cur.Started.IsZero() && !run.stopping.Load() {
				if _, waiting := r.WaitingForInput(ctx, pane); waiting {
					return
				}
			}
			spell = min(2*spell, 8*time.Second)
			due = quiet() + spell
		}
	}
}
