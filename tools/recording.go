package tools

import (
	"bytes"
	"context"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The recording of a pane, as a resource: tmux://pane/{n}/recording.cast.
const (
	recordingTemplateURI = "tmux://pane/{n}/recording.cast"
	recordingMIME        = "application/x-asciicast"
)

func recordingTemplate() *mcp.ResourceTemplate {
	return &mcp.ResourceTemplate{
		Name:        "pane-recording",
		Title:       "tmux pane recording (asciicast)",
		URITemplate: recordingTemplateURI,
		MIMEType:    recordingMIME,
		Description: "What a tmux pane printed since tmuxmcp began recording it (its retained output, --retain bytes), as an asciicast v2 recording at the pace it was printed: save it and play it with `asciinema play FILE` to see what happened in the pane. Each command run_shell_command typed into the pane is a marker (\"$ command\", then its status); a marker says where output was dropped or evicted. {n} is the number of pane %n. For a person; an agent reads output with capture_since.",
	}
}

// recordingPane parses tmux://pane/N/recording.cast.
func recordingPane(uri string) (int, bool) {
	s, ok := strings.CutPrefix(uri, "tmux://pane/")
	if !ok {
		return 0, false
	}
	s, ok = strings.CutSuffix(s, "/recording.cast")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 0 && strconv.Itoa(n) == s
}

func (s *Server) readRecording(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	n, ok := recordingPane(req.Params.URI)
	if !ok {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	var cast bytes.Buffer
	info, err := s.hosts.Local().RecordPane(ctx, paneName(n), &cast)
	if err != nil {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
		URI: req.Params.URI, MIMEType: recordingMIME, Text: cast.String(),
		Meta: mcp.Meta{"paneId": info.PaneID, "bytes": info.Bytes, "missedBytes": info.MissedBytes, "commands": info.Commands},
	}}}, nil
}
