// Package tools is tmuxmcp's MCP adapter: one file per tool, each with its
// description, hand-tuned input and output schemas and explicit
// annotations, calling one method of the engine. It decodes and checks a
// call's arguments, picks the host the call runs on, and encodes the
// engine's result or error; it also serves the pane resources. Everything
// a tool does happens in the engine; the schemas name the contract's
// vocabularies (a job's status, a decision, a wait's outcome) from the
// rooms that own them. It knows nothing of tmux, the runner, policy, the
// shells or the machines.
package tools

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/engine"
	"github.com/tmuxmcp/tmuxmcp/sandbox"
)

//go:embed instructions.md
var instructions string

// Options are the adapter's own settings; the limits and the policy are
// the engine's (engine.Config).
type Options struct {
	// Version is reported to clients.
	Version string
	// CheckResults validates every result against its tool's output
	// schema before it is sent, failing the call when it does not match
	// (a tmuxmcp bug). The tests turn it on; it costs about 0.3 ms a call,
	// the largest part of a wait's latency, so serving leaves it off
	// unless $TMUXMCP_CHECK_RESULTS is set.
	CheckResults bool
	// Trace, when set, is given the timeline of each wait_for_text that
	// matched: the latency breakdown `make bench` prints
	// ($TMUXMCP_LATENCY_TRACE).
	Trace func(WaitTrace)
	// Serve names the tools served (SelectTools); nil serves every tool.
	Serve []string
}

// WaitTrace is where one matched wait_for_text spent its time.
type WaitTrace = engine.WaitTrace

// Server serves the tool contract over MCP for a set of hosts.
type Server struct {
	hosts Hosts
	cfg   engine.Config // the local host's: limits named in descriptions
	opts  Options

	mu     sync.Mutex
	subs   subscriptions // pane resources being watched
	list   paneList      // the live panes as resources/list shows them
	server *mcp.Server   // for resource-updated notifications

	closing   chan struct{} // closed by Close: resource watchers stop
	closeOnce sync.Once
	calls     inFlight       // tool calls in progress, for a clean shutdown
	wg        sync.WaitGroup // resource watchers
}

// New returns the adapter for hosts (Engine(*engine.Hosts) in tmuxmcp).
// Close it before closing the hosts.
func New(hosts Hosts, opts Options) *Server {
	return &Server{hosts: hosts, cfg: hosts.Config(), opts: opts,
		closing: make(chan struct{}),
		subs:    subscriptions{watches: map[string]*resourceWatch{}, ending: map[*mcp.ServerSession]bool{}},
		list:    paneList{pending: make(chan struct{}, 1)}}
}

// Close stops the resource watchers.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.closing)
		s.wg.Wait()
	})
}

// Draining returns a context that ends once ctx has ended and every open
// call has been answered: when ctx ends (SIGTERM, SIGINT), every stream
// ends with hub_closed, so open waits return that outcome, and the
// transport stays up until their results are written (at most 5 s).
func (s *Server) Draining(ctx context.Context) context.Context {
	out, cancel := context.WithCancel(context.WithoutCancel(ctx))
	go func() {
		select {
		case <-ctx.Done():
		case <-s.closing:
			cancel()
			return
		}
		for _, h := range s.hosts.Started() {
			h.CloseStreams()
		}
		done := make(chan struct{})
		go func() { s.calls.idle(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
		cancel()
	}()
	return out
}

// NewServer returns an MCP server with every tool registered.
func (s *Server) NewServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "tmuxmcp", Title: "tmux for agents", Version: s.opts.Version},
		&mcp.ServerOptions{
			Instructions:       instructions + sandboxInstructions(s.hosts.Config().Sandbox) + servedInstructions(s.opts.Serve),
			SubscribeHandler:   s.subscribe,
			UnsubscribeHandler: s.unsubscribe,
			CompletionHandler:  s.complete,
		})
	remote := s.hosts.Remote()
	for _, t := range s.Tools() {
		if s.opts.Serve == nil || slices.Contains(s.opts.Serve, t.Tool.Name) {
			srv.AddTool(servedOn(t.Tool, remote), t.Handler)
		}
	}
	srv.AddResourceTemplate(s.paneTemplate(), s.readPane)
	srv.AddResourceTemplate(recordingTemplate(), s.readRecording)
	s.server = srv
	s.startPaneList(srv)
	return srv
}

// Tool is one tool with its handler, as registered on the server.
type Tool struct {
	Tool    *mcp.Tool       // its definition, host argument included
	Handler mcp.ToolHandler // decodes, calls the engine, encodes
}

// Tools returns every tool in a stable order, each taking the host
// argument.
func (s *Server) Tools() []Tool {
	return []Tool{
		s.waitForTextTool(),
		s.captureSinceTool(),
		s.capturePaneTool(),
		s.typeTextTool(),
		s.sendKeysTool(),
		s.listPanesTool(),
		s.createPaneTool(),
		s.killPaneTool(),
		s.runShellCommandTool(),
		s.awaitCommandResultTool(),
		s.cancelCommandTool(),
		s.listCommandsTool(),
		s.askPersonTool(),
	}
}

