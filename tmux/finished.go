package tmux

import (
	"context"
	"strconv"
	"strings"
	"time"
)

// FinishedOption is the pane option that holds when a finished job's
// window is to close (PaneInfo.FinishedUntil, Unix seconds): the window of
// a fresh pane kept, dead, to show its job's output and end, so a
// restarted tmuxmcp closes it at the same time.
const FinishedOption = "@tmuxmcp-finished-until"

// Finished says how FinishPane leaves a pane whose job ended.
type Finished struct {
	// Name is the window's new name.
	Name string
	// Until is when the window is to close (FinishedOption).
	Until time.Time
	// Exit is the job's exit status, shown in tmux's line as the pane's
	// dead status; nil with Signal "" for an end nobody knows (the pane
	// then ends by SIGHUP).
	Exit *int
	// Signal is the signal that ended the job (SIGTERM), shown instead.
	Signal string
	// Dead says the pane's program ended already (tmux shows its own
	// status): it is only renamed and timed.
	Dead bool
}

// finishScript reprints the screen it is given, then ends as the job
// did: its exit status, or the signal that ended it.
const finishScript = `printf '%s' "$1"; case $2 in [0-9]*) exit "$2";; esac; trap - "$2" 2>/dev/null; kill -s "$2" $$`

// FinishPane leaves pane dead at its job's end for a person to see: the
// screen it shows now stays, tmux's "Pane is dead (status N, …)" line
// under it, its window renamed to f.Name and FinishedOption set. The
// pane's program (the shell, back at its prompt) is replaced by one that
// reprints the screen (a respawned pane's screen starts blank; its
// history stays) and exits with the job's status, so list-panes reports
// that status as the pane's dead status. Two round trips.
func (f *Fleet) FinishPane(ctx context.Context, pane int, fin Finished) error {
	id := PaneName(pane)
	mark := [][]string{
		{"set-option", "-p", "-t", id, FinishedOption, strconv.FormatInt(fin.Until.Unix(), 10)},
		{"rename-window", "-t", id, fin.Name},
	}
	if fin.Dead {
		_, err := f.ExecBatch(ctx, mark...)
		return err
	}
	rows, err := f.Exec(ctx, "capture-pane", "-p", "-e", "-t", id)
	if err != nil {
		return err
	}
	end := "HUP"
	switch {
	case fin.Signal != "":
		end = strings.TrimPrefix(fin.Signal, "SIG")
	case fin.Exit != nil:
		end = strconv.Itoa(*fin.Exit & 0xff)
	}
	_, err = f.ExecBatch(ctx, append(mark,
		[]string{"set-option", "-p", "-t", id, "remain-on-exit", "on"},
		[]string{"respawn-pane", "-k", "-t", id, "--", "/bin/sh", "-c", finishScript, "tmuxmcp", screenText(rows), end})...)
	return err
}

// screenText is captured rows to print again: the blank rows at the
// bottom dropped, the last row without its line end, so the cursor stays
// where the shell's prompt left it.
func screenText(rows []string) string {
	for len(rows) > 0 && strings.TrimSpace(stripSGR(rows[len(rows)-1])) == "" {
		rows = rows[:len(rows)-1]
	}
	return strings.Join(rows, "\n") + "\x1b[0m"
}

// stripSGR is s without its colour and attribute sequences (ESC [ … m).
func stripSGR(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "\x1b[")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		j := strings.IndexByte(s[i:], 'm')
		if j < 0 {
			return b.String()
		}
		s = s[i+j+1:]
	}
}

// unixTime reads Unix seconds; zero for anything else ("").
func unixTime(s string) time.Time {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return time.Time{}
	}
	return time.Unix(n, 0)
}
