package tools

import (
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/engine"
)

func (s *Server) awaitCommandResultTool() Tool {
	in := object(map[string]*jsonschema.Schema{
		"jobId":       {Type: "string", MinLength: ptr(1), Description: "The jobId run_shell_command returned."},
		"waitMs":      withDefault(integer("How long to wait for the end before returning the current state.", 0, engine.MaxWaitMs), engine.DefaultWaitMs),
		"cursor":      cursorSchema("A cursor from an earlier result of this job or a wait on its pane: output then holds only what the command printed after it."),
		"outputLimit": integer("Bytes of output returned (head and tail); default: the job's outputLimit.", engine.MinOutputLimit, engine.MaxOutputLimit),
	}, "jobId")
	tool := &mcp.Tool{
		Name:  "await_command_result",
		Title: "Wait for a command's result",
		Description: "Keep waiting for a job from run_shell_command and get its status, exitCode and output; it never runs anything again, also after a tmuxmcp restart. " +
			"Returns early when the job's program waits for input (waitingForInput). Pass the cursor of the last result as cursor to get only new output.",
		InputSchema:  in,
		OutputSchema: jobOutSchema(),
		Annotations:  &mcp.ToolAnnotations{Title: "Wait for a command's result", ReadOnlyHint: true, DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)},
	}
	return typed(s, tool, onHost(s, Host.AwaitCommandResult))
}
