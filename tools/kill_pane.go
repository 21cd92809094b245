package tools

import (
	"context"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type killPaneIn struct {
	PaneID string `json:"paneId"`
}

func (in *killPaneIn) check() error {
	_, err := parsePaneID("paneId", in.PaneID)
	return err
}

type killPaneOut struct {
	PaneID string `json:"paneId"`
	Killed bool   `json:"killed"`
}

func (h *Handlers) killPaneTool() Tool {
	in := object(map[string]*jsonschema.Schema{
		"paneId": paneID("Pane to close, e.g. %3."),
	}, "paneId")
	out := outputObject(map[string]*jsonschema.Schema{
		"paneId": paneID("The pane closed."),
		"killed": boolean("Always true: the pane and its programs are gone."),
	})
	tool := &mcp.Tool{
		Name:         "kill_pane",
		Title:        "Kill a pane",
		Description:  "Close a pane and kill its programs (its window closes with its last pane). Its output stays readable with capture_since from a cursor you have. Refuses the pane tmuxmcp runs in; check list_panes (attended) before closing a pane a person may be using.",
		InputSchema:  in,
		OutputSchema: out,
		Annotations:  &mcp.ToolAnnotations{Title: "Kill a pane", ReadOnlyHint: false, DestructiveHint: ptr(true), IdempotentHint: false, OpenWorldHint: ptr(false)},
	}
	return typed(h, tool, h.killPane)
}

func (h *Handlers) killPane(ctx context.Context, _ *mcp.CallToolRequest, in *killPaneIn) (*killPaneOut, error) {
	n, _ := parsePaneID("paneId", in.PaneID)
	if n == h.selfPane {
		return nil, errorf("paneId %s is the pane tmuxmcp itself runs in: killing it would end this server. Nothing was done", in.PaneID)
	}
	if err := h.paneExists(ctx, "paneId", n); err != nil {
		return nil, err
	}
	if _, err := h.fleet.Exec(ctx, "kill-pane", "-t", paneName(n)); err != nil {
		return nil, h.paneError("paneId", n, err)
	}
	// Nothing of the pane (its typed line, its input lock, its prompt)
	// outlives it.
	h.lines.Forget(n)
	h.run.ForgetPane(n)
	h.fleet.RefreshPanes()
	return &killPaneOut{PaneID: paneName(n), Killed: true}, nil
}
