package engine

import (
	"context"
)

// KillPaneRequest names the pane to close.
type KillPaneRequest struct {
	On
	PaneID string `json:"paneId"`
}

// Check checks the arguments, naming the field, the value and the fix.
func (in *KillPaneRequest) Check() error {
	_, err := parsePaneID("paneId", in.PaneID)
	return err
}

// KillPaneResult names the pane closed.
type KillPaneResult struct {
	PaneID string `json:"paneId"`
	Killed bool   `json:"killed"`
}

// KillPane closes a pane and kills its programs; never the pane tmuxmcp
// itself runs in.
func (h *Host) KillPane(ctx context.Context, c Caller, in *KillPaneRequest) (*KillPaneResult, error) {
	n, _ := parsePaneID("paneId", in.PaneID)
	if n == h.selfPane {
		return nil, errorf("paneId %s is the pane tmuxmcp itself runs in: killing it would end this server. Nothing was done", in.PaneID)
	}
	if err := h.paneExists(ctx, "paneId", n); err != nil {
		return nil, err
	}
	if err := h.fleet.KillPane(ctx, n); err != nil {
		return nil, h.paneError("paneId", n, err)
	}
	// Nothing of the pane (its typed line, its input lock, its prompt)
	// outlives it.
	h.lines.Forget(n)
	h.run.ForgetPane(n)
	h.fleet.RefreshPanes()
	return &KillPaneResult{PaneID: paneName(n), Killed: true}, nil
}
