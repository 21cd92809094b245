package engine

import (
	"context"
	"time"
)

// CancelCommandRequest names the job to stop.
type CancelCommandRequest struct {
	On
	JobID string `json:"jobId"`
}

// CancelCommand stops a job (C-c, then SIGTERM and SIGKILL to the pane's
// foreground program) and reports its final state.
func (h *Host) CancelCommand(ctx context.Context, c Caller, in *CancelCommandRequest) (*JobResult, error) {
	if _, ok := h.jobs.Get(in.JobID); !ok {
		return nil, errorf("jobId %q: no such job (list_commands shows the jobs tmuxmcp knows)", in.JobID)
	}
	h.run.Cancel(in.JobID)
	return h.awaitJob(ctx, nil, in.JobID, 10*time.Second)
}
