package engine

import (
	"context"
	"errors"
	"strings"

	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// ListPanesRequest limits a listing to one session.
type ListPanesRequest struct {
	On
	Session *string `json:"session,omitempty"`
}

// PaneSummary is one pane in a listing.
type PaneSummary struct {
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
	// Sandbox is the sandbox the pane runs in: read-only or workspace, or
	// unsandboxed (it existed before tmuxmcp, the server runs with
	// --sandbox off, or a person approved an escalated command in it).
	Sandbox string `json:"sandbox"`
	// Ingest is how tmuxmcp reads the pane's output: pipe (raw, through
	// pipe-pane) or control (%output: the pane is piped by someone else,
	// is on another machine, or --ingest control).
	Ingest string `json:"ingest"`
	// Person says a person has the pane, and how: took (the hand-off key)
	// or asked (ask_person); null while the agent may type into it.
	Person *string `json:"person"`
}

// ListPanesResult lists a host's panes.
type ListPanesResult struct {
	Panes      []PaneSummary `json:"panes"`
	HostErrors []HostError   `json:"hostErrors"`
	// ServerNote says what happened to the hosts' tmux servers since the
	// last result: one ended (and why, when tmuxmcp can tell) and tmuxmcp
	// started it again; nil otherwise.
	ServerNote *string `json:"serverNote"`
}

// Check checks the arguments, naming the field, the value and the fix.
func (in *ListPanesRequest) Check() error {
	if in.Session != nil && *in.Session == "" {
		return errorf("session is empty: give a session name, or omit session to list every pane")
	}
	return nil
}

// lostDuring reports whether err says the server (or every session of
// its, so the server with them) went during the call: the connection
// closed, tmux found no session left to answer for, or the fleet has no
// connection left.
func (h *Host) lostDuring(err error) bool {
	return err != nil && (errors.Is(err, tmux.ErrClosed) || strings.Contains(err.Error(), "no current target") || h.fleet.Err() != nil)
}

// ListPanes lists the host's panes with what runs in them and whether a
// person watches.
func (h *Host) ListPanes(ctx context.Context, c Caller, in *ListPanesRequest) (*ListPanesResult, error) {
	if err := h.connected(); err != nil {
		return nil, err
	}
	seen := h.endsNow()
	panes, err := h.fleet.ListPanes(ctx)
	for try := 0; h.lostDuring(err); try++ {
		// The server went during the call: once its end is counted it is
		// started again (and listed), or the error says why not.
		if try == maxQuick {
			return nil, lostError()
		}
		if err := h.afterLoss(ctx, seen); err != nil {
			return nil, err
		}
		seen = h.endsNow()
		panes, err = h.fleet.ListPanes(ctx)
	}
	if err != nil {
		return nil, err
	}
	watched := map[string]bool{} // session id + window id a person's client shows
	if clients, err := h.fleet.Clients(ctx); err == nil {
		for _, c := range clients {
			if !c.Control {
				watched[c.Session+c.Window] = true
			}
		}
	}
	out := &ListPanesResult{Panes: []PaneSummary{}, HostErrors: []HostError{}}
	found := false
	for _, p := range panes {
		if in.Session != nil && p.SessionName != *in.Session {
			continue
		}
		found = true
		po := PaneSummary{
			PaneID: paneName(p.ID), Host: h.opts.Host, Session: p.SessionName, SessionID: p.SessionID, WindowID: p.WindowID, WindowIndex: p.WindowIndex,
			Window: p.WindowName, Title: p.Title, CurrentCommand: programName(p.CurrentCommand, p.Program), PID: p.PID, CWD: p.CWD, Width: p.Width,
			Height: p.Height, Active: p.Active, Dead: p.Dead, DeadStatus: p.DeadStatus, InCopyMode: p.InMode,
			Attended: p.WindowActive && watched[p.SessionID+p.WindowID], Sandbox: h.paneSandboxMode(p.PID),
			Ingest: h.fleet.Ingest(p.ID),
		}
		if p.Person != "" {
			po.Person = &p.Person
		}
		if s, ok := h.hub.Live(p.ID); ok {
			po.Cursor = cursorText(s, s.End())
		}
		out.Panes = append(out.Panes, po)
	}
	if in.Session != nil && !found {
		return nil, errorf("session %q has no panes on %s (no such session?): omit session to list every pane", *in.Session, h.fleet.Target())
	}
	out.ServerNote = h.takeServerNote()
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
