package engine

import (
	"context"
	"time"

	"github.com/tmuxmcp/tmuxmcp/cursor"
	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/stream"
)

// AwaitCommandResultRequest asks for a job's state, waiting up to WaitMs
// for its end.
type AwaitCommandResultRequest struct {
	On
	JobID       string  `json:"jobId"`
	WaitMs      *int64  `json:"waitMs,omitempty"`
	Cursor      *string `json:"cursor,omitempty"`
	OutputLimit *int    `json:"outputLimit,omitempty"`
}

// Check checks the arguments, naming the field, the value and the fix.
func (in *AwaitCommandResultRequest) Check() error {
	if in.WaitMs != nil && (*in.WaitMs < 0 || *in.WaitMs > MaxWaitMs) {
		return errorf("waitMs %d: must be 0..%d", *in.WaitMs, MaxWaitMs)
	}
	if in.OutputLimit != nil && (*in.OutputLimit < MinOutputLimit || *in.OutputLimit > MaxOutputLimit) {
		return errorf("outputLimit %d: must be %d..%d bytes; the whole output is kept in outputFile when cut", *in.OutputLimit, MinOutputLimit, MaxOutputLimit)
	}
	if in.Cursor != nil {
		if _, err := cursor.Parse(*in.Cursor); err != nil {
			return errorf("cursor: %v. Pass the cursor of an earlier result of this job", err)
		}
	}
	return nil
}

// AwaitCommandResult waits for job in.JobID to end (at most in.WaitMs)
// and reports its state; with in.Cursor, only the output after it. It
// never runs anything again.
func (h *Host) AwaitCommandResult(ctx context.Context, c Caller, in *AwaitCommandResultRequest) (*JobResult, error) {
	wait := time.Duration(DefaultWaitMs) * time.Millisecond
	if in.WaitMs != nil {
		wait = time.Duration(*in.WaitMs) * time.Millisecond
	}
	out, err := h.awaitJob(ctx, c, in.JobID, wait)
	if err != nil || (in.Cursor == nil && in.OutputLimit == nil) {
		return out, err
	}
	j, _ := h.jobs.Get(in.JobID)
	from, limit := int64(0), j.OutputLimit
	if in.OutputLimit != nil {
		limit = *in.OutputLimit
	}
	if in.Cursor != nil {
		c, _ := cursor.Parse(*in.Cursor)
		if from, err = h.outputFrom(j, c, out.OutputBytes); err != nil {
			return nil, err
		}
	}
	out.Output, out.OutputBytes, out.OmittedBytes = h.run.OutputSince(j, from, limit)
	return out, nil
}

// outputFrom is where the output after cursor c starts in job j's output
// (size bytes so far). c is a position in the job's recording, as its
// results, wait_for_text and capture_since give; or, from older results,
// a position in the job's output itself (outputCursor's earlier form).
func (h *Host) outputFrom(j *jobs.Job, c cursor.Cursor, size int64) (int64, error) {
	if c.String() == outputCursor(j.ID, c.Offset) {
		// A multi-line progress bar redrawn with the cursor moved up takes
		// its lines back from the output (at most stream.FoldReach bytes):
		// a cursor from before that is still this job's.
		if c.Offset > size+stream.FoldReach {
			return 0, errorf("cursor %s is past the end of job %s's output (%d bytes so far): pass the cursor of an earlier result of this job", c, j.ID, size)
		}
		return min(c.Offset, size), nil
	}
	if j.Stream == "" || c.Stream.String() != j.Stream {
		return 0, errorf("cursor %s is not in the recording job %s printed to (it is another pane's, or from before the pane's recording restarted): pass the cursor of an earlier result of this job or of a wait_for_text on its pane, or omit cursor for all the output", c, j.ID)
	}
	if s, ok := h.hub.Stream(c.Stream); ok && c.Offset > s.End() {
		return 0, errorf("cursor %s is past the end of the pane's recording (%d bytes): pass the cursor of an earlier result of this job", c, s.End())
	}
	return min(h.run.OutputOffset(j, c.Offset), size), nil
}
