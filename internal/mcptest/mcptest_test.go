package mcptest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/internal/leaktest"
)

func TestMain(m *testing.M) { leaktest.Main(m) }

type echoIn struct {
	Say  string `json:"say"`
	Fail bool   `json:"fail,omitempty"`
}

type echoOut struct {
	Said  string `json:"said"`
	Count int    `json:"count"`
}

// session connects a client in memory to a server with one tool, echo,
// which returns what it is told to say or fails as asked.
func session(t *testing.T) *mcp.ClientSession {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, echoOut, error) {
		if in.Fail {
			return nil, echoOut{}, errors.New("told to fail")
		}
		return nil, echoOut{Said: in.Say, Count: len(in.Say)}, nil
	})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := server.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v0"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Close()
	})
	return cs
}

func TestAResultIsDecodedToItsStructuredContent(t *testing.T) {
	cs := session(t)
	r := OK(t.Context(), t, cs, "echo", map[string]any{"say": "hello"})
	if r.IsError || r.Str("said") != "hello" || r.Num("count") != 5 || !strings.Contains(r.String(), `"said":"hello"`) {
		t.Fatalf("got %v (text %q)", r, r.Text)
	}
	if r.Str("count") != "" || r.Num("said") != 0 || r.Str("absent") != "" {
		t.Fatalf("a key of another type or none reads as zero: %v", r)
	}
}

func TestAToolErrorIsAResultWithItsText(t *testing.T) {
	cs := session(t)
	r := Call(t.Context(), t, cs, "echo", map[string]any{"say": "x", "fail": true})
	if !r.IsError || !strings.Contains(r.Text, "told to fail") || r.M != nil || r.String() != "error: "+r.Text {
		t.Fatalf("got %v", r)
	}
}
