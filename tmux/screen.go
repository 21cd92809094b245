package tmux

import (
	"context"
	"strconv"
	"strings"
	"time"
)

// The typed reads of a pane's screen and of the server's clients that the
// engine sends through a Fleet, and the popups it shows people.

// Capture says which rows of a pane to read and how.
type Capture struct {
	// Escapes keeps the colour and attribute escape sequences (-e).
	Escapes bool
	// Start and End are the first and last rows, 0 the screen's top row
	// and negative rows the history (nil: the screen's own bounds).
	Start, End *int
}

// args is the capture-pane command for pane.
func (c Capture) args(pane int) []string {
	args := []string{"capture-pane", "-p", "-J", "-t", PaneName(pane)}
	if c.Escapes {
		args = append(args, "-e")
	}
	if c.Start != nil {
		args = append(args, "-S", strconv.Itoa(*c.Start))
	}
	if c.End != nil {
		args = append(args, "-E", strconv.Itoa(*c.End))
	}
	return args
}

// CapturePane reads pane's rows as text, wrapped rows joined. mark runs
// (may be nil) on the reader at the moment the capture is taken, in step
// with the pane's output (ExecPane).
func (f *Fleet) CapturePane(ctx context.Context, pane int, c Capture, mark func()) ([]string, error) {
	return f.ExecPane(ctx, pane, mark, c.args(pane)...)
}

// CaptureAll reads several captures of pane in one round trip, in order.
func (f *Fleet) CaptureAll(ctx context.Context, pane int, cs ...Capture) ([][]string, error) {
	cmds := make([][]string, len(cs))
	for i, c := range cs {
		cmds[i] = c.args(pane)
	}
	return f.ExecBatch(ctx, cmds...)
}

// Client is a client attached to the server: a person's terminal, or a
// control-mode client such as tmuxmcp's own.
type Client struct {
	Name    string // the client's tty, as display-popup -c names it
	Control bool   // a control-mode client, not a person's terminal
	Session string // the id of the session it shows ($1)
	Window  string // the id of the window it shows (@1)
	// Pane is the pane it shows active, the one its keys go to (-1:
	// unknown); Activity is when it last sent a key, to the second.
	Pane     int
	Activity time.Time
}

// clientFormat is the list-clients format parseClients reads.
const clientFormat = "#{client_control_mode}\x1f#{client_name}\x1f#{session_id}\x1f#{window_id}\x1f#{pane_id}\x1f#{client_activity}"

// Clients lists the clients attached to the server.
func (f *Fleet) Clients(ctx context.Context) ([]Client, error) {
	lines, err := f.Exec(ctx, "list-clients", "-F", clientFormat)
	if err != nil {
		return nil, err
	}
	return parseClients(lines), nil
}

// parseClients reads list-clients lines of clientFormat; a malformed line
// is skipped.
func parseClients(lines []string) []Client {
	var out []Client
	for _, l := range lines {
		f := strings.Split(l, "\x1f")
		if len(f) != 6 || f[1] == "" {
			continue
		}
		c := Client{Control: f[0] == "1", Name: f[1], Session: f[2], Window: f[3], Pane: -1}
		if n, err := strconv.Atoi(strings.TrimPrefix(f[4], "%")); err == nil && strings.HasPrefix(f[4], "%") {
			c.Pane = n
		}
		if sec, err := strconv.ParseInt(f[5], 10, 64); err == nil && sec > 0 {
			c.Activity = time.Unix(sec, 0)
		}
		out = append(out, c)
	}
	return out
}

// ServerSocket is the path of the server's socket file, asked over the
// control connection.
func (f *Fleet) ServerSocket(ctx context.Context) (string, error) {
	lines, err := f.Exec(ctx, "display-message", "-p", "#{socket_path}")
	if err != nil || len(lines) == 0 {
		return "", err
	}
	return lines[0], nil
}

// Popup shows command in a popup (90% of the screen, with title) on the
// client named client, and returns when the popup closes. It runs through
// its own short-lived tmux client, never a control connection, whose queue
// a waiting command would stall.
func (t Target) Popup(ctx context.Context, client, title, command string) error {
	_, err := t.Run(ctx, "display-popup", "-c", client, "-E", "-w", "90%", "-h", "90%", "-T", title, command)
	return err
}

// ClosePopup closes the popup on client, if it shows one.
func (t Target) ClosePopup(ctx context.Context, client string) error {
	_, err := t.Run(ctx, "display-popup", "-C", "-c", client)
	return err
}
