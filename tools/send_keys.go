package tools

import (
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/engine"
	"github.com/tmuxmcp/tmuxmcp/input"
)

func (s *Server) sendKeysTool() Tool {
	in := object(map[string]*jsonschema.Schema{
		"paneId": paneID("Pane to send keys to, e.g. %1."),
		"keys": {Type: "array", MinItems: ptr(1), MaxItems: ptr(engine.MaxKeys), Items: &jsonschema.Schema{Type: "string", MinLength: ptr(1), MaxLength: ptr(engine.MaxKeyLength)},
			Description: "Keys sent in order, each one of: " + input.Accepted + ". A spelling outside these (Return, Esc, 0xdg, ^C-m, mouse keys) is an error that names the one to use."},
	}, "paneId", "keys")
	tool := &mcp.Tool{
		Name:  "send_keys",
		Title: "Send keys to a pane",
		Description: "Send key presses to a pane: C-c to interrupt, C-d, Escape, Enter, arrows, PageDown, q to quit a pager, function keys. " +
			"Returns the stream cursor from before the keys. A spelling tmux does not know is an error naming the right one. For text use type_text. " +
			"Under a command policy, keys that may run the line are judged first; a line changed with editing keys cannot be: C-c, then type_text the whole command.",
		InputSchema:  in,
		OutputSchema: inputOutSchema(),
		Annotations:  &mcp.ToolAnnotations{Title: "Send keys to a pane", ReadOnlyHint: false, DestructiveHint: ptr(true), IdempotentHint: false, OpenWorldHint: ptr(true)},
	}
	return typed(s, tool, onHost(s, Host.SendKeys))
}
