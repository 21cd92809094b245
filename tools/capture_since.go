package tools

import (
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/engine"
)

func (s *Server) captureSinceTool() Tool {
	in := object(map[string]*jsonschema.Schema{
		"paneId":    paneID("Pane to read, e.g. %1."),
		"cursor":    cursorSchema("Read what follows this cursor (from an earlier result). Omit to start at the oldest output still retained."),
		"maxLines":  integer("Return at most this many lines (the first ones after the cursor). Default: no line limit.", 1, maxSafeInt),
		"maxBytes":  integer("Return at most this many bytes (the first ones after the cursor; with lastLines, the last ones). Default and maximum: the server's result ceiling.", engine.MinCaptureBytes, float64(s.cfg.ResultMax)),
		"lastLines": integer("Instead of reading forward: return the last this many lines of what the pane has printed (that is retained), no cursor needed; cursor in the result is the end, to wait or read on from.", 1, engine.MaxLastLines),
		"raw":       boolean("Return the bytes as the program wrote them (escape sequences, CR LF) instead of plain text."),
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
		Description: "Read a pane's recorded output without waiting: after a cursor (the first maxBytes/maxLines, then a cursor at their end; chained calls read everything exactly once), or with lastLines the last lines printed, no cursor needed. " +
			"Result: output, cursor, remainingBytes (more is recorded: call again), missedBytes (non-zero: evicted before it was read). To wait use wait_for_text; for the screen, capture_pane.",
		InputSchema:  in,
		OutputSchema: out,
		Annotations:  &mcp.ToolAnnotations{Title: "Read pane output since a cursor", ReadOnlyHint: true, DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)},
	}
	return typed(s, tool, onHost(s, Host.CaptureSince))
}
