package tools

import (
	"context"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/engine"
	"github.com/tmuxmcp/tmuxmcp/jobs"
)

func (s *Server) listCommandsTool() Tool {
	in := object(map[string]*jsonschema.Schema{
		"status": enum("Only jobs with this status.", names(jobs.Statuses())...),
		"limit":  withDefault(integer("At most this many jobs, newest first.", 1, 1000), 50),
		"host":   everyHostSchema(),
	})
	item := outputObject(map[string]*jsonschema.Schema{
		"jobId":      str("Pass to await_command_result or cancel_command."),
		"status":     enum("The job's status.", names(jobs.Statuses())...),
		"command":    str("The command (first 200 bytes)."),
		"paneId":     paneID("Where it runs."),
		"host":       str("The host of its pane: local, or a --host name."),
		"exitCode":   nullable(integer("Exit status, or null.", 0, 255)),
		"created":    str("When it was submitted (RFC 3339)."),
		"durationMs": count("How long it ran (so far)."),
	})
	tool := &mcp.Tool{
		Name:         "list_commands",
		Title:        "List commands",
		Description:  "List jobs from run_shell_command (also from before a tmuxmcp restart), newest first, with status and exit code: to find a lost jobId.",
		InputSchema:  in,
		OutputSchema: outputObject(map[string]*jsonschema.Schema{"commands": {Type: "array", Items: item, Description: "Jobs, newest first (of every host unless host is given)."}, "hostErrors": hostErrorsSchema()}),
		Annotations:  &mcp.ToolAnnotations{Title: "List commands", ReadOnlyHint: true, DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)},
	}
	return typed(s, tool, func(ctx context.Context, c engine.Caller, in *engine.ListCommandsRequest) (*engine.ListCommandsResult, error) {
		return s.hosts.ListCommands(ctx, c, in)
	})
}
