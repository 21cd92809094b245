// Package tools holds tmuxmcp's MCP tool handlers: one file per tool family,
// each with its description, hand-tuned input and output schemas and
// explicit annotations. Handlers translate between MCP arguments and the
// stream hub (reads, waits) and the tmux fleet (actions); they own the
// user-facing texts, so every error names the field, the value and the fix.
package tools

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/approval"
	"github.com/tmuxmcp/tmuxmcp/audit"
	"github.com/tmuxmcp/tmuxmcp/input"
	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/machine"
	"github.com/tmuxmcp/tmuxmcp/policy"
	"github.com/tmuxmcp/tmuxmcp/runner"
	"github.com/tmuxmcp/tmuxmcp/shell"
	"github.com/tmuxmcp/tmuxmcp/stream"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

//go:embed instructions.md
var instructions string

// Options are the server-wide limits and defaults.
type Options struct {
	// Session is the session create_pane uses when none is given.
	Session string
	// WaitMax is the ceiling on wait_for_text's timeoutMs.
	WaitMax time.Duration
	// ResultMax is the ceiling on the bytes of text one result returns.
	ResultMax int
	// Version is reported to clients.
	Version string
	// StateDir holds job records, their outputs and the shell integration
	// scripts; default $XDG_STATE_HOME/tmuxmcp.
	StateDir string
	// Policy decides whether submitted input may run; nil allows all.
	Policy *policy.Policy
	// Audit receives a line per decision and per job completion; may be nil.
	Audit *audit.Log
	// ReviewTimeout is how long a person has to answer an approval prompt.
	ReviewTimeout time.Duration
	// RestartServer, when set, starts the tmux server again (the embedded
	// default); tools call it when they find the server gone.
	RestartServer func(context.Context) error
	// ApprovalVia lists how to ask a person, in order of preference:
	// "tmux" (a popup on attached clients), "elicitation" (the MCP client
	// asks its user) and "exec" (the program Approver). Default: tmux,
	// then elicitation.
	ApprovalVia []string
	// Approver is the program a person away from the terminal answers
	// through (--approval-via exec:PROGRAM): it races the tmux popups.
	Approver string
	// Shell is the installed shell integration; nil installs it under
	// StateDir/shell.
	Shell *shell.Integration
	// CheckResults validates every result against its tool's output
	// schema before it is sent, failing the call when it does not match
	// (a tmuxmcp bug). The tests turn it on; it costs about 0.3 ms a call,
	// the largest part of a wait's latency, so serving leaves it off
	// unless $TMUXMCP_CHECK_RESULTS is set.
	CheckResults bool
	// KeepPagers leaves PAGER, GIT_PAGER, MANPAGER, SYSTEMD_PAGER,
	// PSQL_PAGER, GH_PAGER and AWS_PAGER alone in the panes tmuxmcp
	// creates; by default they are set so nothing opens a pager
	// (shell.NoPagerEnv).
	KeepPagers bool
	// Host names the host this server's panes are on (host.Local when
	// empty); Machine is that host (nil: this machine).
	Host    string
	Machine machine.Machine
	// Trace, when set, is given the timeline of each wait_for_text that
	// matched: the latency breakdown `make bench` prints
	// ($TMUXMCP_LATENCY_TRACE).
	Trace func(WaitTrace)
}

// WaitTrace is where one matched wait_for_text spent its time on the way
// from tmux's output to its answer.
type WaitTrace struct {
	// Appended is when the pane's stream last grew before the match: for
	// output arriving a line at a time, when the matching line did.
	Appended time.Time
	Matched  time.Time // the wait returned its match
	Encoded  time.Time // the result was built and encoded as JSON
}

// DefaultWaitMax is the default ceiling on waits (--wait-max).
const DefaultWaitMax = 120 * time.Second

// DefaultResultMax is the default result byte ceiling.
const DefaultResultMax = 64 << 10

