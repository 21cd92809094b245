package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/internal/mcptest"
	"github.com/tmuxmcp/tmuxmcp/internal/tmuxtest"
	"github.com/tmuxmcp/tmuxmcp/stream"
	"github.com/tmuxmcp/tmuxmcp/tools"
)

func TestMain(m *testing.M) {
	// Every result the binary serves in these tests is checked against its
	// tool's output schema.
	_ = os.Setenv("TMUXMCP_CHECK_RESULTS", "1")
	tmuxtest.Main(m)
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

const testToken = "0123456789abcdef0123456789abcdef"

func httpEnv(t *testing.T) (*httptest.Server, *tools.Handlers) {
	t.Helper()
	srv, h, _ := httpEnvWith(t, httpConfig{sessionTimeout: time.Minute})
	return srv, h
}

// httpEnvWith serves a real tmux-backed server with cfg (its token is
// testToken unless cfg has one) and returns the *mcp.Server too.
func httpEnvWith(t *testing.T, cfg httpConfig) (*httptest.Server, *tools.Handlers, *mcp.Server) {
	t.Helper()
	target := tmuxtest.Server(t, "agent", 120, 40)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	h, err := tools.Start(ctx, target, stream.NewHub(0), tools.Options{Session: "agent", StateDir: t.TempDir(), Version: "test", CheckResults: true}, log)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.token == "" {
		cfg.token = testToken
	}
	if cfg.tokenWhere == "" {
		cfg.tokenWhere = "the test"
	}
	if cfg.log == nil {
		cfg.log = log
	}
	server := h.NewServer()
	srv := httptest.NewUnstartedServer(httpHandler(server, cfg))
	srv.Config.ReadHeaderTimeout = readHeaderTimeout
	srv.Config.IdleTimeout = idleConnTimeout
	srv.Start()
	t.Cleanup(func() {
		srv.Close()
		for ss := range server.Sessions() { // the sessions raw requests left open
			_ = ss.Close()
		}
		h.Close()
	})
	return srv, h, server
}

func httpClient(t *testing.T, url, token string, opts *mcp.ClientOptions) (*mcp.ClientSession, error) {
	t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: url + "/mcp", HTTPClient: &http.Client{Transport: bearer{token}}, MaxRetries: -1}
	return mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v0"}, opts).Connect(t.Context(), tr, nil)
}

// call calls a tool on cs, fails the test on any error, and returns the
// result's structured content.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) map[string]any {
	t.Helper()
	return mcptest.OK(t.Context(), t, cs, name, args).M
}

