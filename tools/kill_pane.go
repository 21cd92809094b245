package tools

import (
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func (s *Server) killPaneTool() Tool {
	in := object(map[string]*jsonschema.Schema{
		"paneId": paneID("Pane to close, e.g. %3."),
	}, "paneId")
	out := outputObject(map[string]*jsonschema.Schema{
		"paneId": paneID("The pane closed."),
		"killed": boolean("Always true: the pane and its programs are gone."),
	})
	tool := &mcp.Tool{
		Name:         "kill_pane",
		Title:        "Kill a pane",
		Description:  "Close a pane and kill its programs (its window closes with its last pane). Its output stays readable with capture_since from a cursor you have. Refuses the pane tmuxmcp runs in; check list_panes (attended) before closing a pane a person may be using.",
		InputSchema:  in,
		OutputSchema: out,
		Annotations:  &mcp.ToolAnnotations{Title: "Kill a pane", ReadOnlyHint: false, DestructiveHint: ptr(true), IdempotentHint: false, OpenWorldHint: ptr(false)},
	}
	return typed(s, tool, onHost(s, Host.KillPane))
}
