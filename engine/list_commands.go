package engine

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/tmuxmcp/tmuxmcp/jobs"
)

// ListCommandsRequest filters and bounds the job list.
type ListCommandsRequest struct {
	On
	Status *string `json:"status,omitempty"`
	Limit  *int    `json:"limit,omitempty"`
}

// CommandSummary is one job in a list.
type CommandSummary struct {
	JobID      string `json:"jobId"`
	Status     string `json:"status"`
	Command    string `json:"command"`
	PaneID     string `json:"paneId"`
	Host       string `json:"host"`
	ExitCode   *int   `json:"exitCode"`
	Created    string `json:"created"`
	DurationMs int64  `json:"durationMs"`
}

// Check checks the arguments, naming the field, the value and the fix.
func (in *ListCommandsRequest) Check() error {
	if in.Limit != nil && (*in.Limit < 1 || *in.Limit > 1000) {
		return errorf("limit %d: must be 1..1000", *in.Limit)
	}
	if in.Status != nil && !slices.Contains(jobs.Statuses(), jobs.Status(*in.Status)) {
		return errorf("status %q: use one of %s", *in.Status, strings.Join(names(jobs.Statuses()), ", "))
	}
	return nil
}

// ListCommandsResult lists jobs newest first.
type ListCommandsResult struct {
	Commands   []CommandSummary `json:"commands"`
	HostErrors []HostError      `json:"hostErrors"`
}

// ListCommands lists the host's jobs newest first (also those from before
// a restart).
func (h *Host) ListCommands(_ context.Context, c Caller, in *ListCommandsRequest) (*ListCommandsResult, error) {
	limit := listLimit(in)
	out := &ListCommandsResult{Commands: []CommandSummary{}, HostErrors: []HostError{}}
	for _, j := range h.jobs.List() {
		if in.Status != nil && string(j.Status) != *in.Status {
			continue
		}
		if len(out.Commands) == limit {
			break
		}
		r := h.jobResult(j)
		out.Commands = append(out.Commands, CommandSummary{JobID: j.ID, Status: string(j.Status), Command: truncate(j.Command, 200),
			PaneID: j.PaneID, Host: h.opts.Host, ExitCode: j.ExitCode, Created: j.Created.Format(time.RFC3339), DurationMs: r.DurationMs})
	}
	return out, nil
}

// listLimit is how many jobs a listing returns.
func listLimit(in *ListCommandsRequest) int {
	if in.Limit != nil {
		return *in.Limit
	}
	return 50
}
