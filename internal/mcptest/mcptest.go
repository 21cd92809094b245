// Package mcptest calls tools on an MCP client session in tests and
// decodes their results, over whatever transport the session has (in
// memory, stdio, Streamable HTTP). It exists so the tests of every package
// share one way to call a tool, fail with a clear message, and read the
// result.
package mcptest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callTimeout bounds one tool call, so a call that never returns fails its
// test instead of hanging the run.
const callTimeout = 3 * time.Minute

// Result is a decoded tool result.
type Result struct {
	// IsError says the tool reported an error (isError); Text is then the
	// error message.
	IsError bool
	// Text is the result's text content, concatenated.
	Text string
	// M is the structured content of a successful result (nil for an error).
	M map[string]any
}

// Str returns the string at key k of the structured content ("" if absent
// or not a string).
func (r Result) Str(k string) string {
	s, _ := r.M[k].(string)
	return s
}

// Num returns the number at key k of the structured content (0 if absent
// or not a number).
func (r Result) Num(k string) int64 {
	f, _ := r.M[k].(float64)
	return int64(f)
}

// String shows the result in a failure message: the error text, or the
// structured content as JSON (cut at 2000 bytes).
func (r Result) String() string {
	if r.IsError {
		return "error: " + r.Text
	}
	b, _ := json.Marshal(r.M)
	if len(b) > 2000 {
		b = append(b[:2000], "…"...)
	}
	return string(b)
}

// Call calls the tool name with args on cs and decodes its result. A call
// that fails (a protocol error, not a tool error) fails the test.
func Call(ctx context.Context, t testing.TB, cs *mcp.ClientSession, name string, args map[string]any) Result {
	t.Helper()
	return CallParams(ctx, t, cs, &mcp.CallToolParams{Name: name, Arguments: args})
}

// CallParams is Call with the request given whole (with Meta, say a
// progress token, or the request state of a retried call).
func CallParams(ctx context.Context, t testing.TB, cs *mcp.ClientSession, p *mcp.CallToolParams) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	res, err := cs.CallTool(ctx, p)
	if err != nil {
		t.Fatalf("%s: %v", p.Name, err)
	}
	return Decode(t, res)
}

// OK is Call that also fails the test when the tool reports an error.
func OK(ctx context.Context, t testing.TB, cs *mcp.ClientSession, name string, args map[string]any) Result {
	t.Helper()
	r := Call(ctx, t, cs, name, args)
	if r.IsError {
		t.Fatalf("%s(%v): %s", name, args, r.Text)
	}
	return r
}

// Decode decodes a tool result: its text, whether it is an error and, when
// it is not, its structured content as a map. Structured content that is
// not a JSON object fails the test.
func Decode(t testing.TB, res *mcp.CallToolResult) Result {
	t.Helper()
	r := Result{IsError: res.IsError}
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			r.Text += tc.Text
		}
	}
	if !res.IsError {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &r.M); err != nil {
			t.Fatalf("structured content: %v", err)
		}
	}
	return r
}
