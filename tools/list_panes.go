package tools

import (
	"context"
	"errors"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

type listPanesIn struct {
	Session *string `json:"session,omitempty"`
}

type paneOut struct {
	PaneID         string  `json:"paneId"`
	Host           string  `json:"host"`
	Session        string  `json:"session"`
	SessionID      string  `json:"sessionId"`
	WindowID       string  `json:"windowId"`
	WindowIndex    int     `json:"windowIndex"`
	Window         string  `json:"window"`
	Title          string  `json:"title"`
	CurrentCommand string  `json:"currentCommand"`
	PID            int     `json:"pid"`
	CWD            string  `json:"cwd"`
	Width          int     `json:"width"`
	Height         int     `json:"height"`
	Active         bool    `json:"active"`
	Dead           bool    `json:"dead"`
	DeadStatus     *int    `json:"deadStatus"`
	Attended       bool    `json:"attended"`
	InCopyMode     bool    `json:"inCopyMode"`
	Cursor         *string `json:"cursor"`
}

type listPanesOut struct {
	Panes      []paneOut   `json:"panes"`
	HostErrors []hostError `json:"hostErrors"`
}

func (h *Handlers) listPanesTool() Tool {
	in := object(map[string]*jsonschema.Schema{
		"session": {Type: "string", MinLength: ptr(1), Description: "Only panes of this session (name). Default: every session of the server."},
	})
	pane := outputObject(map[string]*jsonschema.Schema{
		"paneId":         paneID("Stable pane id: pass it to every other tool."),
		"host":           str("The host the pane is on: local, or a --host name. Pass it as host with the paneId to every other tool."),
		"session":        str("Session name."),
		"sessionId":      str("Session id, e.g. $0."),
		"windowId":       str("Window id, e.g. @1."),
		"windowIndex":    count("Window index in its session."),
		"window":         str("Window name."),
		"title":          str("Pane title (set by the program)."),
		"currentCommand": str("Foreground program, e.g. bash, python3, vim."),
		"pid":            count("Process id of the pane's first program (usually its shell)."),
		"cwd":            str("Current directory of the pane's foreground program."),
		"width":          count("Columns."),
		"height":         count("Rows."),
		"active":         boolean("The active pane of its window."),
		"dead":           boolean("The program exited; the pane is kept by remain-on-exit."),
		"deadStatus":     nullable(integer("Exit status of a dead pane's program, or null.", -1, 255)),
		"attended":       boolean("A person's tmux client is showing this pane's window now: type with care."),
		"inCopyMode":     boolean("The pane is in copy mode; input tools refuse it."),
		"cursor":         nullable(cursorSchema("The pane's current stream position (wait_for_text from it), or null if it is not being recorded.")),
	})
	out := outputObject(map[string]*jsonschema.Schema{
		"panes":      {Type: "array", Items: pane, Description: "Every pane, in session, window and pane order (host by host, local first)."},
		"hostErrors": hostErrorsSchema(),
	})
	tool := &mcp.Tool{
		Name:         "list_panes",
		Title:        "List panes",
		Description:  "List every tmux pane, on this machine and on each --host (host tells where; pass it with the paneId to the other tools): paneId, session, window, program, directory, size, dead, attended (a person is watching), and a cursor to wait from. Call it first to find a paneId.",
		InputSchema:  in,
		OutputSchema: out,
		Annotations:  &mcp.ToolAnnotations{Title: "List panes", ReadOnlyHint: true, DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)},
	}
	return typed(h, tool, h.listPanes)
}

func (in *listPanesIn) check() error {
	if in.Session != nil && *in.Session == "" {
		return errorf("session is empty: give a session name, or omit session to list every pane")
	}
	return nil
}

func (h *Handlers) listPanes(ctx context.Context, _ *mcp.CallToolRequest, in *listPanesIn) (*listPanesOut, error) {
	if err := h.connected(); err != nil {
		return nil, err
	}
	panes, err := h.fleet.ListPanes(ctx)
	if errors.Is(err, tmux.ErrClosed) {
		return nil, lostError()
	}
	if err != nil {
		return nil, err
	}
	watched := map[string]bool{} // session id + window id a person's client shows
	if lines, err := h.fleet.Exec(ctx, "list-clients", "-F", "#{client_control_mode}\x1f#{session_id}\x1f#{window_id}"); err == nil {
		for _, l := range lines {
			f := strings.Split(l, "\x1f")
			if len(f) == 3 && f[0] != "1" {
				watched[f[1]+f[2]] = true
			}
		}
	}
	out := &listPanesOut{Panes: []paneOut{}, HostErrors: []hostError{}}
	found := false
	for _, p := range panes {
		if in.Session != nil && p.SessionName != *in.Session {
			continue
		}
		found = true
		po := paneOut{
			PaneID: paneName(p.ID), Host: h.opts.Host, Session: p.SessionName, SessionID: p.SessionID, WindowID: p.WindowID, WindowIndex: p.WindowIndex,
			Window: p.WindowName, Title: p.Title, CurrentCommand: programName(p.CurrentCommand, p.Program), PID: p.PID, CWD: p.CWD, Width: p.Width,
			Height: p.Height, Active: p.Active, Dead: p.Dead, DeadStatus: p.DeadStatus, InCopyMode: p.InMode,
			Attended: p.WindowActive && watched[p.SessionID+p.WindowID],
		}
		if s, ok := h.hub.Live(p.ID); ok {
			po.Cursor = cursorText(s, s.End())
		}
		out.Panes = append(out.Panes, po)
	}
	if in.Session != nil && !found {
		return nil, errorf("session %q has no panes on %s (no such session?): omit session to list every pane", *in.Session, h.fleet.Target())
	}
	return out, nil
}

// programName is the pane's foreground program, naming the program a
// wrapped argv pane runs instead of its wrapper shell.
func programName(current, created string) string {
	if created != "" && current == "sh" {
		return created
	}
	return current
}
