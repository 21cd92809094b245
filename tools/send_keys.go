package tools

import (
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/engine"
)

func (s *Server) sendKeysTool() Tool {
	in := object(map[string]*jsonschema.Schema{
		"paneId": paneID("Pane to send keys to, e.g. %1."),
		"keys": {Type: "array", MinItems: ptr(1), MaxItems: ptr(engine.MaxKeys), Items: &jsonschema.Schema{Type: "string", MinLength: ptr(1), MaxLength: ptr(engine.MaxKeyLength)},
			Description: "Keys in order, each a tmux key name (Enter, Escape, Tab, BTab, BSpace, Space, Up, Down, Left, Right, Home, End, PageUp, PageDown, IC, DC, F1..F12), C-a..C-z, M-x (Alt), S- or C- with a key (S-Left), 0x41 (one character by hex), or text, typed as is. Another spelling (Return, Esc) is an error naming the right one."},
	}, "paneId", "keys")
	tool := &mcp.Tool{
		Name:  "send_keys",
		Title: "Send keys to a pane",
		Description: "Send key presses to a pane (C-c interrupts, q quits a pager). " +
			"Returns the cursor from before the keys. For text use type_text.",
		InputSchema:  in,
		OutputSchema: inputOutSchema(),
		Annotations:  &mcp.ToolAnnotations{Title: "Send keys to a pane", ReadOnlyHint: false, DestructiveHint: ptr(true), IdempotentHint: false, OpenWorldHint: ptr(true)},
	}
	return typed(s, tool, onHost(s, Host.SendKeys))
}
