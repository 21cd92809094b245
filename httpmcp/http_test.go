package httpmcp

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/internal/leaktest"
	"github.com/tmuxmcp/tmuxmcp/internal/mcptest"
)

func TestMain(m *testing.M) { leaktest.Main(m) }

const testToken = "0123456789abcdef0123456789abcdef"

// waitArgs and waitResult are the test wait's input and output.
type (
	waitArgs struct {
		TimeoutMS int `json:"timeoutMs"`
	}
	waitResult struct {
		Outcome string `json:"outcome"`
	}
)

// testServer is an MCP server with two tools standing in for a real
// server's: echo answers at once, and wait, like a long wait, blocks
// until its timeoutMs passes ("timed_out") or its call is cancelled
// ("cancelled"), sending progress while it waits when asked to.
func testServer() *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "httpmcp-test", Version: "v0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "answers with its text"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	mcp.AddTool(server, &mcp.Tool{Name: "wait", Description: "blocks until timeoutMs passes or the call is cancelled"}, func(ctx context.Context, req *mcp.CallToolRequest, in waitArgs) (*mcp.CallToolResult, waitResult, error) {
		timeout := time.NewTimer(time.Duration(in.TimeoutMS) * time.Millisecond)
		defer timeout.Stop()
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for n := 1.0; ; n++ {
			select {
			case <-timeout.C:
				return nil, waitResult{Outcome: "timed_out"}, nil
			case <-ctx.Done():
				return nil, waitResult{Outcome: "cancelled"}, nil
			case <-tick.C:
				if token := req.Params.GetProgressToken(); token != nil {
					_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: n})
				}
			}
		}
	})
	return server
}

// httpEnvWith serves a test server with cfg (its token is testToken
// unless cfg has one) and returns the *mcp.Server too.
func httpEnvWith(t *testing.T, cfg Config) (*httptest.Server, *mcp.Server) {
	t.Helper()
	if cfg.Token == "" {
		cfg.Token = testToken
	}
	if cfg.TokenWhere == "" {
		cfg.TokenWhere = "the test"
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	server := testServer()
	srv := httptest.NewUnstartedServer(Handler(server, cfg))
	srv.Config.ReadHeaderTimeout = ReadHeaderTimeout
	srv.Config.IdleTimeout = IdleConnTimeout
	srv.Start()
	t.Cleanup(func() {
		srv.Close()
		for ss := range server.Sessions() { // the sessions raw requests left open
			_ = ss.Close()
		}
	})
	return srv, server
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

func TestHTTPRequiresTheTokenAndAGoodHost(t *testing.T) {
	srv, _ := httpEnvWith(t, Config{SessionTimeout: time.Minute})
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

// A long call's progress streams to its client through the guard and the
// session cap, and the client's cancel ends it.
func TestHTTPStreamsProgressAndCancelsALongCall(t *testing.T) {
	srv, _ := httpEnvWith(t, Config{SessionTimeout: time.Minute})
	progressed := make(chan struct{}, 1)
	cs, err := httpClient(t, srv.URL, testToken, &mcp.ClientOptions{ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
		select {
		case progressed <- struct{}{}:
		default:
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{"timeoutMs": 60000}, Meta: mcp.Meta{"progressToken": "p"}})
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
	if r := mcptest.OK(t.Context(), t, cs, "echo", map[string]any{"text": "after"}); r.Text != "after" {
		t.Errorf("a call after the cancel: %v", r)
	}
}
