package tools

import (
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/engine"
)

func (s *Server) typeTextTool() Tool {
	in := object(map[string]*jsonschema.Schema{
		"paneId": paneID("Pane to type into, e.g. %1."),
		"text":   {Type: "string", MaxLength: ptr(engine.MaxTextBytes), Description: "Typed literally (no key names or escapes). Multi-line text goes as one bracketed paste; a REPL may still run it line by line (in Python, end indented blocks with an empty line)."},
		"submit": boolean("Press Enter after the text."),
	}, "paneId", "text")
	tool := &mcp.Tool{
		Name:  "type_text",
		Title: "Type text into a pane",
		Description: "Type literal text into a pane's program (a REPL, an editor, a question), optionally pressing Enter (submit). " +
			"Returns the cursor from before the input: wait_for_text from it (its echo never matches). Shell commands: run_shell_command; key names: send_keys.",
		InputSchema:  in,
		OutputSchema: inputOutSchema(),
		Annotations:  &mcp.ToolAnnotations{Title: "Type text into a pane", ReadOnlyHint: false, DestructiveHint: ptr(true), IdempotentHint: false, OpenWorldHint: ptr(true)},
	}
	return typed(s, tool, onHost(s, Host.TypeText))
}
