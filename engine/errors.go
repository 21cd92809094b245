package engine

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tmuxmcp/tmuxmcp/runner"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// runnerError turns what the runner said about pane into a tool error: a
// refusal names the pane's state and the next step; anything else is a
// pane error.
func (h *Host) runnerError(field string, pane int, err error) error {
	if err == nil {
		return nil
	}
	var ref *runner.Refusal
	if !errors.As(err, &ref) {
		return h.paneError(field, pane, err)
	}
	id := paneName(pane)
	if ref.State == runner.HalfTyped && h.line(pane).Text != "" {
		ref.TypedByUs = true // type_text without submit
	}
	next := ""
	switch ref.State {
	case runner.Dead:
		next = "Omit paneId to run in a fresh pane, or create_pane for a new shell"
	case runner.CopyMode:
		next = "Wait for them to leave it (capture_pane shows inCopyMode), or omit paneId to run in a fresh pane"
	case runner.FullScreen:
		next = "Use type_text/send_keys with that program (quit it first to get the shell back), or omit paneId to run in a fresh pane"
		if ref.StaleAltScreen() {
			next = "Leave it: type_text \"tput rmcup\" with submit true (or \"reset\"), then run the command again; or omit paneId to run in a fresh pane"
		}
	case runner.InputOff:
		next = "Someone must enable it with select-pane -e; or omit paneId to run in a fresh pane"
	case runner.Person:
		next = personNext
	case runner.RunningJob:
		next = fmt.Sprintf("await_command_result(%q) or cancel_command(%q) first, or omit paneId to run in a fresh pane", ref.Job.ID, ref.Job.ID)
	case runner.Busy:
		next = "Wait for it to finish (wait_for_text), interrupt it (send_keys [\"C-c\"]), or omit paneId to run in a fresh pane; for a REPL or other program use type_text"
	case runner.Builtin:
		next = "It may be waiting for input (capture_pane shows it): answer with type_text, or interrupt it with send_keys [\"C-c\"]; or omit paneId to run in a fresh pane"
	case runner.Starting, runner.Drawing:
		next = "Call again (a larger waitMs waits longer), or look at it with capture_pane; `tmuxmcp doctor` checks the shell's startup files"
	case runner.Continuation:
		next = "send_keys [\"C-c\"] discards the unfinished command; then run again in the same pane"
	case runner.Correction:
		next = "send_keys [\"a\"] aborts that command line (zsh's [nyae]: a = abort); then run again in the same pane"
	case runner.HalfTyped:
		unsure := h.line(pane).Unsure
		switch {
		case ref.TypedByUs && unsure == "":
			next = clearLine + "; then run again in the same pane. Or send_keys [\"Enter\"] runs it as it stands, if you meant to"
		case ref.TypedByUs:
			next = clearLine + "; then run again in the same pane"
		case unsure != "":
			next = fmt.Sprintf("The keys sent with send_keys (%q) may have put it there: %s; then run again in the same pane", unsure, clearLine)
		default:
			next = "Wait for them, or omit paneId to run in a fresh pane; if nobody is typing there, " + clearLine + " and you can run again in the same pane"
		}
	case runner.Unconfirmed:
		next = fmt.Sprintf("If nobody is typing in %s, %s, and tmuxmcp learns the prompt from it; then run again in the same pane. Or omit paneId to run in a fresh pane", id, clearLine)
	case runner.NotAShell:
		next = h.notAShellNext(ref.Program)
	case runner.Exited:
		next = "Omit paneId to run in a fresh pane; if the shell exits at once there too, check tmux's default-shell and the shell's startup files (`tmuxmcp doctor`)"
	default:
		next = "Look at it with capture_pane, or omit paneId to run in a fresh pane"
	}
	return errorf("%s: %s; this call typed nothing. %s", field, ref.Reason(), next)
}

// clearLine is the way out of a half-typed line that works in every line
// editor and mode: C-u in vi command mode kills only up to the cursor,
// and a pending Escape or quoted insert would take it as something else.
const clearLine = "send_keys [\"C-c\"] discards the line in every editing mode (the shell draws a fresh prompt)"

// createError turns tmux's refusal to create a pane into a tool error.
func (h *Host) createError(err error, session string, target *string) error {
	if se := asSandboxError(err); se != nil {
		return se
	}
	var ce *tmux.CommandError
	if errors.As(err, &ce) {
		switch {
		case strings.Contains(ce.Message, "can't find session"):
			return errorf("session %q does not exist on %s: omit session to use %q, or pick one from list_panes", session, h.fleet.Target(), h.opts.Session)
		case strings.Contains(ce.Message, "can't find pane") && target != nil:
			return errorf("targetPaneId %q: no such pane. Call list_panes for the panes that exist", *target)
		case strings.Contains(ce.Message, "no space"):
			return errorf("the target pane is too small to split: use split: window instead")
		}
		return errorf("tmux refused to create the pane: %s", ce.Message)
	}
	if errors.Is(err, tmux.ErrClosed) {
		return lostError()
	}
	return err
}

// names are values of a string vocabulary as strings.
func names[T ~string](values []T) []string {
	s := make([]string, len(values))
	for i, v := range values {
		s[i] = string(v)
	}
	return s
}

// personNext is what an agent can do while a person has a pane.
const personNext = "Wait until they give it back: ask_person with this paneId waits for that (and says what was printed meanwhile); wait_for_text and capture_pane work as usual. Or omit paneId to run in a fresh pane"

// personSays is why pane is a person's, after its name: how says how they
// got it (tmux.PersonTook, tmux.PersonAsked).
func personSays(pane int, how string) string {
	return strings.TrimPrefix(runner.PersonReason(paneName(pane), how), "pane "+paneName(pane)+" ")
}
