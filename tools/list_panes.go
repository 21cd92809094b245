package tools

import (
	"context"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/engine"
)

func (s *Server) listPanesTool() Tool {
	in := object(map[string]*jsonschema.Schema{
		"session": {Type: "string", MinLength: ptr(1), Description: "Only panes of this session (name). Default: every session of the server."},
		"host":    everyHostSchema(),
	})
	pane := outputObject(map[string]*jsonschema.Schema{
		"paneId":         paneID("Stable pane id: pass it to every other tool."),
		"host":           str("The host the pane is on: local, or a --host name. Pass it as host with the paneId to every other tool."),
		"session":        str("Session name."),
		"sessionId":      str("Session id, e.g. $0."),
		"windowId":       str("Window id, e.g. @1."),
		"windowIndex":    count("Window index in its session."),
		"window":         str("Window name."),
		"title":          str("Pane title (set by the program)."),
		"currentCommand": str("Foreground program, e.g. bash, python3, vim."),
		"pid":            count("Process id of the pane's first program (usually its shell)."),
		"cwd":            str("Current directory of the pane's foreground program."),
		"width":          count("Columns."),
		"height":         count("Rows."),
		"active":         boolean("The active pane of its window."),
		"dead":           boolean("The program exited; the pane is kept by remain-on-exit."),
		"deadStatus":     nullable(integer("Exit status of a dead pane's program, or null.", -1, 255)),
		"attended":       boolean("A person's tmux client is showing this pane's window now: type with care."),
		"inCopyMode":     boolean("The pane is in copy mode; input tools refuse it."),
		"cursor":         nullable(cursorSchema("The pane's current stream position (wait_for_text from it), or null if it is not being recorded.")),
		"sandbox":        sandboxSchema(),
		"person":         nullable(&jsonschema.Schema{Type: "string", Enum: []any{"took", "asked"}, Description: "A person has the pane: took (they took it with the hand-off key, prefix T) or asked (ask_person asked for them); tools that type into it refuse until they give it back. null: the agent may type."}),
		"ingest":         {Type: "string", Enum: []any{"pipe", "control"}, Description: "How output is read: pipe (raw) or control (%output: piped by another program, remote, --ingest control, or for a moment while tmuxmcp starts reading a new pane)."},
	})
	out := outputObject(map[string]*jsonschema.Schema{
		"panes":      {Type: "array", Items: pane, Description: "Every pane, in session, window and pane order (host by host, local first)."},
		"hostErrors": hostErrorsSchema(),
		"serverNote": serverNoteSchema(),
	})
	tool := &mcp.Tool{
		Name:         "list_panes",
		Title:        "List panes",
		Description:  "List every tmux pane (on each --host too: pass its host with the paneId to other tools): paneId, session, window, program, directory, size, dead, attended (a person is watching), a cursor to wait from.",
		InputSchema:  in,
		OutputSchema: out,
		Annotations:  &mcp.ToolAnnotations{Title: "List panes", ReadOnlyHint: true, DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)},
	}
	return typed(s, tool, func(ctx context.Context, c engine.Caller, in *engine.ListPanesRequest) (*engine.ListPanesResult, error) {
		return s.hosts.ListPanes(ctx, c, in)
	})
}
