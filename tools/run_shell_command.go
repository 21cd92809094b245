package tools

import (
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/engine"
)

func (s *Server) runShellCommandTool() Tool {
	in := object(map[string]*jsonschema.Schema{
		"command":     {Type: "string", MinLength: ptr(1), MaxLength: ptr(engine.MaxCommandBytes), Description: "Shell text, as you would type it; multi-line scripts, quotes, tabs and unicode arrive intact."},
		"paneId":      paneID("Run in this pane's shell (its state persists; a shell still starting is waited for). Omit: a fresh pane, left dead a while to show people its end."),
		"cwd":         {Type: "string", MinLength: ptr(1), Description: "Absolute directory to run in. In a given pane this is a cd that persists."},
		"timeoutMs":   integer("Interrupt (C-c, then kill) the command after this long: status timed_out. Default: no limit.", 1, engine.MaxJobTimeoutMs),
		"waitMs":      withDefault(integer("How long to wait for the end before returning status running and a jobId.", 0, engine.MaxWaitMs), engine.DefaultWaitMs),
		"outputLimit": withDefault(integer("Bytes of output returned (head and tail); outputFile has all.", engine.MinOutputLimit, engine.MaxOutputLimit), engine.DefaultOutputLimit),
		"requestId":   {Type: "string", Pattern: engine.RequestIDPattern.String(), Description: "Names the request: a retry with it returns the first call's job, never a second run."},
		"reason":      {Type: "string", MaxLength: ptr(1000), Description: "One sentence on why this command is needed, shown to the person approving it."},
		"description": {Type: "string", MaxLength: ptr(200), Description: "5-10 words for people watching (the window name), e.g. \"Run the unit tests\"."},
		"background":  boolean("Return once the command has started: status running, jobId, and cursor at its first byte."),
		"keep":        boolean("Keep the fresh pane's shell live after the command ends (only without paneId)."),
		"escalate":    boolean("Run outside the sandbox in a fresh pane if a person approves (always asked); needs reason."),
	}, "command")
	tool := &mcp.Tool{
		Name:  "run_shell_command",
		Title: "Run a shell command",
		Description: "Run shell text; get its exit status and its own output (no echo, no prompt), knowing exactly when it ended. " +
			"With paneId it runs in that pane's shell (cd and export persist); without, in a fresh pane. " +
			"Result: status (completed: ended, exitCode set; running: call await_command_result with jobId, never run it again; not_started with decision blocked/denied: it did not run, do not retry it in another form), " +
			"waitingForInput (a prompt or pager waits: answer with type_text/send_keys, or cancel_command), output (head and tail when cut; outputFile has all), cursor (for await_command_result, wait_for_text, capture_since). " +
			"A busy pane, copy mode or a half-typed line is refused with the way out; nothing is typed. Not for REPLs and editors: use type_text.",
		InputSchema:  in,
		OutputSchema: jobOutSchema(),
		Annotations:  &mcp.ToolAnnotations{Title: "Run a shell command", ReadOnlyHint: false, DestructiveHint: ptr(true), IdempotentHint: false, OpenWorldHint: ptr(true)},
	}
	return typed(s, tool, onHost(s, Host.RunShellCommand))
}
