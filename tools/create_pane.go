package tools

import (
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/engine"
)

func (s *Server) createPaneTool() Tool {
	in := object(map[string]*jsonschema.Schema{
		"session":      {Type: "string", MinLength: ptr(1), Description: "Session (name) for it. Default: " + s.cfg.Session + "."},
		"split":        withDefault(enum("window (disturbs no one's view); horizontal: split targetPaneId side by side; vertical: one above the other.", "window", "horizontal", "vertical"), "window"),
		"targetPaneId": paneID("Pane to split. Default: the session's current pane."),
		"cwd":          {Type: "string", MinLength: ptr(1), Description: "Absolute directory to start in. Default: the session's directory."},
		"argv":         {Type: "array", MinItems: ptr(1), MaxItems: ptr(engine.MaxArgv), Items: &jsonschema.Schema{Type: "string"}, Description: "A program and arguments instead of a shell (no shell parsing), e.g. [\"python3\", \"-q\"]; the pane closes when it exits."},
		"env":          {Type: "object", MaxProperties: ptr(engine.MaxEnv), AdditionalProperties: &jsonschema.Schema{Type: "string"}, PropertyNames: &jsonschema.Schema{Pattern: engine.EnvName.String()}, Description: "Extra environment variables for the program."},
		"name":         {Type: "string", MinLength: ptr(1), MaxLength: ptr(engine.MaxNameLen), Description: "Window name shown to people watching (not for splits)."},
		"waitMs":       withDefault(integer("How long to wait for the shell's prompt (not with argv).", 0, engine.MaxWaitMs), engine.DefaultReadyMs),
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
		Description: "Start a shell, or a program (argv), in a new window or a split, without changing what anyone sees. " +
			"A shell comes back ready (no need to wait for its prompt); with argv, wait_for_text from its cursor (nothing is missed). Prefer a new window to splitting a pane a person uses.",
		InputSchema:  in,
		OutputSchema: out,
		Annotations:  &mcp.ToolAnnotations{Title: "Create a pane", ReadOnlyHint: false, DestructiveHint: ptr(false), IdempotentHint: false, OpenWorldHint: ptr(true)},
	}
	return typed(s, tool, onHost(s, Host.CreatePane))
}
