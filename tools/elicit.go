package tools

import (
	"context"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/approval"
	"github.com/tmuxmcp/tmuxmcp/audit"
)

// elicitation is an approval asked through the MCP client, bound to the
// exact request it is for.
type elicitation = approval.Elicitation

// reviewRoute picks how to ask a person: "tmux" (popups on attached
// clients and the approver program, racing), "elicitation" or "".
func (h *Handlers) reviewRoute(ctx context.Context, req *mcp.CallToolRequest) string {
	for _, via := range h.opts.ApprovalVia {
		switch via {
		case "exec":
			if h.opts.Approver != "" {
				return "tmux"
			}
		case "tmux":
			if len(h.humanClients(ctx)) > 0 {
				return "tmux"
			}
		case "elicitation":
			if req != nil {
				if caps := req.ClientCapabilities(); caps != nil && caps.Elicitation != nil {
					return "elicitation"
				}
			}
		}
	}
	return ""
}

// elicitAnswered reports whether req carries an answer to an earlier
// elicitation.
func elicitAnswered(req *mcp.CallToolRequest) bool {
	return req != nil && req.Params != nil && req.Params.RequestState != ""
}

// askClient returns the input request that asks the client's user to
// approve e on this Handlers' host, remembering it under a fresh request
// state.
func (h *Handlers) askClient(e elicitation, reason string) error {
	e.Host = h.opts.Host
	state := h.elicits.Open(e, h.opts.ReviewTimeout)
	msg := approval.Text(approval.Request{Pane: e.Pane, Host: e.Host, Program: e.Program, CWD: e.CWD, Command: e.Command, Reason: reason})
	return &inputRequired{res: &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{
			"approval": &mcp.ElicitParams{
				Message: msg,
				RequestedSchema: &jsonschema.Schema{
					Type: "object",
					Properties: map[string]*jsonschema.Schema{
						"approve": {Type: "boolean", Description: "Run this command"},
					},
					Required: []string{"approve"},
				},
			},
		},
		RequestState: state,
	}}
}

// elicitDecision checks the answer in req against the request it was
// asked for, on this Handlers' host, and returns approved or denied.
func (h *Handlers) elicitDecision(req *mcp.CallToolRequest, want elicitation) (approval.Decision, error) {
	want.Host = h.opts.Host
	got, ok := h.elicits.Take(req.Params.RequestState) // an answer is used once
	if !ok {
		h.audit(audit.Event{Event: "decision", Tool: "run_shell_command", PaneID: want.Pane, Command: want.Command, Decision: string(approval.DeniedTimeout), DecidedBy: "elicitation"})
		return "", errorf("denied-timeout: the approval answer came after the review timeout, or belongs to no open request (already used, or from before a restart), so nothing ran. Tell the user; do not resubmit the command automatically")
	}
	if !got.Matches(want) {
		return "", errorf("the approval answer was given for another command (%q), not this one: nothing ran. An approval cannot be moved to another command; call again to ask for this one", truncate(approval.Visible(got.Command), 60))
	}
	res, _ := req.Params.InputResponses["approval"].(*mcp.ElicitResult)
	if res != nil && res.Action == "accept" && res.Content["approve"] == true {
		return approval.Approved, nil
	}
	return approval.Denied, nil
}
