package tmux

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// The typed questions and orders a Target answers through a short-lived
// tmux client (Run), for callers without a control connection: the doctor
// looking at a server it may not have started, a throwaway server's
// cleanup. A failed command's error is Run's: it names the server, the
// command and what tmux said.

// SessionNames lists the names of the server's sessions. With no server
// running it fails.
func (t Target) SessionNames(ctx context.Context) ([]string, error) {
	out, err := t.Run(ctx, "list-sessions", "-F", "#{session_name}")
	if err != nil {
		return nil, err
	}
	return listing(out), nil
}

// PaneIDs lists the server's panes, of every session, by number (pane %3
// is 3).
func (t Target) PaneIDs(ctx context.Context) ([]int, error) {
	out, err := t.Run(ctx, "list-panes", "-a", "-F", "#{pane_id}")
	if err != nil {
		return nil, err
	}
	return parsePaneIDs(out)
}

// ServerSocket is the path of the server's socket file.
func (t Target) ServerSocket(ctx context.Context) (string, error) {
	return t.Run(ctx, "display-message", "-p", "#{socket_path}")
}

// DefaultShellOption is the server's default-shell option: the program a
// new pane runs unless default-command is set (Fleet.DefaultShell reads
// both over a control connection).
func (t Target) DefaultShellOption(ctx context.Context) (string, error) {
	out, err := t.Run(ctx, "show-options", "-gv", "default-shell")
	return strings.TrimSpace(out), err
}

// KillServer stops the server, killing every pane's programs.
func (t Target) KillServer(ctx context.Context) error {
	_, err := t.Run(ctx, "kill-server")
	return err
}

// listing is the lines of a -F listing, without empty ones.
func listing(out string) []string {
	var lines []string
	for l := range strings.SplitSeq(out, "\n") {
		if l = strings.TrimRight(l, "\r"); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// parsePaneIDs reads a listing of pane ids (%3), one per line.
func parsePaneIDs(out string) ([]int, error) {
	var ids []int
	for _, l := range listing(out) {
		digits, ok := strings.CutPrefix(l, "%")
		n, err := strconv.Atoi(digits)
		if !ok || err != nil || digits == "" || strings.Trim(digits, "0123456789") != "" {
			return nil, fmt.Errorf("tmux listed %q as a pane id", l)
		}
		ids = append(ids, n)
	}
	return ids, nil
}
