package tmux

import (
	"context"
	"fmt"
	"strings"
)

// HandOffKey is the key, in tmux's prefix table, with which a person
// takes a pane from the agent and gives it back (BindHandOff).
const HandOffKey = "T"

// HandOffBinding is the tmux command that binds HandOffKey: it toggles
// PersonOption on the current pane and says which way it went. A user's
// own tmux.conf can carry it as it is (`tmuxmcp doctor` prints it).
func HandOffBinding() []string {
	took := fmt.Sprintf("set-option -p %s %s ; display-message 'tmuxmcp: this pane is yours, the agent types nothing into it; prefix %s gives it back'", PersonOption, PersonTook, HandOffKey)
	back := fmt.Sprintf("set-option -p -u %s ; display-message 'tmuxmcp: pane given back to the agent'", PersonOption)
	return []string{"bind-key", "-T", "prefix", HandOffKey, "if-shell", "-F", "#{" + PersonOption + "}", back, took}
}

// HandOffConfLine is HandOffBinding as a line of tmux.conf.
func HandOffConfLine() string {
	b := HandOffBinding()
	return strings.Join(b[:6], " ") + " '" + b[6] + "' \"" + b[7] + "\" \"" + b[8] + "\""
}

// handOffStatus is the status-line segment that shows a person has the
// active pane and how to give it back.
var handOffStatus = fmt.Sprintf("#{?#{%s},#[reverse] #{?#{==:#{%s},%s},an agent asked for you here,pane is yours} · prefix %s gives it back #[default] ,}", PersonOption, PersonOption, PersonAsked, HandOffKey)

// BindHandOff binds HandOffKey on the server and shows the hand-off state
// of the active pane in the status line, before what status-right showed:
// for a server tmuxmcp started itself (a user's own server keeps its
// bindings; doctor shows the line to add).
func (f *Fleet) BindHandOff(ctx context.Context) error {
	if _, err := f.Exec(ctx, HandOffBinding()...); err != nil {
		return fmt.Errorf("bind the hand-off key: %w", err)
	}
	lines, err := f.Exec(ctx, "show-options", "-g", "-v", "status-right")
	if err != nil {
		return fmt.Errorf("read status-right: %w", err)
	}
	old := strings.Join(lines, "")
	if strings.Contains(old, PersonOption) {
		return nil
	}
	if _, err := f.Exec(ctx, "set-option", "-g", "status-right", handOffStatus+old); err != nil {
		return fmt.Errorf("show the hand-off in the status line: %w", err)
	}
	_, err = f.Exec(ctx, "set-option", "-g", "status-right-length", "120")
	return err
}

// SetPerson sets pane's PersonOption to value ("" clears it) and lists the
// panes again before it returns, so PanesListed has carried the change.
func (f *Fleet) SetPerson(ctx context.Context, pane int, value string) error {
	var err error
	if value == "" {
		err = f.UnsetPaneOption(ctx, pane, PersonOption)
	} else {
		err = f.SetPaneOption(ctx, pane, PersonOption, value)
	}
	if err != nil {
		return err
	}
	_, err = f.ListPanes(ctx)
	return err
}

// ShowMessage shows text for seconds in the status line of every person's
// client that shows pane's session, and reports how many it reached.
func (f *Fleet) ShowMessage(ctx context.Context, pane int, text string, seconds int) (int, error) {
	p, err := f.Pane(ctx, pane)
	if err != nil {
		return 0, err
	}
	clients, err := f.Clients(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, c := range clients {
		if c.Control || c.Session != p.SessionID {
			continue
		}
		if _, err := f.Exec(ctx, "display-message", "-c", c.Name, "-d", fmt.Sprint(seconds*1000), Literal(text)); err == nil {
			n++
		}
	}
	return n, nil
}

// Literal is text as a tmux format that shows it as it is: every # is
// doubled, so no #{...} in it is expanded (a message cannot show other
// panes' contents or run #(commands)), and control characters are dropped.
func Literal(text string) string {
	text = strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return -1
		}
		return r
	}, text)
	return strings.ReplaceAll(text, "#", "##")
}
