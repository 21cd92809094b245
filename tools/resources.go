package tools

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/engine"
)

// paneTemplate is the resource template of panes: {n} is the number of %n
// ("%" is not URI-safe).
const paneTemplate = "tmux://pane/{n}"

// updateEvery coalesces resource-updated notifications per pane.
const updateEvery = 100 * time.Millisecond

// paneURI is the resource URI of pane n.
func paneURI(n int) string { return "tmux://pane/" + strconv.Itoa(n) }

// paneList keeps resources/list in step with the live panes: the fleet's
// listings are handed over (latest wins) and applied by one goroutine, so
// a client slow to read its list_changed notifications never holds up the
// tmux reader.
type paneList struct {
	mu      sync.Mutex
	latest  []engine.PaneEntry
	pending chan struct{}     // signalled when latest changed
	listed  map[string]string // uri -> title, as the server lists them
}

// panesListed hands the newest pane listing to the resource list.
func (s *Server) panesListed(panes []engine.PaneEntry) {
	s.list.mu.Lock()
	s.list.latest = panes
	s.list.mu.Unlock()
	select {
	case s.list.pending <- struct{}{}:
	default:
	}
}

// startPaneList lists the panes known now on s, before any session
// connects (a list_changed notification must not reach a client before
// its initialize answer), then applies every later listing until Close.
func (s *Server) startPaneList(srv *mcp.Server) {
	listed := map[string]string{} // uri -> title, as s lists them
	apply := func() {
		s.list.mu.Lock()
		panes := s.list.latest
		s.list.mu.Unlock()
		applyPaneList(srv, listed, panes, s.readPane)
	}
	s.hosts.Local().OnPanes(s.panesListed) // resources are the local host's panes
	apply()
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.closing:
		return
	default:
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			select {
			case <-s.list.pending:
				apply()
			case <-s.closing:
				return
			}
		}
	}()
}

// applyPaneList adds to s the live panes not in listed yet (or whose place
// changed) and removes the gone ones, keeping listed in step.
func applyPaneList(s *mcp.Server, listed map[string]string, panes []engine.PaneEntry, read mcp.ResourceHandler) {
	live := make(map[string]*mcp.Resource, len(panes))
	for _, p := range panes {
		if p.Dead {
			continue
		}
		uri := paneURI(p.Pane)
		live[uri] = &mcp.Resource{
			URI: uri, Name: paneName(p.Pane), MIMEType: "text/plain",
			Title:       p.Place,
			Description: "What pane " + paneName(p.Pane) + " shows now, as plain text; subscribe for updates when it prints.",
		}
	}
	var gone []string
	for uri := range listed {
		if live[uri] == nil {
			gone = append(gone, uri)
			delete(listed, uri)
		}
	}
	if len(gone) > 0 {
		s.RemoveResources(gone...)
	}
	for uri, r := range live {
		if listed[uri] != r.Title {
			listed[uri] = r.Title
			s.AddResource(r, read)
		}
	}
}

// paneFromURI parses tmux://pane/N.
func paneFromURI(uri string) (int, bool) {
	s, ok := strings.CutPrefix(uri, "tmux://pane/")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 0 && strconv.Itoa(n) == s
}

// resourceWatch is a watcher that pushes updates for a subscribed pane,
// and the sessions subscribed to it.
type resourceWatch struct {
	sessions map[*mcp.ServerSession]bool
	stop     context.CancelFunc
}

// subscriptions tracks the watchers of subscribed panes, one per pane,
// and the sessions subscribed to each: a session's unsubscribe or end
// takes away only its own subscriptions.
type subscriptions struct {
	mu      sync.Mutex
	watches map[string]*resourceWatch
	ending  map[*mcp.ServerSession]bool // sessions whose end is watched for
}

// dropSession removes ss from every watch, stopping those it was the last
// subscriber of.
func (subs *subscriptions) dropSession(ss *mcp.ServerSession) {
	subs.mu.Lock()
	defer subs.mu.Unlock()
	delete(subs.ending, ss)
	for uri, w := range subs.watches {
		subs.leaveLocked(uri, w, ss)
	}
}

// leaveLocked removes ss from w, stopping w when nobody is left.
func (subs *subscriptions) leaveLocked(uri string, w *resourceWatch, ss *mcp.ServerSession) {
	delete(w.sessions, ss)
	if len(w.sessions) == 0 {
		w.stop()
		delete(subs.watches, uri)
	}
}