func TestHTTPRequiresTheTokenAndAGoodHost(t *testing.T) {
	srv, _ := httpEnv(t)
	post := func(token, host string) int {
		req, _ := http.NewRequest("POST", srv.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
			// End the session this raw request opened.
			del, _ := http.NewRequest("DELETE", srv.URL+"/mcp", nil)
			del.Header.Set("Authorization", "Bearer "+testToken)
			del.Header.Set("Mcp-Session-Id", id)
			if r, err := http.DefaultClient.Do(del); err == nil {
				r.Body.Close()
			}
		}
		return resp.StatusCode
	}
	if code := post("", ""); code != http.StatusUnauthorized {
		t.Errorf("no token: %d", code)
	}
	if code := post("wrong-token-wrong-token", ""); code != http.StatusUnauthorized {
		t.Errorf("wrong token: %d", code)
	}
	if code := post(testToken, "evil.example"); code != http.StatusForbidden {
		t.Errorf("Host evil.example: %d", code)
	}
	if code := post(testToken, ""); code != http.StatusOK {
		t.Errorf("good token: %d", code)
	}
	if _, err := httpClient(t, srv.URL, "wrong-token-wrong-token", nil); err == nil {
		t.Error("a client with a wrong token connected")
	}
	// A live session id presented with another token is refused.
	cs, err := httpClient(t, srv.URL, testToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	req, _ := http.NewRequest("POST", srv.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", cs.ID())
	req.Header.Set("Authorization", "Bearer another-token-another-token")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("session id with another token: %d", resp.StatusCode)
	}
}

func TestHTTPWaitsProgressCancelAndTwoClients(t *testing.T) {
	srv, _ := httpEnv(t)
	progressed := make(chan struct{}, 1)
	a, err := httpClient(t, srv.URL, testToken, &mcp.ClientOptions{ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
		select {
		case progressed <- struct{}{}:
		default:
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := httpClient(t, srv.URL, testToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	cp := call(t, a, "create_pane", map[string]any{})
	pane := cp["paneId"].(string)
	call(t, a, "wait_for_text", map[string]any{"paneId": pane, "cursor": cp["cursor"], "patterns": []string{"[$#] $"}, "regex": true, "timeoutMs": 20000})

	// A wait that gets cancelled by its client.
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := a.CallTool(ctx, &mcp.CallToolParams{Name: "wait_for_text", Arguments: map[string]any{"paneId": pane, "patterns": []string{"never"}, "timeoutMs": 60000}, Meta: mcp.Meta{"progressToken": "p"}})
		done <- err
	}()
	select {
	case <-progressed:
	case <-time.After(20 * time.Second):
		t.Fatal("no progress over HTTP")
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("cancel did not end the call")
	}

	// Two clients wait on the same pane, from one cursor; both match.
	from := call(t, b, "capture_pane", map[string]any{"paneId": pane})["cursor"]
	var wg sync.WaitGroup
	results := make([]map[string]any, 2)
	for i, cs := range []*mcp.ClientSession{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "wait_for_text", Arguments: map[string]any{"paneId": pane, "cursor": from, "patterns": []string{"^BOTH-SEE-THIS$"}, "regex": true, "timeoutMs": 30000}})
			if err == nil && !res.IsError {
				results[i], _ = res.StructuredContent.(map[string]any)
			}
		}()
	}
	call(t, a, "type_text", map[string]any{"paneId": pane, "text": "echo BOTH-SEE-THIS", "submit": true})
	wg.Wait()
	for i, r := range results {
		if r == nil || r["outcome"] != "matched" {
			t.Errorf("client %d: %v", i, r)
		}
	}
}

func TestPaneResourceSubscriptions(t *testing.T) {
	srv, _ := httpEnv(t)
	updates := make(chan string, 100)
	cs, err := httpClient(t, srv.URL, testToken, &mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
		updates <- r.Params.URI
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	cp := call(t, cs, "create_pane", map[string]any{})
	pane := cp["paneId"].(string)
	call(t, cs, "wait_for_text", map[string]any{"paneId": pane, "cursor": cp["cursor"], "patterns": []string{"[$#] $"}, "regex": true, "timeoutMs": 20000})
	uri := "tmux://pane/" + strings.TrimPrefix(pane, "%")
	rr, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri})
	if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Meta["cursor"] == nil {
		t.Fatalf("read: %v %v", rr, err)
	}
	comp, err := cs.Complete(t.Context(), &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: "tmux://pane/{n}"}, Argument: mcp.CompleteParamsArgument{Name: "n", Value: ""}})
	if err != nil || len(comp.Completion.Values) == 0 {
		t.Fatalf("complete: %v %v", comp, err)
	}
	if err := cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	call(t, cs, "type_text", map[string]any{"paneId": pane, "text": "echo hello", "submit": true})
	select {
	case got := <-updates:
		if got != uri {
			t.Fatalf("update for %s", got)
		}
		t.Logf("resource update %v after the input", time.Since(start))
		// Generous for a loaded machine; a polling design would still miss it.
		if time.Since(start) > 2*time.Second {
			t.Errorf("update took %v", time.Since(start))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no resource update")
	}
	if err := cs.Unsubscribe(t.Context(), &mcp.UnsubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	for len(updates) > 0 {
		<-updates
	}
	time.Sleep(300 * time.Millisecond) // let coalesced updates already sent arrive
	for len(updates) > 0 {
		<-updates
	}
	call(t, cs, "type_text", map[string]any{"paneId": pane, "text": "echo again", "submit": true})
	select {
	case got := <-updates:
		t.Fatalf("update after unsubscribe: %s", got)
	case <-time.After(500 * time.Millisecond):
	}
}

func TestHTTPRefusesNonLoopbackWithoutAllowRemote(t *testing.T) {
	if _, err := parseFlags("tmuxmcp", []string{"--http", "0.0.0.0:8765"}, io.Discard); err == nil || !strings.Contains(err.Error(), "--allow-remote") {
		t.Fatalf("got %v", err)
	}
	if _, err := parseFlags("tmuxmcp", []string{"--http", "0.0.0.0:8765", "--allow-remote"}, io.Discard); err != nil {
		t.Fatal(err)
	}
}
