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
		Description:  "Close a pane and kill its programs (a window closes with its last pane); its output stays readable from a cursor you have. Refuses tmuxmcp's own pane; check attended in list_panes before closing a pane a person may use.",
		InputSchema:  in,
		OutputSchema: out,
		Annotations:  &mcp.ToolAnnotations{Title: "Kill a pane", ReadOnlyHint: false, DestructiveHint: ptr(true), IdempotentHint: false, OpenWorldHint: ptr(false)},
	}
	return typed(s, tool, onHost(s, Host.KillPane))
}
