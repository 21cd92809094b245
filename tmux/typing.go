package tmux

import (
	"context"
	"strings"
)

// What other rooms type into a pane's keyboard: keys pressed by name, text
// typed literally (send-keys -l) or pasted whole (set-buffer and
// paste-buffer -p). Each call sends its commands on one line, so tmux runs
// them in one pass of its loop with nothing in between.

// Keystroke is one thing PressKeys sends a pane: a key pressed by its tmux
// name, or text typed literally.
type Keystroke struct {
	// Name is the tmux key name pressed ("Enter", "C-c", "M-x", "S-Left");
	// "" types Text.
	Name string
	// Text is typed literally, never read as a key name, when Name is "".
	Text string
}

// PressKeys sends keys to pane in order, all in one round trip: runs of
// named keys in one send-keys each, text literally (send-keys -l), so tmux
// sends exactly what the caller judged and never reads a spelling of its
// own. No keys is an error, as for ExecBatch.
func (f *Fleet) PressKeys(ctx context.Context, pane int, keys []Keystroke) error {
	_, err := f.ExecBatch(ctx, keyCommands(PaneName(pane), keys)...)
	return err
}

// TypeText types text literally into pane — as one bracketed paste through
// the tmux buffer named buffer when it holds a line break, so a shell takes
// it whole (the buffer is deleted by the paste) — then presses Enter when
// submit, all in one round trip. Neither text nor submit is an error, as
// for ExecBatch.
func (f *Fleet) TypeText(ctx context.Context, pane int, text, buffer string, submit bool) error {
	_, err := f.ExecBatch(ctx, textCommands(PaneName(pane), text, buffer, submit)...)
	return err
}

// keyCommands is the commands PressKeys sends to the pane target.
func keyCommands(target string, keys []Keystroke) [][]string {
	var cmds [][]string
	var names []string
	flush := func() {
		if len(names) > 0 {
			cmds = append(cmds, append([]string{"send-keys", "-t", target, "--"}, names...))
			names = nil
		}
	}
	for _, k := range keys {
		if k.Name == "" {
			flush()
			cmds = append(cmds, []string{"send-keys", "-t", target, "-l", "--", k.Text})
			continue
		}
		names = append(names, k.Name)
	}
	flush()
	return cmds
}

// textCommands is the commands TypeText sends to the pane target.
func textCommands(target, text, buffer string, submit bool) [][]string {
	var cmds [][]string
	switch {
	case text == "":
	case strings.ContainsAny(text, "\n\r"):
		cmds = append(cmds,
			[]string{"set-buffer", "-b", buffer, "--", text},
			[]string{"paste-buffer", "-d", "-p", "-b", buffer, "-t", target})
	default:
		cmds = append(cmds, []string{"send-keys", "-t", target, "-l", "--", text})
	}
	if submit {
		cmds = append(cmds, []string{"send-keys", "-t", target, "Enter"})
	}
	return cmds
}
