package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/tools"
)

// waitWatchers waits for h to have want resource watchers.
func waitWatchers(t *testing.T, h *tools.Server, want int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for h.Watchers() != want {
		if time.Now().After(deadline) {
			t.Fatalf("%d resource watchers, want %d", h.Watchers(), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Session B unsubscribing from a pane it never subscribed to, or going
// away, leaves session A's subscription alone; A going away drops the
// pane's watcher.
func TestSubscriptionsBelongToTheirSession(t *testing.T) {
	t.Parallel()
	srv, h := httpEnv(t)
	client := func(updates chan string) *mcp.ClientSession {
		cs, err := httpClient(t, srv.URL, testToken, &mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			select {
			case updates <- r.Params.URI:
			default:
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	aUpdates, bUpdates := make(chan string, 100), make(chan string, 100)
	a, b := client(aUpdates), client(bUpdates)
	defer b.Close()
	cp := call(t, a, "create_pane", map[string]any{})
	pane := cp["paneId"].(string)
	call(t, a, "wait_for_text", map[string]any{"paneId": pane, "cursor": cp["cursor"], "patterns": []string{"[$#] $"}, "regex": true, "timeoutMs": 20000})
	uri := "tmux://pane/" + strings.TrimPrefix(pane, "%")
	if err := a.Subscribe(t.Context(), &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	updated := func(why string) {
		t.Helper()
		for len(aUpdates) > 0 {
			<-aUpdates
		}
		call(t, a, "type_text", map[string]any{"paneId": pane, "text": "echo still-subscribed", "submit": true})
		select {
		case got := <-aUpdates:
			if got != uri {
				t.Fatalf("update for %s", got)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("session A got no update after %s", why)
		}
	}
	if err := b.Unsubscribe(t.Context(), &mcp.UnsubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	updated("session B unsubscribed from a pane it never subscribed to")
	if err := b.Subscribe(t.Context(), &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	waitWatchers(t, h, 1) // one watcher for the pane, whoever subscribed
	if err := b.Close(); err != nil {
		t.Logf("close b: %v", err)
	}
	updated("session B subscribed and went away")
	waitWatchers(t, h, 1)
	if err := a.Close(); err != nil {
		t.Logf("close a: %v", err)
	}
	waitWatchers(t, h, 0) // the last subscriber went away without unsubscribing
}
