package tools

import (
	"context"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/engine"
)

// mcpCaller is an MCP tool call as the engine sees its caller: its
// progress token, its client's elicitation capability and the answer it
// carries to an earlier question.
type mcpCaller struct{ req *mcp.CallToolRequest }

// Progress sends a progress notification when the call asked for them.
func (c mcpCaller) Progress(ctx context.Context, done, total float64, message string) {
	if !c.WantsProgress() {
		return
	}
	_ = c.req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
		ProgressToken: c.req.Params.GetProgressToken(),
		Progress:      done,
		Total:         total,
		Message:       message,
	})
}

// WantsProgress reports whether the call carries a progress token.
func (c mcpCaller) WantsProgress() bool {
	return c.req != nil && c.req.Params != nil && c.req.Session != nil && c.req.Params.GetProgressToken() != nil
}

// CanAsk reports whether the client can elicit.
func (c mcpCaller) CanAsk() bool {
	if c.req == nil || c.req.Session == nil {
		return false
	}
	caps := c.req.ClientCapabilities()
	return caps != nil && caps.Elicitation != nil
}

// Answer is the approval answer the call carries (MCP's multi-round-trip
// request state and input responses).
func (c mcpCaller) Answer() (state string, approved, ok bool) {
	if c.req == nil || c.req.Params == nil || c.req.Params.RequestState == "" {
		return "", false, false
	}
	res, _ := c.req.Params.InputResponses["approval"].(*mcp.ElicitResult)
	approved = res != nil && res.Action == "accept" && res.Content["approve"] == true
	return c.req.Params.RequestState, approved, true
}

// askResult is the result that asks the client's user to approve a
// command: the client answers the input request and calls again.
func askResult(a *engine.ClientAsk) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{
			"approval": &mcp.ElicitParams{
				Message: a.Message,
				RequestedSchema: &jsonschema.Schema{
					Type: "object",
					Properties: map[string]*jsonschema.Schema{
						"approve": {Type: "boolean", Description: "Run this command"},
					},
					Required: []string{"approve"},
				},
			},
		},
		RequestState: a.State,
	}
}