// Handlers holds what every tool needs: the hub of pane streams, the fleet
// of tmux control connections, and the options.
type Handlers struct {
	hub   *stream.Hub
	fleet *tmux.Fleet
	opts  Options
	log   *slog.Logger

	jobs *jobs.Store
	run  *runner.Runner // the command engine: readiness, launch, watching

	mu       sync.Mutex
	panes    map[int]tmux.PaneInfo // the latest listing
	selfPane int                   // the pane tmuxmcp itself runs in on this server, or -1
	slot     approval.Slot         // the one review open at a time, and "allow for this session"
	elicits  approval.Elicitations // open elicitations, by request state
	subs     subscriptions         // pane resources being watched
	lines    *input.Lines          // each pane's edit line as tmuxmcp typed it (for the policy)
	list     paneList              // the live panes as resources/list shows them
	waits    map[int]int           // open waits per pane
	waitsAll int                   // open waits in all
	server   *mcp.Server           // for resource-updated notifications

	remotes    []*Remote                  // the other hosts, whose calls route through these
	resumeNext atomic.Bool                // a remote host came back: Resume after the next listing
	toolsOnce  sync.Once                  // byName is built once
	byName     map[string]mcp.ToolHandler // this host's own tool handlers

	startMu   sync.Mutex    // one job launch at a time
	closing   chan struct{} // closed by Close: resource watchers stop
	closeOnce sync.Once
	calls     inFlight       // tool calls in progress, for a clean shutdown
	wg        sync.WaitGroup // resource watchers
}

// Start connects to the tmux server, begins recording every pane and
// returns the handlers. Close stops it all.
func Start(ctx context.Context, target tmux.Target, hub *stream.Hub, opts Options, log *slog.Logger) (*Handlers, error) {
	opts = withDefaults(opts)
	h := &Handlers{hub: hub, opts: opts, log: log, panes: map[int]tmux.PaneInfo{}, selfPane: -1,
		closing: make(chan struct{}),
		subs:    subscriptions{watches: map[string]*resourceWatch{}, ending: map[*mcp.ServerSession]bool{}}, lines: input.NewLines(), waits: map[int]int{},
		list: paneList{pending: make(chan struct{}, 1)}}
	store, err := jobs.Open(filepath.Join(opts.StateDir, "jobs"))
	if err != nil {
		return nil, err
	}
	h.jobs = store
	integ := opts.Shell
	if integ == nil {
		if integ, err = shell.Install(filepath.Join(opts.StateDir, "shell")); err != nil {
			log.Warn("no shell integration; commands use the inline wrapper", "err", err)
		}
	}
	// The runner exists before the fleet's first pane listing reaches it.
	var env map[string]string
	if !opts.KeepPagers {
		env = shell.NoPagerEnv()
	}
	h.run = runner.New(runner.Config{Hub: hub, Jobs: store, Shell: integ, Session: opts.Session, Log: log, Ended: h.jobEnded, Env: env, Machine: opts.Machine, Remote: opts.Machine != nil})
	fleet, err := tmux.StartFleet(ctx, target, hubEvents{h}, log)
	if err != nil {
		return nil, err
	}
	h.fleet = fleet
	h.run.SetFleet(fleet)
	h.mu.Lock()
	listed := make([]tmux.PaneInfo, 0, len(h.panes))
	for _, p := range h.panes {
		listed = append(listed, p)
	}
	h.mu.Unlock()
	h.run.Track(listed) // the first listing came before the runner had the fleet
	h.selfPane = h.findSelfPane(ctx)
	h.resumePending()
	h.run.Resume(ctx)
	return h, nil
}

