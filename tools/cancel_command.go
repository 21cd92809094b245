package tools

import (
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func (s *Server) cancelCommandTool() Tool {
	in := object(map[string]*jsonschema.Schema{
		"jobId": {Type: "string", MinLength: ptr(1), Description: "The jobId of the running command to stop."},
	}, "jobId")
	tool := &mcp.Tool{
		Name:         "cancel_command",
		Title:        "Cancel a running command",
		Description:  "Stop a job from run_shell_command: C-c, then SIGTERM, then SIGKILL to its foreground program; the shell stays. Returns once the shell is back at its prompt: status interrupted (exitCode, signal), or as it ended if it ended by itself.",
		InputSchema:  in,
		OutputSchema: jobOutSchema(),
		Annotations:  &mcp.ToolAnnotations{Title: "Cancel a running command", ReadOnlyHint: false, DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)},
	}
	return typed(s, tool, onHost(s, Host.CancelCommand))
}
