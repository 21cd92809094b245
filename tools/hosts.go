package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/cursor"
	"github.com/tmuxmcp/tmuxmcp/host"
	"github.com/tmuxmcp/tmuxmcp/jobs"
)

// Remote is a host other than this machine: its Handlers (its own fleet,
// hub and runner, its tmux server reached over SSH) are made on first use
// and again after a failed attempt. The local Handlers route each tool
// call to its host's Handlers by the call's host argument.
type Remote struct {
	// Name is the host's name, as tool calls pass it.
	Name string
	// JobsDir is where the host's job records are kept on this machine, so
	// a job of a host not connected yet can still be found.
	JobsDir string
	// Start connects to the host and returns its Handlers.
	Start func(ctx context.Context) (*Handlers, error)

	h       atomic.Pointer[Handlers] // once started; read without a lock
	startMu sync.Mutex               // one start attempt at a time
	err     error                    // the last attempt's failure
	failed  time.Time                // when it failed

	requestsOnce sync.Once
	requests     map[string]string // requestId -> jobId of the records on disk, before the host starts
}

// retryAfter is how long a failed start answers for the host before the
// next call tries again: a host that is down costs each call at most one
// attempt in this time, never a queue of them.
const retryAfter = 2 * time.Second

// Handlers returns the host's Handlers, starting them when they are not
// running yet. An error says why the host cannot be reached now.
func (r *Remote) Handlers(ctx context.Context) (*Handlers, error) {
	if h := r.h.Load(); h != nil {
		return h, nil
	}
	r.startMu.Lock()
	defer r.startMu.Unlock()
	if h := r.h.Load(); h != nil {
		return h, nil
	}
	if r.err != nil && time.Since(r.failed) < retryAfter {
		return nil, r.err
	}
	h, err := r.Start(ctx)
	if err != nil {
		r.err, r.failed = err, time.Now()
		return nil, err
	}
	r.err = nil
	r.h.Store(h)
	return h, nil
}

// started returns the host's Handlers when they run, without starting
// them or waiting for a start in progress.
func (r *Remote) started() *Handlers { return r.h.Load() }

// storedRequest is the job of requestId among the host's records on disk
// (read once, for a host not started yet), or "".
func (r *Remote) storedRequest(requestID string) string {
	r.requestsOnce.Do(func() { r.requests = jobs.RequestIndex(r.JobsDir) })
	return r.requests[requestID]
}

// AddRemote adds a host that tool calls can name; call it before
// NewServer. Its Handlers are closed with these.
func (h *Handlers) AddRemote(r *Remote) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.remotes = append(h.remotes, r)
}

// Remotes are the configured remote hosts, in the order added.
func (h *Handlers) Remotes() []*Remote {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.remotes)
}

// HostName is the host this Handlers' panes are on.
func (h *Handlers) HostName() string { return h.opts.Host }

// hostNames lists every configured host, local first.
func (h *Handlers) hostNames() []string {
	names := []string{host.Local}
	for _, r := range h.Remotes() {
		names = append(names, r.Name)
	}
	return names
}

func (h *Handlers) remote(name string) *Remote {
	for _, r := range h.Remotes() {
		if r.Name == name {
			return r
		}
	}
	return nil
}

// hostSchema is the host argument every tool takes.
func hostSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", MinLength: ptr(1), Description: "Host of the pane: local (default) or a --host name, as list_panes shows it."}
}

// withHost is tool with the host argument added to its input schema.
func withHost(tool *mcp.Tool) *mcp.Tool {
	c := *tool
	in := *tool.InputSchema.(*jsonschema.Schema)
	props := make(map[string]*jsonschema.Schema, len(in.Properties)+1)
	for k, v := range in.Properties {
		props[k] = v
	}
	props["host"] = hostSchema()
	in.Properties = props
	c.InputSchema = &in
	return &c
}

// withoutHost is tool as served when no other host is configured: the
// host argument (still accepted) is not advertised.
func withoutHost(tool *mcp.Tool) *mcp.Tool {
	in, ok := tool.InputSchema.(*jsonschema.Schema)
	if !ok || in.Properties["host"] == nil {
		return tool
	}
	c := *tool
	cp := *in
	cp.Properties = maps.Clone(in.Properties)
	delete(cp.Properties, "host")
	c.InputSchema = &cp
	return &c
}

// fanOut are the tools that, without a host, answer for every host.
var fanOut = map[string]bool{"list_panes": true, "list_commands": true}