// Draining returns a context that ends once ctx has ended and every open
// call has been answered: when ctx ends (SIGTERM, SIGINT), every stream
// ends with hub_closed, so open waits return that outcome, and the
// transport stays up until their results are written (at most 5 s).
func (h *Handlers) Draining(ctx context.Context) context.Context {
	out, cancel := context.WithCancel(context.WithoutCancel(ctx))
	go func() {
		select {
		case <-ctx.Done():
		case <-h.closing:
			cancel()
			return
		}
		h.hub.Close()
		for _, r := range h.Remotes() {
			if rh := r.started(); rh != nil {
				rh.hub.Close()
			}
		}
		done := make(chan struct{})
		go func() { h.calls.idle(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
		cancel()
	}()
	return out
}

// Close detaches from tmux and ends every stream with hub_closed.
func (h *Handlers) Close() {
	h.closeOnce.Do(func() {
		close(h.closing)
		for _, r := range h.Remotes() {
			if rh := r.started(); rh != nil {
				rh.Close()
			}
		}
		h.run.Close()
		h.wg.Wait()
		h.fleet.Close()
		h.hub.Close()
	})
}

// Fleet returns the tmux connections (for doctor and tests).
func (h *Handlers) Fleet() *tmux.Fleet { return h.fleet }

// findSelfPane returns the pane tmuxmcp runs in, when it runs inside a
// pane of the server it controls, so kill_pane can refuse it.
func (h *Handlers) findSelfPane(ctx context.Context) int {
	env, pane := os.Getenv("TMUX"), os.Getenv("TMUX_PANE")
	if env == "" || !strings.HasPrefix(pane, "%") || h.opts.Machine != nil {
		return -1
	}
	lines, err := h.fleet.Exec(ctx, "display-message", "-p", "#{socket_path}")
	if err != nil || len(lines) == 0 {
		return -1
	}
	sock, _, _ := strings.Cut(env, ",")
	if sock != lines[0] {
		return -1
	}
	n, err := strconv.Atoi(pane[1:])
	if err != nil {
		return -1
	}
	return n
}

// NewServer returns an MCP server with every tool registered.
func (h *Handlers) NewServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "tmuxmcp", Title: "tmux for agents", Version: h.opts.Version},
		&mcp.ServerOptions{
			Instructions:       instructions,
			SubscribeHandler:   h.subscribe,
			UnsubscribeHandler: h.unsubscribe,
			CompletionHandler:  h.complete,
		})
	remote := len(h.Remotes()) > 0
	for _, t := range h.Tools() {
		s.AddTool(servedOn(t.Tool, remote), h.route(t.Tool.Name))
	}
	s.AddResourceTemplate(h.paneTemplate(), h.readPane)
	h.server = s
	h.startPaneList(s)
	return s
}

// Tool is one tool with its handler, as registered on the server.
type Tool struct {
	Tool    *mcp.Tool
	Handler mcp.ToolHandler
}

// Tools returns every tool in a stable order, each taking the host
// argument (which route takes off before a host's handler sees the call).
func (h *Handlers) Tools() []Tool {
	ts := h.ownTools()
	for i := range ts {
		ts[i].Tool = withHost(ts[i].Tool)
	}
	return ts
}

func (h *Handlers) ownTools() []Tool {
	return []Tool{
		h.waitForTextTool(),
		h.captureSinceTool(),
		h.capturePaneTool(),
		h.typeTextTool(),
		h.sendKeysTool(),
		h.listPanesTool(),
		h.createPaneTool(),
		h.killPaneTool(),
		h.runShellCommandTool(),
		h.awaitCommandResultTool(),
		h.cancelCommandTool(),
		h.listCommandsTool(),
	}
}

// inputRequired carries a multi-round-trip result: the client answers its
// input requests and calls the tool again with the answers.
type inputRequired struct{ res *mcp.CallToolResult }

func (e *inputRequired) Error() string { return "input required" }

// toolError is a tool-level error (isError): something the caller can fix.
type toolError struct{ msg string }

func (e *toolError) Error() string { return e.msg }

func errorf(format string, args ...any) error { return &toolError{fmt.Sprintf(format, args...)} }

