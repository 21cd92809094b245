package tools

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/asciicast"
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

// A pane's recording is a resource a person saves and plays with
// asciinema: it parses as asciicast v2 and marks the agent's command.
func TestAPanesRecordingIsAResource(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	e.ok(t, "run_shell_command", map[string]any{"paneId": pane, "command": "echo replayed-$((6*7))"})
	uri := "tmux://pane/" + strings.TrimPrefix(pane, "%") + "/recording.cast"
	rr, err := e.cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri})
	if err != nil || len(rr.Contents) != 1 {
		t.Fatalf("reading %s: %v %v", uri, rr, err)
	}
	c := rr.Contents[0]
	hdr, ev, err := asciicast.Read(strings.NewReader(c.Text))
	if err != nil || c.MIMEType != "application/x-asciicast" || hdr.Width < 1 {
		t.Fatalf("the recording (%s) does not parse: %v\n%s", c.MIMEType, err, c.Text)
	}
	var out strings.Builder
	marked := false
	for _, e := range ev {
		marked = marked || (e.Code == asciicast.Marker && e.Data == "$ echo replayed-$((6*7))")
		if e.Code == asciicast.Output {
			out.WriteString(e.Data)
		}
	}
	if !marked || !strings.Contains(out.String(), "replayed-42\r\n") || c.Meta["commands"] != float64(1) {
		t.Fatalf("the command is not marked, or its output is missing (meta %v):\n%s", c.Meta, c.Text)
	}
	if _, err := e.cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "tmux://pane/99999/recording.cast"}); err == nil {
		t.Fatal("the recording of a pane that does not exist was read")
	}
}
