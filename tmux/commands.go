package tmux

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The typed commands other rooms send through a Fleet: each builds its
// tmux command (and its -F format, where it has one) here, so that no other
// package writes tmux's command language. Errors are the connection's: a
// command tmux rejects is a *CommandError (a missing pane: "can't find
// pane"); a lost connection is ErrClosed.

// KillPane closes pane and kills its programs (its window closes with its
// last pane).
func (f *Fleet) KillPane(ctx context.Context, pane int) error {
	_, err := f.Exec(ctx, "kill-pane", "-t", PaneName(pane))
	return err
}

// SetPaneTitle sets pane's title (what tmux shows in its status line by
// default). It does not change which pane is selected.
func (f *Fleet) SetPaneTitle(ctx context.Context, pane int, title string) error {
	_, err := f.Exec(ctx, "select-pane", "-t", PaneName(pane), "-T", title)
	return err
}

// SendKeys presses keys in pane, each a tmux key name ("C-c", "Enter",
// "n"): what a person would press, never literal text to type (TypeText
// types text, PressKeys sends keys and text judged by a caller).
func (f *Fleet) SendKeys(ctx context.Context, pane int, keys ...string) error {
	_, err := f.Exec(ctx, append([]string{"send-keys", "-t", PaneName(pane)}, keys...)...)
	return err
}

// SetPaneOption sets pane option name (a user option such as ShellOption
// or PromptOption) on pane.
func (f *Fleet) SetPaneOption(ctx context.Context, pane int, name, value string) error {
	_, err := f.Exec(ctx, "set-option", "-p", "-t", PaneName(pane), name, value)
	return err
}

// UnsetPaneOption removes pane option name from pane.
func (f *Fleet) UnsetPaneOption(ctx context.Context, pane int, name string) error {
	_, err := f.Exec(ctx, "set-option", "-p", "-u", "-t", PaneName(pane), name)
	return err
}

// SignalChannel wakes whatever waits on the wait-for channel (a pane's
// shell that waits to start, StartOption).
func (f *Fleet) SignalChannel(ctx context.Context, channel string) error {
	_, err := f.Exec(ctx, "wait-for", "-S", channel)
	return err
}

// DefaultShell reads what tmux starts in a new pane, both options in one
// pass: its default-shell, and its default-command, which it runs instead
// when set ("" when it is not).
func (f *Fleet) DefaultShell(ctx context.Context) (shell, command string, err error) {
	out, err := f.ExecBatch(ctx, []string{"show-options", "-gv", "default-command"}, []string{"show-options", "-gv", "default-shell"})
	if err != nil {
		return "", "", err
	}
	if len(out) != 2 {
		return "", "", fmt.Errorf("tmux show-options: %d replies to 2 commands", len(out))
	}
	command = strings.TrimSpace(strings.Join(out[0], ""))
	if len(out[1]) > 0 {
		shell = strings.TrimSpace(out[1][0])
	}
	return shell, command, nil
}

// MarkPane runs mark on the reader goroutine of the connection that
// delivers pane's output, the moment tmux answers a round trip sent now
// (see ExecPane): mark sees every byte of the pane that tmux had processed
// before it, and none after. A stream position recorded in mark is exactly
// before whatever is sent to the pane next. (tmux answers for a pane that
// is gone as well: this says nothing of whether pane exists.)
func (f *Fleet) MarkPane(ctx context.Context, pane int, mark func()) error {
	id := PaneName(pane)
	_, err := f.ExecPane(ctx, pane, mark, "display-message", "-p", "-t", id, "#{pane_id}")
	return err
}

// How NewPane places its pane.
const (
	// NewWindow makes the pane as a window of its own.
	NewWindow = ""
	// SplitHorizontal splits the target pane side by side (split-window -h).
	SplitHorizontal = "horizontal"
	// SplitVertical splits the target pane one above the other
	// (split-window -v).
	SplitVertical = "vertical"
)

// NewPaneSpec says what pane NewPane makes. It is made without changing
// what anyone is looking at (-d).
type NewPaneSpec struct {
	// Split is NewWindow, SplitHorizontal or SplitVertical.
	Split string
	// Session is the session a new window goes in (at its first free
	// index), or whose current pane is split when Target is "".
	Session string
	// Target is the pane to split (a pane id such as "%3"); a new window
	// ignores it.
	Target string
	// Name names a new window (tmux names it after its program otherwise).
	Name string
	// CWD is the new pane's working directory ("": tmux's default).
	CWD string
	// Env is set in the pane's environment.
	Env map[string]string
	// Argv is the pane's program and its arguments; none runs tmux's
	// default (its default-command, or its default-shell).
	Argv []string
}

// NewPaneInfo is the pane NewPane made.
type NewPaneInfo struct {
	Pane                         int
	Session, SessionID, WindowID string
}