// typed builds a Tool from a typed handler. Arguments are decoded strictly
// (unknown fields and wrong types are errors naming the field), checked by
// the input's own check method, which gives friendlier errors than schema
// validation, and then by the schema itself as a safety net. The output is
// validated against the output schema, so the advertised contract holds.
func typed[In any, Out any](h *Handlers, tool *mcp.Tool, handle func(context.Context, *mcp.CallToolRequest, *In) (*Out, error)) Tool {
	inRes := mustResolve(tool.InputSchema.(*jsonschema.Schema))
	outRes := mustResolve(tool.OutputSchema.(*jsonschema.Schema))
	return Tool{Tool: tool, Handler: func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		h.calls.begin()
		defer h.calls.end()
		defer func() {
			// A bug must cost one call, never the server and every wait.
			if p := recover(); p != nil {
				res, err = errorResult(fmt.Errorf("%s failed inside tmuxmcp (a bug: %v); nothing more is known about its effect — check with list_panes or capture_pane before retrying", tool.Name, p)), nil
			}
		}()
		raw := req.Params.Arguments
		if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
			raw = json.RawMessage("{}")
		}
		in := new(In)
		if err := decodeStrict(raw, in); err != nil {
			return errorResult(err), nil
		}
		if c, ok := any(in).(interface{ check() error }); ok {
			if err := c.check(); err != nil {
				return errorResult(err), nil
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
			if err := inRes.Validate(generic); err != nil {
				return errorResult(schemaError(err)), nil
			}
		}
		out, err := handle(ctx, req, in)
		var ir *inputRequired
		if errors.As(err, &ir) {
			return ir.res, nil // ask the client for input (elicitation), then be called again
		}
		if err != nil {
			return errorResult(err), nil
		}
		b, err := marshal(out)
		if err != nil {
			return nil, fmt.Errorf("%s: encode result: %w", tool.Name, err)
		}
		if t, ok := any(out).(interface{ traced() *WaitTrace }); ok && h.opts.Trace != nil {
			if wt := t.traced(); wt != nil {
				wt.Encoded = time.Now()
				h.opts.Trace(*wt)
			}
		}
		if h.opts.CheckResults {
			var check any
			_ = json.Unmarshal(b, &check)
			if err := outRes.Validate(check); err != nil {
				return nil, fmt.Errorf("%s: result does not match the output schema (a tmuxmcp bug): %w", tool.Name, err)
			}
		}
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: string(b)}},
			StructuredContent: json.RawMessage(b),
		}, nil
	}}
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

// parsePaneID turns "%12" into 12; field names the argument for errors.
func parsePaneID(field, s string) (int, error) {
	if s == "" {
		return 0, errorf("%s is required: give a pane id such as %%3 (list_panes shows every pane's id)", field)
	}
	if !strings.HasPrefix(s, "%") {
		return 0, errorf("%s %q is not a tmux pane id: write it as %%N, e.g. %%3 (list_panes shows every pane's id)", field, s)
	}
	n, err := strconv.Atoi(s[1:])
	if err != nil || n < 0 || s[1:] == "" || (len(s) > 2 && s[1] == '0') {
		return 0, errorf("%s %q is not a tmux pane id: write it as %%N, e.g. %%3 (list_panes shows every pane's id)", field, s)
	}
	return n, nil
}

func paneName(n int) string { return "%" + strconv.Itoa(n) }

func ptr[T any](v T) *T { return &v }

// servedOn is a tool as tools/list sends it, with the host argument
// advertised when other hosts are configured (remote).
func servedOn(t *mcp.Tool, remote bool) *mcp.Tool {
	if remote {
		return served(t)
	}
	return served(withoutHost(t))
}

// served is a tool as tools/list sends it: its output schema keeps its
// structure (types, enums, nullability, required fields) but not the
// fields' descriptions, patterns and bounds. Clients rarely show output
// schemas to the model, and those texts were two thirds of the list (the
// fields an agent acts on are named in the tool's description; README and
// Catalog keep the whole schema).
func served(t *mcp.Tool) *mcp.Tool {
	c := *t
	if out, ok := t.OutputSchema.(*jsonschema.Schema); ok {
		c.OutputSchema = lean(out)
	}
	return &c
}

// lean copies s without descriptions, patterns, bounds, defaults or
// required lists (every result field is always present), a nullable type
// written as a type list.
func lean(s *jsonschema.Schema) *jsonschema.Schema {
	if s == nil {
		return nil
	}
	if len(s.AnyOf) == 2 && s.AnyOf[1].Type == "null" && s.AnyOf[0].Type != "" && s.AnyOf[0].Properties == nil && s.AnyOf[0].Items == nil {
		c := &jsonschema.Schema{Types: []string{s.AnyOf[0].Type, "null"}}
		if e := s.AnyOf[0].Enum; e != nil {
			c.Enum = append(slices.Clone(e), nil) // null is one of the values
		}
		return c
	}
	c := &jsonschema.Schema{Type: s.Type, Types: s.Types, Enum: s.Enum, AdditionalProperties: lean(s.AdditionalProperties), Items: lean(s.Items)}
	if s.Properties != nil {
		c.Properties = make(map[string]*jsonschema.Schema, len(s.Properties))
		for k, v := range s.Properties {
			c.Properties[k] = lean(v)
		}
	}
	for _, a := range s.AnyOf {
		c.AnyOf = append(c.AnyOf, lean(a))
	}
	return c
}

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
