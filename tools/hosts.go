package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sort"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/engine"
)

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
// the call and runs the call on that host. A jobId, cursor or requestId
// of another host is refused, never read as one of this host.
func (s *Server) route(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		s.calls.begin() // a drain waits for calls on every host
		defer s.calls.end()
		args, hostName, err := takeHost(req.Params.Arguments)
		if err != nil {
			return errorResult(err), nil
		}
		if hostName == "" && fanOut[name] && len(s.hosts.Remotes()) > 0 {
			return s.everyHost(ctx, name, req, args)
		}
		h, err := s.hosts.Pick(ctx, hostName, callIDs(args))
		if err != nil {
			return errorResult(err), nil
		}
		return s.handler(name)(ctx, withArgs(req, args), h)
	}
}

// callIDs are the ids in a call's arguments that belong to one host.
func callIDs(args json.RawMessage) engine.IDs {
	var ids struct {
		JobID     *string `json:"jobId"`
		Cursor    *string `json:"cursor"`
		RequestID *string `json:"requestId"`
	}
	_ = json.Unmarshal(args, &ids)
	deref := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	return engine.IDs{JobID: deref(ids.JobID), Cursor: deref(ids.Cursor), RequestID: deref(ids.RequestID)}
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
		return raw, "", errorf("host: expected a string, got JSON %s: give a host name such as local (list_panes shows each pane's host)", clip(string(v), 40))
	}
	if name == "" {
		return raw, "", errorf("host is empty: give a host name such as local, or omit host for this machine")
	}
	return out, name, nil
}

// handler is tool name's handler on a chosen host.
func (s *Server) handler(name string) hostHandler {
	s.toolsOnce.Do(func() {
		s.onHost = map[string]hostHandler{}
		for _, t := range s.ownTools() {
			s.onHost[t.Tool.Name] = t.onHost
		}
	})
	return s.onHost[name]
}

func hostErrorsSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "array", Description: "Hosts that could not answer, when no host was given (empty when every host answered).", Items: outputObject(map[string]*jsonschema.Schema{
		"host":  str("The host's name."),
		"error": str("Why it could not answer (ssh's own message when the link is down)."),
	})}
}

// everyHost runs list_panes or list_commands on every host and joins the
// answers; a host that cannot answer is named in hostErrors.
func (s *Server) everyHost(ctx context.Context, name string, req *mcp.CallToolRequest, args json.RawMessage) (*mcp.CallToolResult, error) {
	type answer struct {
		host string
		res  *mcp.CallToolResult
		err  error
	}
	names := s.hosts.Names()
	answers := make([]answer, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i].host = n
			h, err := s.hosts.Pick(ctx, n, callIDs(args))
			if err != nil {
				answers[i].err = err
				return
			}
			answers[i].res, answers[i].err = s.handler(name)(ctx, withArgs(req, args), h)
		}()
	}
	wg.Wait()
	key := map[string]string{"list_panes": "panes", "list_commands": "commands"}[name]
	var items []json.RawMessage
	errs := []engine.HostError{}
	for _, a := range answers {
		res := a.res
		if a.err == nil && res != nil && res.IsError {
			a.err = errors.New(resultText(res))
		}
		if a.err != nil {
			errs = append(errs, engine.HostError{Host: a.host, Error: a.err.Error()})
			continue
		}
		var out map[string][]json.RawMessage
		if err := json.Unmarshal(res.StructuredContent.(json.RawMessage), &out); err != nil {
			errs = append(errs, engine.HostError{Host: a.host, Error: err.Error()})
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
	var in engine.ListCommandsRequest
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

// clip is s cut to n bytes, marked when cut.
func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
