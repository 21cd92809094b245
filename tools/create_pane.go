package tools

import (
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/engine"
)

func (s *Server) createPaneTool() Tool {
	in := object(map[string]*jsonschema.Schema{
		"session":      {Type: "string", MinLength: ptr(1), Description: "Session (name) for the new window. Default: the agent session, " + s.cfg.Session + "."},
		"split":        withDefault(enum("window: a new window (does not disturb anyone's view); horizontal: split targetPaneId side by side; vertical: split it one above the other.", "window", "horizontal", "vertical"), "window"),
		"targetPaneId": paneID("Pane to split (with split horizontal or vertical). Default: the session's current pane."),
		"cwd":          {Type: "string", MinLength: ptr(1), Description: "Absolute directory to start in. Default: the session's directory."},
		"argv":         {Type: "array", MinItems: ptr(1), MaxItems: ptr(engine.MaxArgv), Items: &jsonschema.Schema{Type: "string"}, Description: "Program and arguments to run instead of a shell, e.g. [\"python3\", \"-q\"] (not through a shell). The pane closes after it exits; its output stays recorded."},
		"env":          {Type: "object", MaxProperties: ptr(engine.MaxEnv), AdditionalProperties: &jsonschema.Schema{Type: "string"}, PropertyNames: &jsonschema.Schema{Pattern: engine.EnvName.String()}, Description: "Extra environment variables for the program."},
		"name":         {Type: "string", MinLength: ptr(1), MaxLength: ptr(engine.MaxNameLen), Description: "Window name shown to people watching (split panes keep their window's name)."},
		"waitMs":       withDefault(integer("How long to wait for the new shell to show its prompt and read input (not with argv).", 0, engine.MaxWaitMs), engine.DefaultReadyMs),
	})
	out := outputObject(map[string]*jsonschema.Schema{
		"paneId":         paneID("The new pane's id."),
		"cursor":         cursorSchema("The start of the new pane's output (offset 0): wait_for_text from it and nothing the program prints is missed."),
		"session":        str("Session name."),
		"sessionId":      str("Session id."),
		"windowId":       str("Window id."),
		"ready":          nullable(boolean("true: the new shell is at its prompt reading input — run_shell_command, type_text and send_keys can go at once. false: it was not ready within waitMs (see notReadyReason; the pane is kept). null with argv (the program starts at once).")),
		"notReadyReason": nullable(str("Why the shell is not ready (still starting: what its startup files run and the pane's last lines; exited: its last output), or null.")),
		"shell":          nullable(str("The shell at the prompt (bash, zsh, fish, sh, dash, ...), or null with argv or when not ready.")),
		"integrated":     boolean("The shell runs tmuxmcp's shell integration (bash, zsh, fish): run_shell_command there knows exactly when commands end, and typed text never matches waits."),
		"sandbox":        sandboxSchema(),
		"serverNote":     serverNoteSchema(),
	})
	tool := &mcp.Tool{
		Name:  "create_pane",
		Title: "Create a pane",
		Description: "Start a new shell, or a program (argv), in a new window or a split, without changing what anyone is looking at. " +
			"Without argv it returns a shell ready for run_shell_command, type_text and send_keys (ready: true; no need to wait for its prompt); with argv, wait_for_text from its cursor (offset 0: nothing it prints is missed). Prefer a new window over splitting a pane a person uses.",
		InputSchema:  in,
		OutputSchema: out,
		Annotations:  &mcp.ToolAnnotations{Title: "Create a pane", ReadOnlyHint: false, DestructiveHint: ptr(false), IdempotentHint: false, OpenWorldHint: ptr(true)},
	}
	return typed(s, tool, onHost(s, Host.CreatePane))
}
