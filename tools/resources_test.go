package tools

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// resources/list shows the live panes by name; a new pane is added and a
// killed one removed, each with a list_changed notification.
func TestResourcesListTheLivePanes(t *testing.T) {
	t.Parallel()
	changed := make(chan struct{}, 100)
	e := newEnv(t, envOptions{client: &mcp.ClientOptions{ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {
		select {
		case changed <- struct{}{}:
		default:
		}
	}}})
	listed := func() map[string]*mcp.Resource {
		t.Helper()
		res, err := e.cs.ListResources(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]*mcp.Resource{}
		for _, r := range res.Resources {
			m[r.Name] = r
		}
		return m
	}
	// until waits for the list to satisfy ok, woken by list_changed.
	until := func(what string, ok func(map[string]*mcp.Resource) bool) map[string]*mcp.Resource {
		t.Helper()
		deadline := time.After(20 * time.Second)
		for {
			if m := listed(); ok(m) {
				return m
			}
			select {
			case <-changed:
			case <-deadline:
				t.Fatalf("resources/list never %s: %v", what, listed())
			}
		}
	}
	pane, _ := e.shell(t)
	m := until("listed the new pane", func(m map[string]*mcp.Resource) bool { return m[pane] != nil })
	r := m[pane]
	if r.URI != "tmux://pane/"+strings.TrimPrefix(pane, "%") || r.MIMEType != "text/plain" || !strings.HasPrefix(r.Title, "agent:") {
		t.Fatalf("the pane's resource: %+v", r)
	}
	rr, err := e.cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: r.URI})
	if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Meta["cursor"] == nil {
		t.Fatalf("reading the listed resource: %v %v", rr, err)
	}
	e.ok(t, "kill_pane", map[string]any{"paneId": pane})
	until("dropped the killed pane", func(m map[string]*mcp.Resource) bool { return m[pane] == nil })
}
