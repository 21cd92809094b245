package runner

import (
	"bytes"
	"context"
	"errors"
	"time"

	"github.com/tmuxmcp/tmuxmcp/shell"
	"github.com/tmuxmcp/tmuxmcp/stream"
)

// ErrNoFreshPrompt says the shell drew no new prompt after C-c was typed
// to reset its line editor (ResetLine): the line is in a state tmuxmcp
// cannot vouch for, so nothing may be typed into it.
var ErrNoFreshPrompt = errors.New("the shell drew no new prompt after C-c")

// Waits for the prompt C-c brings. A quoted insert pending (bash's C-v)
// takes the first C-c as the character to insert, and draws no prompt:
// after resetFirstWait a second C-c ends that line. The first wait is
// short only for that rare case; the second is generous, for a loaded
// machine and slow prompt hooks.
const (
	resetFirstWait = 1500 * time.Millisecond
	resetWait      = 15 * time.Second
	// resetQuiet is how long a shell that printed something after C-c,
	// but no line feed, must stay quiet to count as having taken the C-c
	// as something else: bash prints ^C and the line feed in one go.
	resetQuiet = 250 * time.Millisecond
)

// fishResetSettle is how long fish's pane must stay quiet after keys that
// ended its line (C-c, Enter) before a command is typed: fish takes a
// moment before it takes typed keys whole (typed at once, it lost them;
// see TestAnUnfinishedCommandIsRefusedWithTheWayOut).
const fishResetSettle = 50 * time.Millisecond

// escapeSettle is how long a program is given to read a lone Escape as
// Escape before the next key is sent (fish_escape_delay_ms is 30 ms by
// default, vim's ttimeoutlen 100; users raise them to a few hundred).
const escapeSettle = 300 * time.Millisecond

// settled returns once nothing was sent to or printed by the pane of s for
// d, or when ctx ends.
func settled(ctx context.Context, s *stream.PaneStream, d time.Duration) {
	for {
		left := d - time.Since(s.LastActivity())
		if left <= 0 {
			return
		}
		t := time.NewTimer(left)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return
		}
	}
}

// ResetLine brings the line editor of sh, a shell at its prompt (from
// Ready), to a known state before a command is typed into it: keys
// tmuxmcp sent since its last prompt (Escape, a Meta or control key) may
// have left a Meta prefix or a quoted insert pending, or vi command mode
// on, none of which the screen shows. C-c discards the line in every
// supported shell and editing mode (bash and zsh, emacs and vi, fish and
// fish_vi_key_bindings) and the shell draws a fresh prompt in insert
// mode. For integrated bash and zsh, ResetLine waits for that prompt's
// mark (sending a second C-c when a pending quoted insert, or bash in vi
// command mode, took the first as something else); for fish and a shell
// without marks, the next Ready waits for the terminal's reaction (and
// learns the prompt of the latter afresh). The caller must hold the
// pane's lock and call Ready again afterwards.
func (r *Runner) ResetLine(ctx context.Context, sh *Shell) error {
	s := sh.Stream
	if s == nil {
		s = r.stream(sh.Pane)
	}
	tag := ""
	if sh.Live {
		tag = sh.Tag
	}
	if sh.Kind == shell.Fish {
		// fish reads a key sequence within fish_escape_delay_ms of its
		// ESC as one key: an Escape just sent and this C-c would be one
		// unbound Alt-C-c, and the Escape's vi binding would run after
		// C-c's, leaving command mode on.
		settled(ctx, s, escapeSettle)
	}
	if tag == "" || sh.Kind == shell.Fish {
		// No marks to wait for (fish on an empty line draws no new
		// prompt, and what is typed while it repaints its mode can be
		// lost): the next Ready waits for the terminal's reaction, and a
		// shell without marks has its prompt learnt afresh.
		if sent := r.typeInterrupt(ctx, sh.Pane, s, false); sent.res != interruptTyped {
			return ErrNoFreshPrompt
		}
		if tag == "" {
			r.LineCleared(sh.Pane)
		}
		return nil
	}
	for _, wait := range []time.Duration{resetFirstWait, resetWait} {
		at := s.End()
		if err := r.fleet.SendKeys(ctx, sh.Pane, "C-c"); err != nil {
			return err
		}
		// bash and zsh take C-c as SIGINT, which flushes input not read
		// yet: nothing may be typed before the fresh prompt.
		if promptAfter(ctx, s, tag, at, wait) {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return ErrNoFreshPrompt
}

// promptAfter waits up to wait for the integrated shell tagged tag to
// draw a fresh prompt after offset at of s, where C-c was typed: its B
// mark on a new line (after a line feed that follows at). A prompt
// redrawn in place, as readline and zle do when the editing mode
// changes, is not one. A shell that reacted without a line feed and then
// went quiet for resetQuiet took the C-c as something else (a pending
// quoted insert inserted it; bash in vi command mode only leaves that
// mode): false, at once, so a second C-c follows without the whole wait.
func promptAfter(ctx context.Context, s *stream.PaneStream, tag string, at int64, wait time.Duration) bool {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	nl := int64(-1)
	for {
		c := s.ReadRaw(at, 64<<10, nil)
		if i := bytes.IndexByte(c.Data, '\n'); nl < 0 && i >= 0 {
			nl = c.From + int64(i)
		}
		if nl >= 0 && lastMarks(s, tag).promptAt > nl {
			return true
		}
		left := wait
		if nl < 0 && c.End > at {
			if left = resetQuiet - time.Since(s.LastAppend()); left <= 0 {
				return false
			}
		}
		t := time.NewTimer(left)
		select {
		case <-c.Changed:
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return false
		}
		t.Stop()
	}
}

// EscapeGap waits, when tmuxmcp sent pane input less than escapeSettle
// ago, for the rest of that time: called before input that follows a lone
// Escape, which a program reads together with a key that comes within its
// escape delay as one Alt key (fish: the Escape's vi binding then runs
// after the key's, and C-c leaves vi command mode on).
func (r *Runner) EscapeGap(ctx context.Context, pane int) {
	s, ok := r.hub.Live(pane)
	if !ok {
		return
	}
	left := escapeSettle - time.Since(s.LastInput())
	if left <= 0 {
		return
	}
	t := time.NewTimer(left)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
