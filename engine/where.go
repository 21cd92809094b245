package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// HostName is the host a call names: "" for this machine (local), or a
// --host name.
type HostName string

// UnmarshalJSON takes a host name, or null for none; anything else is an
// error that says what to give.
func (n *HostName) UnmarshalJSON(b []byte) error {
	if string(bytes.TrimSpace(b)) == "null" {
		*n = ""
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return errorf("host: expected a string, got JSON %s: give a host name such as local (list_panes shows each pane's host)", truncate(string(b), 40))
	}
	if s == "" {
		return errorf("host is empty: give a host name such as local, or omit host for this machine")
	}
	*n = HostName(s)
	return nil
}

// On is the part of every request that says where it runs: the host the
// call names.
type On struct {
	// Host is the host named ("": this machine).
	Host HostName `json:"host,omitempty"`
}

// HostName is the host the request names ("": none).
func (o On) HostName() string { return string(o.Host) }

// A Routed request names its host, and may carry ids that belong to one.
type Routed interface {
	HostName() string
}

// idsOf are the ids of req that belong to one host.
func idsOf(req Routed) IDs {
	switch r := req.(type) {
	case *RunShellCommandRequest:
		return IDs{RequestID: deref(r.RequestID)}
	case *AwaitCommandResultRequest:
		return IDs{JobID: r.JobID, Cursor: deref(r.Cursor)}
	case *CancelCommandRequest:
		return IDs{JobID: r.JobID}
	case *WaitForTextRequest:
		return IDs{Cursor: deref(r.Cursor)}
	case *CaptureSinceRequest:
		return IDs{Cursor: deref(r.Cursor)}
	}
	return IDs{}
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// For returns the host req runs on: the one it names (this machine when
// none), checked against the host its jobId, requestId or cursor belongs
// to.
func (hs *Hosts) For(ctx context.Context, req Routed) (*Host, error) {
	return hs.Pick(ctx, req.HostName(), idsOf(req))
}

// ListPanes lists the panes of the host req names, or of every host when
// it names none: a host that cannot answer is named in HostErrors.
func (hs *Hosts) ListPanes(ctx context.Context, c Caller, req *ListPanesRequest) (*ListPanesResult, error) {
	if req.Host != "" || len(hs.remotes) == 0 {
		h, err := hs.For(ctx, req)
		if err != nil {
			return nil, err
		}
		return h.ListPanes(ctx, c, req)
	}
	answers, errs, err := everyHost(ctx, hs, "list_panes", func(h *Host) (*ListPanesResult, error) { return h.ListPanes(ctx, c, req) })
	out := &ListPanesResult{Panes: []PaneSummary{}, HostErrors: errs}
	var notes []string
	for _, a := range answers {
		out.Panes = append(out.Panes, a.Panes...)
		if a.ServerNote != nil {
			notes = append(notes, *a.ServerNote)
		}
	}
	if len(notes) > 0 {
		out.ServerNote = ptr(strings.Join(notes, " "))
	}
	return out, err
}

// ListCommands lists the jobs of the host req names, or of every host
// when it names none, newest first.
func (hs *Hosts) ListCommands(ctx context.Context, c Caller, req *ListCommandsRequest) (*ListCommandsResult, error) {
	if req.Host != "" || len(hs.remotes) == 0 {
		h, err := hs.For(ctx, req)
		if err != nil {
			return nil, err
		}
		return h.ListCommands(ctx, c, req)
	}
	answers, errs, err := everyHost(ctx, hs, "list_commands", func(h *Host) (*ListCommandsResult, error) { return h.ListCommands(ctx, c, req) })
	out := &ListCommandsResult{Commands: []CommandSummary{}, HostErrors: errs}
	for _, a := range answers {
		out.Commands = append(out.Commands, a.Commands...)
	}
	sort.SliceStable(out.Commands, func(i, j int) bool {
		a, b := out.Commands[i], out.Commands[j]
		return a.Created+a.JobID > b.Created+b.JobID
	})
	if limit := listLimit(req); len(out.Commands) > limit {
		out.Commands = out.Commands[:limit]
	}
	return out, err
}

// everyHost asks every host at once and returns the answers (in host
// order) and the hosts that could not answer; an error when none could.
func everyHost[T any](ctx context.Context, hs *Hosts, tool string, ask func(*Host) (T, error)) ([]T, []HostError, error) {
	names := hs.Names()
	answers := make([]T, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				// A bug must cost one host's answer, never the server.
				if p := recover(); p != nil {
					errs[i] = fmt.Errorf("%s failed inside tmuxmcp on this host (a bug: %v)", tool, p)
				}
			}()
			h, err := hs.Pick(ctx, n, IDs{})
			if err == nil {
				answers[i], err = ask(h)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	var got []T
	out := []HostError{}
	var msgs []string
	for i, err := range errs {
		if err != nil {
			out = append(out, HostError{Host: names[i], Error: err.Error()})
			msgs = append(msgs, names[i]+": "+err.Error())
			continue
		}
		got = append(got, answers[i])
	}
	if len(got) == 0 {
		return nil, out, fmt.Errorf("no host answered %s: %s", tool, strings.Join(msgs, "; "))
	}
	return got, out, nil
}
