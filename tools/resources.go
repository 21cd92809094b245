package tools

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// paneTemplate is the resource template of panes: {n} is the number of %n
// ("%" is not URI-safe).
const paneTemplate = "tmux://pane/{n}"

// updateEvery coalesces resource-updated notifications per pane.
const updateEvery = 100 * time.Millisecond

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
func (h *Handlers) Watchers() int {
	h.subs.mu.Lock()
	defer h.subs.mu.Unlock()
	return len(h.subs.watches)
}

func (h *Handlers) paneTemplate() *mcp.ResourceTemplate {
	return &mcp.ResourceTemplate{
		Name:        "pane",
		Title:       "tmux pane",
		URITemplate: paneTemplate,
		MIMEType:    "text/plain",
		Description: "What a tmux pane shows now (its screen as plain text); _meta.cursor is the stream position of that snapshot, to wait_for_text or capture_since from. {n} is the number of pane %n. Subscribe to be told (at most every 100 ms) when the pane prints.",
	}
}

func (h *Handlers) readPane(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	n, ok := paneFromURI(req.Params.URI)
	if !ok {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	out, err := h.capturePane(ctx, nil, &capturePaneIn{PaneID: paneName(n)})
	if err != nil {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
		URI: req.Params.URI, MIMEType: "text/plain", Text: out.Screen,
		Meta: mcp.Meta{"cursor": out.Cursor, "paneId": out.PaneID, "currentCommand": out.CurrentCommand},
	}}}, nil
}

func (h *Handlers) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	n, ok := paneFromURI(req.Params.URI)
	if !ok {
		if strings.HasPrefix(req.Params.URI, "tmux://") {
			return mcp.ResourceNotFoundError(req.Params.URI)
		}
		return nil // not ours: subscribed, and no update will ever come
	}
	_, s, err := h.paneStream(ctx, "uri", paneName(n))
	if err != nil {
		return mcp.ResourceNotFoundError(req.Params.URI)
	}
	h.subs.mu.Lock()
	defer h.subs.mu.Unlock()
	if w := h.subs.watches[req.Params.URI]; w != nil {
		w.sessions[req.Session] = true
		h.subs.watchEndLocked(req.Session)
		return nil
	}
	h.mu.Lock()
	select {
	case <-h.closing:
		h.mu.Unlock()
		return nil
	default:
	}
	h.wg.Add(1)
	h.mu.Unlock()
	wctx, cancel := context.WithCancel(context.Background())
	w := &resourceWatch{sessions: map[*mcp.ServerSession]bool{req.Session: true}, stop: cancel}
	h.subs.watches[req.Params.URI] = w
	h.subs.watchEndLocked(req.Session)
	uri := req.Params.URI
	go func() {
		defer h.wg.Done()
		defer func() {
			// The recording ended (pane gone, reconnect): a later subscribe
			// starts a watcher on the pane's new recording.
			h.subs.mu.Lock()
			if h.subs.watches[uri] == w {
				delete(h.subs.watches, uri)
			}
			h.subs.mu.Unlock()
		}()
		pos := s.End()
		for {
			c := s.ReadRaw(pos, 0, nil)
			if c.End > pos {
				pos = c.End
				if srv := h.server; srv != nil {
					_ = srv.ResourceUpdated(wctx, &mcp.ResourceUpdatedNotificationParams{URI: uri})
				}
				// Coalesce: at most one update per pane per updateEvery.
				select {
				case <-time.After(updateEvery):
				case <-wctx.Done():
					return
				case <-h.closing:
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
			case <-h.closing:
				return
			}
		}
	}()
	return nil
}

func (h *Handlers) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	h.subs.mu.Lock()
	defer h.subs.mu.Unlock()
	if w := h.subs.watches[req.Params.URI]; w != nil && w.sessions[req.Session] {
		h.subs.leaveLocked(req.Params.URI, w, req.Session)
	}
	return nil
}

// complete offers the live panes for the {n} of the pane template.
func (h *Handlers) complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	vals := []string{}
	if req.Params.Ref != nil && req.Params.Ref.Type == "ref/resource" && req.Params.Ref.URI == paneTemplate && req.Params.Argument.Name == "n" {
		for _, p := range h.hub.Panes() {
			if v := strconv.Itoa(p); strings.HasPrefix(v, req.Params.Argument.Value) {
				vals = append(vals, v)
			}
		}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: vals, Total: len(vals)}}, nil
}
