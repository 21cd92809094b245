package tools

import (
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/engine"
)

func (s *Server) captureSinceTool() Tool {
	in := object(map[string]*jsonschema.Schema{
		"paneId":    paneID("Pane to read, e.g. %1."),
		"cursor":    cursorSchema("Read what follows this cursor. Omit: from the oldest output retained."),
		"maxLines":  integer("At most this many lines (the first after the cursor).", 1, maxSafeInt),
		"maxBytes":  integer("At most this many bytes (the first after the cursor; with lastLines, the last).", engine.MinCaptureBytes, float64(s.cfg.ResultMax)),
		"lastLines": integer("Instead, the last this many lines printed (no cursor needed; the result's cursor is the end).", 1, engine.MaxLastLines),
		"raw":       boolean("The bytes as written (escape sequences, CR LF), not plain text."),
	}, "paneId")
	out := outputObject(map[string]*jsonschema.Schema{
		"output":         str("The output after the cursor: plain text (escapes removed, CR LF as LF) unless raw."),
		"cursor":         cursorSchema("The end of what was returned: pass it to the next capture_since (or wait_for_text) to continue exactly there."),
		"remainingBytes": count("Recorded bytes after the returned cursor: non-zero means call again to read more."),
		"missedBytes":    count("Bytes lost between the given cursor and the oldest retained byte (evicted by the per-pane retention limit): non-zero means output is incomplete."),
		"returnedBytes":  count("UTF-8 bytes in output."),
		"streamFailure":  streamFailureSchema(),
		"paneId":         paneID("The pane read."),
	})
	tool := &mcp.Tool{
		Name:  "capture_since",
		Title: "Read pane output since a cursor",
		Description: "Read a pane's recorded output without waiting: what follows a cursor, page by page (chained calls read everything exactly once), or with lastLines the last lines printed. " +
			"Result: output, cursor (go on from it), remainingBytes (non-zero: call again), missedBytes (non-zero: evicted unread). To wait: wait_for_text.",
		InputSchema:  in,
		OutputSchema: out,
		Annotations:  &mcp.ToolAnnotations{Title: "Read pane output since a cursor", ReadOnlyHint: true, DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)},
	}
	return typed(s, tool, onHost(s, Host.CaptureSince))
}