// toolError is a tool-level error (isError): something the caller can fix.
type toolError struct{ msg string }

func (e *toolError) Error() string { return e.msg }

func errorf(format string, args ...any) error { return &toolError{fmt.Sprintf(format, args...)} }

// checker is a request that checks its own arguments, with errors that
// name the field, the value and the fix.
type checker interface{ Check() error }

// typed builds a Tool from a call into the engine. Arguments are decoded
// strictly (unknown fields and wrong types are errors naming the field),
// checked by the request's own Check method, which gives friendlier
// errors than schema validation, and then by the schema itself as a
// safety net. The output is validated against the output schema, so the
// advertised contract holds. Every tool takes the host argument.
func typed[In any, Out any](s *Server, tool *mcp.Tool, call func(context.Context, engine.Caller, *In) (*Out, error)) Tool {
	tool = withHost(tool)
	inRes := mustResolve(tool.InputSchema.(*jsonschema.Schema))
	outSchema := tool.OutputSchema.(*jsonschema.Schema)
	outRes := mustResolve(outSchema)
	return Tool{Tool: tool, Handler: func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		s.calls.begin()
		defer s.calls.end()
		defer func() {
			// A bug must cost one call, never the server and every wait.
			if p := recover(); p != nil {
				res, err = errorResult(fmt.Errorf("%s failed inside tmuxmcp (a bug: %v); nothing more is known about its effect — check with list_panes or capture_pane before retrying", tool.Name, p)), nil
			}
		}()
		in, err := decodeArgs[In](req.Params.Arguments, inRes)
		if err != nil {
			return errorResult(err), nil
		}
		out, err := call(ctx, mcpCaller{req}, in)
		var ask *engine.ClientAsk
		if errors.As(err, &ask) {
			return askResult(ask), nil // ask the client's user, then be called again
		}
		if err != nil {
			return errorResult(err), nil
		}
		return s.encode(tool.Name, out, outSchema, outRes)
	}}
}

// onHost is a Host method run on the host the request names (picked by
// Hosts.For: its jobId, requestId or cursor must be that host's).
func onHost[In any, Out any](s *Server, method func(Host, context.Context, engine.Caller, *In) (*Out, error)) func(context.Context, engine.Caller, *In) (*Out, error) {
	return func(ctx context.Context, c engine.Caller, in *In) (*Out, error) {
		h, err := s.hosts.For(ctx, any(in).(engine.Routed))
		if err != nil {
			return nil, err
		}
		return method(h, ctx, c, in)
	}
}

// decodeArgs decodes and checks a call's arguments.
func decodeArgs[In any](raw json.RawMessage, schema *jsonschema.Resolved) (*In, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		raw = json.RawMessage("{}")
	}
	in := new(In)
	if err := decodeStrict(raw, in); err != nil {
		return nil, err
	}
	if c, ok := any(in).(checker); ok {
		if err := c.Check(); err != nil {
			return nil, err
		}
	}
	var generic map[string]any
	if err := json.Unmarshal(raw, &generic); err == nil {
		// An explicit null means "not given" for optional arguments.
		for k, v := range generic {
			if v == nil {
				delete(generic, k)
			}
		}
		if err := schema.Validate(generic); err != nil {
			return nil, schemaError(err)
		}
	}
	return in, nil
}

// encode is a tool's result as sent: structured content with every field,
// and as text the same JSON without the fields that say nothing
// (leanText).
func (s *Server) encode(name string, out any, schema *jsonschema.Schema, resolved *jsonschema.Resolved) (*mcp.CallToolResult, error) {
	b, err := marshal(out)
	if err != nil {
		return nil, fmt.Errorf("%s: encode result: %w", name, err)
	}
	if t, ok := out.(interface{ Trace() *WaitTrace }); ok && s.opts.Trace != nil {
		if wt := t.Trace(); wt != nil {
			wt.Encoded = time.Now()
			s.opts.Trace(*wt)
		}
	}
	if s.opts.CheckResults {
		var check any
		_ = json.Unmarshal(b, &check)
		if err := resolved.Validate(check); err != nil {
			return nil, fmt.Errorf("%s: result does not match the output schema (a tmuxmcp bug): %w", name, err)
		}
	}
	text, err := leanText(b, schema)
	if err != nil {
		return nil, fmt.Errorf("%s: encode result: %w", name, err)
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(text)}},
		StructuredContent: json.RawMessage(b),
	}, nil
}

