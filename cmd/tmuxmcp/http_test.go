package main

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/engine"
	"github.com/tmuxmcp/tmuxmcp/httpmcp"
	"github.com/tmuxmcp/tmuxmcp/internal/leaktest"
	"github.com/tmuxmcp/tmuxmcp/internal/mcptest"
	"github.com/tmuxmcp/tmuxmcp/internal/tmuxtest"
	"github.com/tmuxmcp/tmuxmcp/tmux"
	"github.com/tmuxmcp/tmuxmcp/tools"
)

func TestMain(m *testing.M) {
	tmux.RelayMain() // panes' output comes raw through this binary
	// Every result the binary serves in these tests is checked against its
	// tool's output schema.
	_ = os.Setenv("TMUXMCP_CHECK_RESULTS", "1")
	readGoCaches()
	// tmuxtest.Main, and the binary's directory removed at the end.
	cleanup := tmuxtest.Hermetic()
	code := leaktest.Run(m)
	if binary.dir != "" {
		_ = os.RemoveAll(binary.dir)
	}
	cleanup()
	os.Exit(code)
}

const testToken = "0123456789abcdef0123456789abcdef"

// httpEnv serves a real tmux-backed server over httpmcp with testToken.
func httpEnv(t *testing.T) (*httptest.Server, *tools.Server) {
	t.Helper()
	target := tmuxtest.Server(t, "agent", 120, 40)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	local, err := engine.OpenHost(ctx, engine.Config{Target: target, Log: log, Session: "agent", StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	h := tools.New(tools.Engine(engine.NewHosts(local)), tools.Options{Version: "test", CheckResults: true})
	server := h.NewServer()
	srv := httptest.NewUnstartedServer(httpmcp.Handler(server, httpmcp.Config{Token: testToken, TokenWhere: "the test", SessionTimeout: time.Minute, Log: log}))
	srv.Config.ReadHeaderTimeout = httpmcp.ReadHeaderTimeout
	srv.Config.IdleTimeout = httpmcp.IdleConnTimeout
	srv.Start()
	t.Cleanup(func() {
		srv.Close()
		for ss := range server.Sessions() { // the sessions raw requests left open
			_ = ss.Close()
		}
		h.Close()
		local.Close()
	})
	return srv, h
}

func httpClient(t *testing.T, url, token string, opts *mcp.ClientOptions) (*mcp.ClientSession, error) {
	t.Helper()
	return mcptest.ConnectHTTP(t.Context(), url, token, opts)
}

// call calls a tool on cs, fails the test on any error, and returns the
// result's structured content.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) map[string]any {
	t.Helper()
	return mcptest.OK(t.Context(), t, cs, name, args).M
}

func TestHTTPWaitsProgressCancelAndTwoClients(t *testing.T) {
	t.Parallel()
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
	// Not parallel: it bounds how long a resource update takes (2 s), which
	// other tests' load would stretch.
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