// route is tool name's handler as served: it takes the host argument off
// the call and runs the call on that host's Handlers. A jobId or cursor
// of another host is refused, never read as one of this host.
func (h *Handlers) route(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		h.calls.begin() // a drain waits for calls on every host
		defer h.calls.end()
		args, hostName, err := takeHost(req.Params.Arguments)
		if err != nil {
			return errorResult(err), nil
		}
		if hostName == "" && fanOut[name] && len(h.Remotes()) > 0 {
			return h.everyHost(ctx, name, req, args)
		}
		target, err := h.pickHost(ctx, hostName, args)
		if err != nil {
			return errorResult(err), nil
		}
		return target.handler(name)(ctx, withArgs(req, args))
	}
}

// withArgs is req with its arguments replaced (the host taken off).
func withArgs(req *mcp.CallToolRequest, args json.RawMessage) *mcp.CallToolRequest {
	c := *req
	params := *req.Params
	params.Arguments = args
	c.Params = &params
	return &c
}

// takeHost removes "host" from a call's arguments and returns it ("" when
// absent or null). Arguments that are not an object pass unchanged: the
// tool's own decoding explains them.
func takeHost(raw json.RawMessage) (json.RawMessage, string, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return raw, "", nil
	}
	v, ok := m["host"]
	if !ok {
		return raw, "", nil
	}
	delete(m, "host")
	out, err := json.Marshal(m)
	if err != nil {
		return raw, "", err
	}
	if string(bytes.TrimSpace(v)) == "null" {
		return out, "", nil
	}
	var name string
	if err := json.Unmarshal(v, &name); err != nil {
		return raw, "", errorf("host: expected a string, got JSON %s: give a host name such as local (list_panes shows each pane's host)", truncate(string(v), 40))
	}
	if name == "" {
		return raw, "", errorf("host is empty: give a host name such as local, or omit host for this machine")
	}
	return out, name, nil
}

// pickHost returns the Handlers a call runs on: its host's, checked
// against the host its jobId or cursor belongs to.
func (h *Handlers) pickHost(ctx context.Context, name string, args json.RawMessage) (*Handlers, error) {
	var ids struct {
		JobID     *string `json:"jobId"`
		Cursor    *string `json:"cursor"`
		RequestID *string `json:"requestId"`
	}
	_ = json.Unmarshal(args, &ids)
	if ids.JobID != nil && *ids.JobID != "" {
		if owner := h.jobHost(*ids.JobID); owner != "" {
			if name != "" && name != owner {
				return nil, errorf("job %s runs on host %s, not %s: pass host %q, or omit host", *ids.JobID, owner, name, owner)
			}
			name = owner
		}
	}
	if name == "" {
		name = host.Local
	}
	if ids.RequestID != nil && *ids.RequestID != "" {
		if owner, job := h.requestHost(*ids.RequestID); owner != "" && owner != name {
			return nil, errorf("requestId %s already names job %s on host %s: a requestId is only for retrying the same call. Pass host %q to retry it, or use a new requestId for a new command", *ids.RequestID, job, owner, owner)
		}
	}
	if ids.Cursor != nil {
		if c, err := cursor.Parse(*ids.Cursor); err == nil {
			if owner := h.cursorHost(c.Stream); owner != "" && owner != name {
				return nil, errorf("cursor %s is from a pane on host %s, not %s: pass host %q with that pane's paneId (a cursor is never read on another host's pane)", *ids.Cursor, owner, name, owner)
			}
		}
	}
	if name == host.Local {
		return h, nil
	}
	r := h.remote(name)
	if r == nil {
		return nil, errorf("host %q is not configured: the hosts are %s (add one with --host NAME=ssh://[user@]host[:port])", name, strings.Join(h.hostNames(), ", "))
	}
	rh, err := r.Handlers(ctx)
	if err != nil {
		return nil, errorf("host %s cannot be reached now: %v", name, err)
	}
	return rh, nil
}

// jobHost is the host whose records hold job id, or "".
func (h *Handlers) jobHost(id string) string {
	if _, ok := h.jobs.Get(id); ok {
		return host.Local
	}
	for _, r := range h.Remotes() {
		if rh := r.started(); rh != nil {
			if _, ok := rh.jobs.Get(id); ok {
				return r.Name
			}
			continue
		}
		if filepath.Base(id) == id {
			if _, err := os.Stat(filepath.Join(r.JobsDir, id+".json")); err == nil {
				return r.Name
			}
		}
	}
	return ""
}