// marshal encodes a result without HTML escaping: output holding < > &
// reads as the program printed it, not as \u003c (six times the tokens).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// schemaError rewrites a JSON-schema validation error so it names the
// argument first: "maxBytes: maximum: 65537/1 is greater than 65536".
func schemaError(err error) error {
	msg := err.Error()
	if i := strings.LastIndex(msg, "/properties/"); i >= 0 {
		rest := msg[i+len("/properties/"):]
		field, detail, _ := strings.Cut(rest, ":")
		field = strings.ReplaceAll(field, "/items/", "[]")
		return errorf("argument %s is out of bounds:%s. The tool's input schema gives the allowed range", field, detail)
	}
	return errorf("invalid arguments: %s. The tool's input schema lists them", strings.TrimPrefix(msg, "validating root: "))
}

func errorResult(err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
}

func mustResolve(s *jsonschema.Schema) *jsonschema.Resolved {
	r, err := s.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("resolve schema: %v", err))
	}
	return r
}

// decodeStrict decodes JSON arguments, rejecting unknown fields, and turns
// decoding errors into messages that name the field.
func decodeStrict(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			if te.Field == "" {
				return errorf("arguments must be a JSON object of named arguments, not JSON %s", te.Value)
			}
			if num, ok := strings.CutPrefix(te.Value, "number "); ok && te.Type.Kind().String() != "string" {
				if strings.ContainsAny(num, ".eE") && !strings.ContainsAny(num, "+") {
					return errorf("%s: %s is not a whole number: give an integer", te.Field, num)
				}
				return errorf("%s: %s is out of range for %s: use a smaller value (the tool's input schema gives the bounds)", te.Field, num, jsonTypeName(te.Type.Kind().String()))
			}
			return errorf("%s: expected %s, got JSON %s: fix the argument's type", te.Field, jsonTypeName(te.Type.Kind().String()), te.Value)
		}
		if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return errorf("unknown argument %s: remove it (the tool's input schema lists the accepted arguments)", f)
		}
		var own *engine.Error
		if errors.As(err, &own) {
			return own // an argument's own decoding said what is wrong (host)
		}
		return errorf("arguments are not a valid JSON object: %v", err)
	}
	return nil
}

func jsonTypeName(kind string) string {
	switch kind {
	case "int", "int64", "int32", "uint", "uint64":
		return "an integer"
	case "bool":
		return "true or false"
	case "slice":
		return "an array"
	case "map", "struct":
		return "an object"
	}
	return "a " + kind
}

func ptr[T any](v T) *T { return &v }

// inFlight counts calls in progress. Unlike a WaitGroup it may gain calls
// while somebody waits for it to empty: a call can arrive just as the
// input ends and the drain starts (a sync.WaitGroup panics then).
type inFlight struct {
	mu      sync.Mutex
	n       int
	changed chan struct{} // closed and replaced whenever n drops to 0
}

func (f *inFlight) begin() {
	f.mu.Lock()
	f.n++
	f.mu.Unlock()
}

func (f *inFlight) end() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n--; f.n == 0 && f.changed != nil {
		close(f.changed)
		f.changed = nil
	}
}

// idle returns once no call is in progress.
func (f *inFlight) idle() {
	for {
		f.mu.Lock()
		if f.n == 0 {
			f.mu.Unlock()
			return
		}
		if f.changed == nil {
			f.changed = make(chan struct{})
		}
		ch := f.changed
		f.mu.Unlock()
		<-ch
	}
}

func paneName(n int) string { return "%" + strconv.Itoa(n) }

// sandboxInstructions tells an agent what its panes' sandbox allows, so
// that "Read-only file system" or "Could not resolve host" read as the
// sandbox, with escalate as the way out: "" without a sandbox.
func sandboxInstructions(c sandbox.Config) string {
	if c.Mode == "" || c.Mode == sandbox.Off {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "- Sandbox (%s): every pane tmuxmcp starts runs in it. The filesystem is read-only", c.Mode)
	if ws := c.Workspaces; c.Mode == sandbox.Workspace && len(ws) > 0 {
		fmt.Fprintf(&b, " but %s", strings.Join(ws, ", "))
	}
	b.WriteString("; /tmp and loopback are each pane's own")
	if !c.Network {
		b.WriteString("; there is no network (\"Could not resolve host\" is the sandbox)")
	}
	b.WriteString(". `Read-only file system` there means the sandbox, not a fault. A command that must run " +
		"outside: `run_shell_command` with `escalate: true` and a `reason`; a person always decides. Input to a " +
		"pane outside the sandbox (`sandbox: unsandboxed` in list_panes) is always asked too.\n")
	return b.String()
}

// servedInstructions tells a client served a subset of the tools (--tools)
// which ones it has, as the instructions name others.
func servedInstructions(serve []string) string {
	if serve == nil {
		return ""
	}
	return "\n- This server serves only these tools (--tools): " + strings.Join(serve, ", ") + ". Others the instructions name are not available here.\n"
}

// ToolNames is the name of every tool, in the order Tools lists them.
func (s *Server) ToolNames() []string {
	var out []string
	for _, t := range s.Tools() {
		out = append(out, t.Tool.Name)
	}
	return out
}
