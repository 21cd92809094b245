package tools

import (
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/engine"
)

func (s *Server) askPersonTool() Tool {
	in := object(map[string]*jsonschema.Schema{
		"paneId":    paneID("Pane the person should use, e.g. %1."),
		"message":   {Type: "string", MaxLength: ptr(engine.MaxPersonMessage), Description: "What they should do, in a sentence, e.g. \"type the sudo password\"."},
		"timeoutMs": integer("Wait at most this long (default 300000). On timeout they keep the pane: call again to wait on.", 1, maxSafeInt),
		"withdraw":  boolean("Take back a pane you asked for (no message needed)."),
	}, "paneId")
	out := outputObject(map[string]*jsonschema.Schema{
		"paneId":         paneID("The pane."),
		"outcome":        {Type: "string", Enum: []any{"given_back", "timeout", "withdrawn", "pane_gone"}, Description: "given_back: yours again. timeout: still theirs (call again, or withdraw). withdrawn. pane_gone: it closed."},
		"shownTo":        count("Terminals that showed the message (0: nobody attached; tell the user in your reply)."),
		"output":         str("What the pane printed meanwhile (plain text)."),
		"cursor":         nullable(cursorSchema("The end of output.")),
		"missedBytes":    count("Output evicted unread: non-zero means output is incomplete."),
		"remainingBytes": count("Output after cursor not returned: read it with capture_since."),
		"streamFailure":  streamFailureSchema(),
	})
	tool := &mcp.Tool{
		Name:  "ask_person",
		Title: "Hand a pane to a person",
		Description: "Hand a pane to a person (a password, a 2FA code, anything you must not type) and wait until they give it back with prefix T. " +
			"They see message in their status line; meanwhile tools that type into the pane refuse it. Result: outcome, and what the pane printed (never what they typed unechoed).",
		InputSchema:  in,
		OutputSchema: out,
		Annotations:  &mcp.ToolAnnotations{Title: "Hand a pane to a person", ReadOnlyHint: false, DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(true)},
	}
	return typed(s, tool, onHost(s, Host.AskPerson))
}