// requestHost is the host whose records hold a job with requestId, and
// that job's id ("" when none does).
func (h *Handlers) requestHost(requestID string) (string, string) {
	if j, ok := h.jobs.ByRequest(requestID); ok {
		return host.Local, j.ID
	}
	for _, r := range h.Remotes() {
		if rh := r.started(); rh != nil {
			if j, ok := rh.jobs.ByRequest(requestID); ok {
				return r.Name, j.ID
			}
		} else if id := r.storedRequest(requestID); id != "" {
			return r.Name, id
		}
	}
	return "", ""
}

// cursorHost is the host whose recording id is, or "".
func (h *Handlers) cursorHost(id cursor.StreamID) string {
	if _, ok := h.hub.Stream(id); ok {
		return host.Local
	}
	for _, r := range h.Remotes() {
		if rh := r.started(); rh != nil {
			if _, ok := rh.hub.Stream(id); ok {
				return r.Name
			}
		}
	}
	return ""
}

// handler is this Handlers' own handler of tool name.
func (h *Handlers) handler(name string) mcp.ToolHandler {
	h.toolsOnce.Do(func() {
		h.byName = map[string]mcp.ToolHandler{}
		for _, t := range h.Tools() {
			h.byName[t.Tool.Name] = t.Handler
		}
	})
	return h.byName[name]
}

// hostError is a host that could not answer a call made on every host.
type hostError struct {
	Host  string `json:"host"`
	Error string `json:"error"`
}

func hostErrorsSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "array", Description: "Hosts that could not answer, when no host was given (empty when every host answered).", Items: outputObject(map[string]*jsonschema.Schema{
		"host":  str("The host's name."),
		"error": str("Why it could not answer (ssh's own message when the link is down)."),
	})}
}

// everyHost runs list_panes or list_commands on every host and joins the
// answers; a host that cannot answer is named in hostErrors.
func (h *Handlers) everyHost(ctx context.Context, name string, req *mcp.CallToolRequest, args json.RawMessage) (*mcp.CallToolResult, error) {
	type answer struct {
		host string
		res  *mcp.CallToolResult
		err  error
	}
	names := h.hostNames()
	answers := make([]answer, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i].host = n
			target, err := h.pickHost(ctx, n, args)
			if err != nil {
				answers[i].err = err
				return
			}
			answers[i].res, answers[i].err = target.handler(name)(ctx, withArgs(req, args))
		}()
	}
	wg.Wait()
	key := map[string]string{"list_panes": "panes", "list_commands": "commands"}[name]
	var items []json.RawMessage
	errs := []hostError{}
	for _, a := range answers {
		res := a.res
		if a.err == nil && res != nil && res.IsError {
			a.err = errors.New(resultText(res))
		}
		if a.err != nil {
			errs = append(errs, hostError{Host: a.host, Error: a.err.Error()})
			continue
		}
		var out map[string][]json.RawMessage
		if err := json.Unmarshal(res.StructuredContent.(json.RawMessage), &out); err != nil {
			errs = append(errs, hostError{Host: a.host, Error: err.Error()})
			continue
		}
		items = append(items, out[key]...)
	}
	if len(items) == 0 && len(errs) == len(answers) {
		msgs := make([]string, len(errs))
		for i, e := range errs {
			msgs[i] = e.Host + ": " + e.Error
		}
		return errorResult(fmt.Errorf("no host answered %s: %s", name, strings.Join(msgs, "; "))), nil
	}
	if name == "list_commands" {
		items = sortNewestFirst(items, args)
	}
	if items == nil {
		items = []json.RawMessage{}
	}
	b, err := marshal(map[string]any{key: items, "hostErrors": errs})
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, StructuredContent: json.RawMessage(b)}, nil
}

// sortNewestFirst orders jobs of several hosts newest first and keeps the
// call's limit.
func sortNewestFirst(items []json.RawMessage, args json.RawMessage) []json.RawMessage {
	created := func(b json.RawMessage) string {
		var c struct {
			Created string `json:"created"`
			JobID   string `json:"jobId"`
		}
		_ = json.Unmarshal(b, &c)
		return c.Created + c.JobID
	}
	sort.SliceStable(items, func(i, j int) bool { return created(items[i]) > created(items[j]) })
	var in listCommandsIn
	_ = json.Unmarshal(args, &in)
	limit := 50
	if in.Limit != nil {
		limit = *in.Limit
	}
	if len(items) > limit {
		items = items[:limit]
	}
	return items
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}