// watchEndLocked drops ss's subscriptions when it ends (the client went
// away without unsubscribing).
func (subs *subscriptions) watchEndLocked(ss *mcp.ServerSession) {
	if ss == nil || subs.ending[ss] {
		return
	}
	subs.ending[ss] = true
	go func() {
		_ = ss.Wait()
		subs.dropSession(ss)
	}()
}

// Watchers returns how many panes have a live resource watcher (one per
// pane, however many sessions subscribed to it).
func (s *Server) Watchers() int {
	s.subs.mu.Lock()
	defer s.subs.mu.Unlock()
	return len(s.subs.watches)
}

func (s *Server) paneTemplate() *mcp.ResourceTemplate {
	return &mcp.ResourceTemplate{
		Name:        "pane",
		Title:       "tmux pane",
		URITemplate: paneTemplate,
		MIMEType:    "text/plain",
		Description: "What a tmux pane shows now (its screen as plain text); _meta.cursor is the stream position of that snapshot, to wait_for_text or capture_since from. {n} is the number of pane %n. Subscribe to be told (at most every 100 ms) when the pane prints.",
	}
}

func (s *Server) readPane(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	n, ok := paneFromURI(req.Params.URI)
	if !ok {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	out, err := s.hosts.Local().CapturePane(ctx, nil, &engine.CapturePaneRequest{PaneID: paneName(n)})
	if err != nil {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
		URI: req.Params.URI, MIMEType: "text/plain", Text: out.Screen,
		Meta: mcp.Meta{"cursor": out.Cursor, "paneId": out.PaneID, "currentCommand": out.CurrentCommand},
	}}}, nil
}

func (s *Server) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	n, ok := paneFromURI(req.Params.URI)
	if !ok {
		if strings.HasPrefix(req.Params.URI, "tmux://") {
			return mcp.ResourceNotFoundError(req.Params.URI)
		}
		return nil // not ours: subscribed, and no update will ever come
	}
	rec, err := s.hosts.Local().Recording(ctx, "uri", paneName(n))
	if err != nil {
		return mcp.ResourceNotFoundError(req.Params.URI)
	}
	s.subs.mu.Lock()
	defer s.subs.mu.Unlock()
	if w := s.subs.watches[req.Params.URI]; w != nil {
		w.sessions[req.Session] = true
		s.subs.watchEndLocked(req.Session)
		return nil
	}
	s.mu.Lock()
	select {
	case <-s.closing:
		s.mu.Unlock()
		return nil
	default:
	}
	s.wg.Add(1)
	s.mu.Unlock()
	wctx, cancel := context.WithCancel(context.Background())
	w := &resourceWatch{sessions: map[*mcp.ServerSession]bool{req.Session: true}, stop: cancel}
	s.subs.watches[req.Params.URI] = w
	s.subs.watchEndLocked(req.Session)
	uri := req.Params.URI
	go func() {
		defer s.wg.Done()
		defer func() {
			// The recording ended (pane gone, reconnect): a later subscribe
			// starts a watcher on the pane's new recording.
			s.subs.mu.Lock()
			if s.subs.watches[uri] == w {
				delete(s.subs.watches, uri)
			}
			s.subs.mu.Unlock()
		}()
		pos := rec.End()
		for {
			c := rec.ReadRaw(pos, 0, nil)
			if c.End > pos {
				pos = c.End
				if srv := s.server; srv != nil {
					_ = srv.ResourceUpdated(wctx, &mcp.ResourceUpdatedNotificationParams{URI: uri})
				}
				// Coalesce: at most one update per pane per updateEvery.
				select {
				case <-time.After(updateEvery):
				case <-wctx.Done():
					return
				case <-s.closing:
					return
				}
				continue
			}
			if c.Ended {
				return
			}
			select {
			case <-c.Changed:
			case <-wctx.Done():
				return
			case <-s.closing:
				return
			}
		}
	}()
	return nil
}

func (s *Server) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	s.subs.mu.Lock()
	defer s.subs.mu.Unlock()
	if w := s.subs.watches[req.Params.URI]; w != nil && w.sessions[req.Session] {
		s.subs.leaveLocked(req.Params.URI, w, req.Session)
	}
	return nil
}

// complete offers the live panes for the {n} of the pane template.
func (s *Server) complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	vals := []string{}
	if req.Params.Ref != nil && req.Params.Ref.Type == "ref/resource" && req.Params.Ref.URI == paneTemplate && req.Params.Argument.Name == "n" {
		for _, p := range s.hosts.Local().Recorded() {
			if v := strconv.Itoa(p); strings.HasPrefix(v, req.Params.Argument.Value) {
				vals = append(vals, v)
			}
		}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: vals, Total: len(vals)}}, nil
}
