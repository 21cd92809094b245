package input

import "strings"

// KeyCommands returns the tmux commands that send keys to the pane target,
// in order: text literally (send-keys -l), keys by their normalised name,
// so tmux sends exactly what was judged and never reads a spelling of its
// own.
func KeyCommands(target string, keys []Key) [][]string {
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

// TextCommands returns the tmux commands that type text literally into the
// pane target — as one bracketed paste through the tmux buffer buf when it
// holds a line break, so a shell takes it whole — then press Enter when
// submit.
func TextCommands(target, text, buf string, submit bool) [][]string {
	var cmds [][]string
	switch {
	case text == "":
	case strings.ContainsAny(text, "\n\r"):
		cmds = append(cmds,
			[]string{"set-buffer", "-b", buf, "--", text},
			[]string{"paste-buffer", "-d", "-p", "-b", buf, "-t", target})
	default:
		cmds = append(cmds, []string{"send-keys", "-t", target, "-l", "--", text})
	}
	if submit {
		cmds = append(cmds, []string{"send-keys", "-t", target, "Enter"})
	}
	return cmds
}
