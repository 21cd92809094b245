package tools

import (
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/engine"
)

func (s *Server) askPersonTool() Tool {
	in := object(map[string]*jsonschema.Schema{
		"paneId":    paneID("Pane the person should use, e.g. %1."),
		"message":   {Type: "string", MaxLength: ptr(engine.MaxPersonMessage), Description: "What the person should do there, in a sentence (shown in their status line), e.g. \"type the sudo password, then press prefix T\"."},
		"timeoutMs": integer("How long to wait for the pane back (default 300000, capped by the server's wait ceiling). On timeout the person keeps the pane: call again to wait on.", 1, maxSafeInt),
		"withdraw":  boolean("Take back a pane you asked for without a person (the request lapses; no message needed)."),
	}, "paneId")
	out := outputObject(map[string]*jsonschema.Schema{
		"paneId":         paneID("The pane."),
		"outcome":        {Type: "string", Enum: []any{"given_back", "timeout", "withdrawn", "pane_gone"}, Description: "given_back: the person pressed prefix T, the pane takes input again. timeout: they still have it (call again to wait on, or withdraw). withdrawn: you took it back. pane_gone: it closed."},
		"shownTo":        count("How many people's terminals showed the message (0: nobody is attached to that session now; tell the user in your reply)."),
		"output":         str("What the pane printed while the person had it (plain text). What they typed with echo off, such as a password, is never in it."),
		"cursor":         nullable(cursorSchema("The end of output: wait_for_text or capture_since from it.")),
		"missedBytes":    count("Output evicted before it was read: non-zero means output is incomplete."),
		"remainingBytes": count("Output after cursor not returned (the result ceiling): read it with capture_since."),
		"streamFailure":  streamFailureSchema(),
	})
	tool := &mcp.Tool{
		Name:  "ask_person",
		Title: "Hand a pane to a person",
		Description: "Hand a pane to a person and wait until they give it back: for a password, a 2FA code, a login in a browser, anything you must not or cannot type. " +
			"They see your message in their tmux status line; while they have the pane, run_shell_command, type_text and send_keys refuse it (reads go on). They give it back with prefix T (the same key takes a pane from you). " +
			"Result: outcome, and what the pane printed meanwhile (never what they typed with echo off).",
		InputSchema:  in,
		OutputSchema: out,
		Annotations:  &mcp.ToolAnnotations{Title: "Hand a pane to a person", ReadOnlyHint: false, DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(true)},
	}
	return typed(s, tool, onHost(s, Host.AskPerson))
}