// UnreadReplyError says tmux did what was asked (the pane exists) but its
// reply could not be read, so which pane it made is not known.
type UnreadReplyError struct {
	Command string
	Reply   string
}

func (e *UnreadReplyError) Error() string {
	return fmt.Sprintf("tmux created a pane but its reply %q was not understood", e.Reply)
}

// newPaneFormat is the -F format of NewPane's reply.
const newPaneFormat = "#{pane_id}\x1f#{session_name}\x1f#{session_id}\x1f#{window_id}"

// NewPane makes a new window or split as spec says and returns which pane
// it is.
func (f *Fleet) NewPane(ctx context.Context, spec NewPaneSpec) (NewPaneInfo, error) {
	args := newPaneArgs(spec)
	lines, err := f.Exec(ctx, args...)
	if err != nil {
		return NewPaneInfo{}, err
	}
	reply := strings.Join(lines, "")
	p, ok := parseNewPane(reply)
	if !ok {
		return NewPaneInfo{}, &UnreadReplyError{Command: args[0], Reply: reply}
	}
	return p, nil
}

// newPaneArgs is the new-window or split-window command for spec.
func newPaneArgs(spec NewPaneSpec) []string {
	args := []string{"new-window"}
	target := "=" + spec.Session + ":"
	switch spec.Split {
	case SplitHorizontal, SplitVertical:
		args = []string{"split-window", map[string]string{SplitHorizontal: "-h", SplitVertical: "-v"}[spec.Split]}
		if spec.Target != "" {
			target = spec.Target
		}
	default:
		if spec.Name != "" {
			args = append(args, "-n", spec.Name)
		}
	}
	args = append(args, "-d", "-P", "-F", newPaneFormat, "-t", target)
	if spec.CWD != "" {
		args = append(args, "-c", spec.CWD)
	}
	for _, k := range slices.Sorted(maps.Keys(spec.Env)) {
		args = append(args, "-e", k+"="+spec.Env[k])
	}
	return append(args, spec.Argv...)
}

// parseNewPane reads a reply printed with newPaneFormat.
func parseNewPane(reply string) (NewPaneInfo, bool) {
	f := strings.Split(reply, "\x1f")
	var n int
	if _, err := fmt.Sscanf(f[0], "%%%d", &n); err != nil || len(f) != 4 {
		return NewPaneInfo{}, false
	}
	return NewPaneInfo{Pane: n, Session: f[1], SessionID: f[2], WindowID: f[3]}, true
}

// KeptDead is how KeepDeadPane changed a pane, for RestoreDeadPane.
type KeptDead struct {
	// Restore is the pane's own remain-on-exit before ("" when it had none
	// and inherited its window's).
	Restore string
	// Closes says the pane would have closed when its program exited
	// (remain-on-exit was off): once its status is read it should go.
	Closes bool
}

// KeepDeadPane makes tmux keep pane when its program exits, dead, with its
// exit status or signal (PaneInfo.DeadStatus, DeadSignal), until
// RestoreDeadPane: remain-on-exit on for the pane alone. One round trip.
func (f *Fleet) KeepDeadPane(ctx context.Context, pane int) (KeptDead, error) {
	id := PaneName(pane)
	out, err := f.ExecBatch(ctx,
		[]string{"show-options", "-p", "-v", "-t", id, "remain-on-exit"},
		[]string{"display-message", "-p", "-t", id, "#{pane_id} #{remain-on-exit}"},
		[]string{"set-option", "-p", "-t", id, "remain-on-exit", "on"})
	if err != nil {
		return KeptDead{}, err
	}
	return parseKeptDead(id, out)
}

// parseKeptDead reads KeepDeadPane's replies for pane id: its own value
// and the one in effect.
func parseKeptDead(id string, out [][]string) (KeptDead, error) {
	if len(out) != 3 || len(out[1]) != 1 {
		return KeptDead{}, fmt.Errorf("%s: unexpected reply to remain-on-exit: %q", id, out)
	}
	pane, effective, _ := strings.Cut(out[1][0], " ")
	if pane != id {
		return KeptDead{}, fmt.Errorf("%s: %w", id, ErrNoPane)
	}
	var kd KeptDead
	if len(out[0]) > 0 {
		kd.Restore = strings.TrimSpace(out[0][0])
	}
	kd.Closes = effective == "off"
	return kd, nil
}

// RestoreDeadPane puts back what KeepDeadPane changed on pane.
func (f *Fleet) RestoreDeadPane(ctx context.Context, pane int, kd KeptDead) error {
	if kd.Restore == "" {
		return f.UnsetPaneOption(ctx, pane, "remain-on-exit")
	}
	return f.SetPaneOption(ctx, pane, "remain-on-exit", kd.Restore)
}
