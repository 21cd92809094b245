package tmux

import (
	"context"
	"fmt"
	"slices"
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
	// Mark is added to the window's name: how the job ended ("✓").
	Mark string
	// Until is when the window is to close (FinishedOption).
	Until time.Time
	// Exit is the job's exit status, shown in tmux's line as the pane's
	// dead status; nil with Signal "" for an end nobody knows (the pane
	// then ends by SIGHUP).
	Exit *int
	// Signal is the signal that ended the job (SIGTERM), shown instead.
	Signal string
	// Close are earlier finished panes to close in the same pass, each
	// only if it still is that finished pane (its FinishedOption is the
	// time given).
	Close map[int]time.Time
}

// finishScript reprints the screen it is given, then ends as the job
// did: its exit status, or the signal that ended it.
const finishScript = `printf '%s' "$1"; case $2 in [0-9]*) exit "$2";; esac; trap - "$2" 2>/dev/null; kill -s "$2" $$`

// FinishPane leaves pane dead at its job's end for a person to see: the
// screen it shows now stays, tmux's "Pane is dead (status N, …)" line
// under it, fin.Mark added to its window's name and FinishedOption set.
// The pane's program (the shell, back at its prompt) is replaced by one
// that reprints the screen (a respawned pane's screen starts blank; its
// history stays) and exits with the job's status, so list-panes reports
// that status as the pane's dead status; a pane whose program ended
// already keeps tmux's own. Two round trips, the panes of fin.Close closed
// in the second.
func (f *Fleet) FinishPane(ctx context.Context, pane int, fin Finished) error {
	id := PaneName(pane)
	look := [][]string{
		{"display-message", "-p", "-t", id, "#{pane_dead}#{window_name}"},
		{"capture-pane", "-p", "-e", "-t", id},
	}
	if len(fin.Close) > 0 {
		look = append(look, []string{"list-panes", "-a", "-F", finishedFormat})
	}
	out, err := f.ExecBatch(ctx, look...)
	if err != nil {
		return err
	}
	if len(out) != len(look) || len(out[0]) != 1 || len(out[0][0]) < 1 {
		return fmt.Errorf("%s: unexpected reply to a look at its window: %q", id, out)
	}
	dead, name := out[0][0][0] == '1', out[0][0][1:]
	cmds := [][]string{
		{"set-option", "-p", "-t", id, FinishedOption, strconv.FormatInt(fin.Until.Unix(), 10)},
		{"rename-window", "-t", id, strings.TrimSpace(name + " " + fin.Mark)},
	}
	if !dead {
		end := "HUP"
		switch {
		case fin.Signal != "":
			end = strings.TrimPrefix(fin.Signal, "SIG")
		case fin.Exit != nil:
			end = strconv.Itoa(*fin.Exit & 0xff)
		}
		cmds = append(cmds,
			[]string{"set-option", "-p", "-t", id, "remain-on-exit", "on"},
			[]string{"respawn-pane", "-k", "-t", id, "--", "/bin/sh", "-c", finishScript, "tmuxmcp", screenText(out[1]), end})
	}
	if len(fin.Close) > 0 {
		for _, p := range stillFinished(out[2], fin.Close) {
			cmds = append(cmds, []string{"kill-pane", "-t", PaneName(p)})
		}
	}
	_, err = f.ExecBatch(ctx, cmds...)
	return err
}

// finishedFormat lists each pane's id, whether it is dead and its
// FinishedOption, for stillFinished.
const finishedFormat = "#{pane_id} #{pane_dead} #{" + FinishedOption + "}"

// stillFinished are the panes of want that lines (finishedFormat) list
// dead with the FinishedOption want gives them: the same finished panes,
// never a later pane with the same id on a server started again.
func stillFinished(lines []string, want map[int]time.Time) []int {
	var out []int
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) != 3 || f[1] != "1" {
			continue
		}
		n, err := strconv.Atoi(strings.TrimPrefix(f[0], "%"))
		if u, ok := want[n]; err == nil && ok && f[2] == strconv.FormatInt(u.Unix(), 10) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// CloseFinished closes pane if it still is the finished pane that was to
// close at until (dead, its FinishedOption that time). Two round trips.
func (f *Fleet) CloseFinished(ctx context.Context, pane int, until time.Time) error {
	lines, err := f.Exec(ctx, "list-panes", "-t", PaneName(pane), "-F", finishedFormat)
	if err != nil {
		return err
	}
	for _, p := range stillFinished(lines, map[int]time.Time{pane: until}) {
		if p == pane {
			return f.KillPane(ctx, pane)
		}
	}
	return nil
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
