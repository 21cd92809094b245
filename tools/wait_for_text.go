package tools

import (
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/engine"
	"github.com/tmuxmcp/tmuxmcp/stream"
)

func (s *Server) waitForTextTool() Tool {
	in := object(map[string]*jsonschema.Schema{
		"paneId":    paneID("Pane to watch, e.g. %1."),
		"patterns":  {Type: "array", Items: &jsonschema.Schema{Type: "string", MinLength: ptr(1), MaxLength: ptr(stream.MaxPatternLength)}, MinItems: ptr(1), MaxItems: ptr(stream.MaxPatterns), Description: "Any one ends the wait; each matches within one line (an unfinished prompt line counts). Omit to wait for any output."},
		"regex":     boolean("Patterns are .NET regular expressions (^ and $ anchor the line; named groups come back in groups)."),
		"cursor":    cursorSchema("A cursor from an earlier result: nothing printed since is missed. Omit: from now on."),
		"maxLines":  integer("Keep at most this many lines of output, from the end.", 1, maxSafeInt),
		"timeoutMs": integer(fmt.Sprintf("Default %d; clamped to %d (the result says what was used).", engine.DefaultWaitTimeout.Milliseconds(), s.cfg.WaitMax.Milliseconds()), 1, maxSafeInt),
	}, "paneId")
	out := outputObject(map[string]*jsonschema.Schema{
		"outcome":            terms("Why the wait ended", stream.Outcomes(), outcomeMeans(), "Read this rather than guessing from output."),
		"matched":            nullable(str("The text that matched, or null.")),
		"patternIndex":       nullable(integer("Index in patterns of the pattern that matched, or null.", 0, stream.MaxPatterns-1)),
		"groups":             nullable(&jsonschema.Schema{Type: "object", AdditionalProperties: &jsonschema.Schema{Type: "string"}, Description: "Named regex groups of the match, or null."}),
		"matchOffset":        nullable(count("Stream byte offset where the match starts, or null.")),
		"output":             str("What the pane printed during the wait (plain text: escapes removed, CR LF as LF), up to the end of the match; the bounded tail when limits cut it."),
		"cursor":             nullable(cursorSchema("After the match, or after the last byte seen: pass it to the next wait_for_text or capture_since to continue without gaps. null: the stream cannot be resumed (wait again without cursor).")),
		"missedBytes":        count("Output lost before it could be read (evicted from the retained buffer): non-zero means output is incomplete."),
		"omittedBytes":       count("Output bytes cut from the front of output by maxLines or the result ceiling."),
		"droppedLines":       count("Output lines cut by maxLines or the result ceiling."),
		"returnedBytes":      count("UTF-8 bytes returned across output and screen."),
		"effectiveTimeoutMs": count("The timeout actually enforced, after clamping."),
		"alreadyOnScreen":    boolean("A pattern is on the pane's screen now but was printed before this wait began, so the wait could not match it. Read it with capture_pane instead of waiting again."),
		"screen":             str("What the pane shows now, after a miss; \"\" after a match."),
		"screenClamped":      boolean("The result ceiling shortened screen (its most recent lines are kept)."),
		"paneId":             paneID("The pane watched."),
		"streamFailure":      streamFailureSchema(),
	})
	tool := &mcp.Tool{
		Name:  "wait_for_text",
		Title: "Wait for text in a pane",
		Description: "Wait until a pane prints a pattern (or anything); nothing that flashes by is missed. " +
			"For output you did not cause with run_shell_command (a server starting, a REPL's answer, a background job); pass an earlier result's cursor to cover what came in between. " +
			"Your own typed echo never matches. Result: outcome (why it ended; a timeout still gives output and screen), output, cursor (go on from it), alreadyOnScreen (printed before the wait began), missedBytes (non-zero: output lost).",
		InputSchema:  in,
		OutputSchema: out,
		Annotations:  &mcp.ToolAnnotations{Title: "Wait for text in a pane", ReadOnlyHint: true, DestructiveHint: ptr(false), IdempotentHint: false, OpenWorldHint: ptr(false)},
	}
	return typed(s, tool, onHost(s, Host.WaitForText))
}
