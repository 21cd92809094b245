package tools

import (
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/engine"
)

func (s *Server) capturePaneTool() Tool {
	in := object(map[string]*jsonschema.Schema{
		"paneId":    paneID("Pane to capture, e.g. %1."),
		"startLine": integer("First line: 0 is the screen's top, negative is scrollback (-100). Default: the screen.", -engine.MaxHistoryLines, 10000),
		"escapes":   boolean("Keep colour and attribute escape sequences in screen."),
	}, "paneId")
	out := outputObject(map[string]*jsonschema.Schema{
		"screen":          str("The pane's contents as a person sees them, wrapped lines joined, trailing spaces and blank lines trimmed."),
		"screenClamped":   boolean("The result ceiling cut screen; its last lines are kept."),
		"cursor":          cursorSchema("The stream position this snapshot reflects: wait_for_text from it to catch anything printed after the snapshot, with no race."),
		"width":           count("Pane width in columns."),
		"height":          count("Pane height in rows."),
		"cursorX":         count("Terminal cursor column."),
		"cursorY":         count("Terminal cursor row."),
		"alternateScreen": boolean("A full-screen program (vim, less, top) is using the alternate screen."),
		"inCopyMode":      boolean("The pane is in copy mode (someone is scrolling it); typing would go to copy mode."),
		"currentCommand":  str("The pane's foreground program, e.g. bash, python3, vim."),
		"dead":            boolean("The pane's program has exited (the pane was kept by remain-on-exit)."),
		"paneId":          paneID("The pane captured."),
		"waitingForInput": boolean("A program (not the shell at its prompt) is blocked reading the terminal and has printed nothing for 0.5 s: a question, a password prompt, a REPL, a pager. Answer with type_text or send_keys (q quits a pager)."),
		"foreground":      nullable(str("With waitingForInput: the program waiting, else null.")),
		"prompt":          nullable(str("With waitingForInput: the text before the cursor on its line, else null.")),
	})
	tool := &mcp.Tool{
		Name:  "capture_pane",
		Title: "Capture a pane's screen",
		Description: "What a pane shows now (optionally with scrollback): screen, size, currentCommand, alternateScreen, inCopyMode, waitingForInput (a program waits at a prompt: foreground, prompt), " +
			"and the stream cursor of that moment (wait_for_text from it misses nothing). For output over time use capture_since.",
		InputSchema:  in,
		OutputSchema: out,
		Annotations:  &mcp.ToolAnnotations{Title: "Capture a pane's screen", ReadOnlyHint: true, DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)},
	}
	return typed(s, tool, onHost(s, Host.CapturePane))
}
