package tools

import (
	"context"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/cursor"
)

type awaitIn struct {
	JobID       string  `json:"jobId"`
	WaitMs      *int64  `json:"waitMs,omitempty"`
	Cursor      *string `json:"cursor,omitempty"`
	OutputLimit *int    `json:"outputLimit,omitempty"`
}

func (in *awaitIn) check() error {
	if in.WaitMs != nil && (*in.WaitMs < 0 || *in.WaitMs > maxWaitMs) {
		return errorf("waitMs %d: must be 0..%d", *in.WaitMs, maxWaitMs)
	}
	if in.OutputLimit != nil && (*in.OutputLimit < minOutputLimit || *in.OutputLimit > maxOutputLimit) {
		return errorf("outputLimit %d: must be %d..%d bytes; the whole output is kept in outputFile when cut", *in.OutputLimit, minOutputLimit, maxOutputLimit)
	}
	if in.Cursor != nil {
		if _, err := cursor.Parse(*in.Cursor); err != nil {
			return errorf("cursor: %v. Pass the outputCursor of an earlier result of this job (not its stream cursor)", err)
		}
	}
	return nil
}

func (h *Handlers) awaitCommandResultTool() Tool {
	in := object(map[string]*jsonschema.Schema{
		"jobId":       {Type: "string", MinLength: ptr(1), Description: "The jobId run_shell_command returned."},
		"waitMs":      withDefault(integer("How long to wait for the job to finish before returning its current state.", 0, maxWaitMs), defaultWaitMs),
		"cursor":      cursorSchema("The outputCursor of an earlier result of this job: output then holds only what the command printed after it."),
		"outputLimit": integer("Bytes of output returned (head and tail when longer); default: the job's own outputLimit.", minOutputLimit, maxOutputLimit),
	}, "jobId")
	tool := &mcp.Tool{
		Name:  "await_command_result",
		Title: "Wait for a command's result",
		Description: "Keep waiting for a job from run_shell_command and get its status, exitCode and output; it never runs anything again, also after a tmuxmcp restart. " +
			"Returns early when the job's program waits for input (waitingForInput). Pass the outputCursor of the last result as cursor to get only new output.",
		InputSchema:  in,
		OutputSchema: jobOutSchema(),
		Annotations:  &mcp.ToolAnnotations{Title: "Wait for a command's result", ReadOnlyHint: true, DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)},
	}
	return typed(h, tool, h.awaitCommandResult)
}

func (h *Handlers) awaitCommandResult(ctx context.Context, req *mcp.CallToolRequest, in *awaitIn) (*jobOut, error) {
	wait := time.Duration(defaultWaitMs) * time.Millisecond
	if in.WaitMs != nil {
		wait = time.Duration(*in.WaitMs) * time.Millisecond
	}
	out, err := h.awaitJob(ctx, req, in.JobID, wait)
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
		if c.String() != outputCursor(j.ID, c.Offset) {
			return nil, errorf("cursor %s is not an outputCursor of job %s (it belongs to another job, or is a stream cursor for wait_for_text): pass the outputCursor of an earlier result of this job, or omit cursor for all the output", *in.Cursor, j.ID)
		}
		if c.Offset > out.OutputBytes {
			return nil, errorf("cursor %s is past the end of job %s's output (%d bytes so far): pass the outputCursor of an earlier result of this job", *in.Cursor, j.ID, out.OutputBytes)
		}
		from = c.Offset
	}
	out.Output, out.OutputBytes, out.OmittedBytes = h.run.OutputSince(j, from, limit)
	out.OutputCursor = outputCursor(j.ID, out.OutputBytes)
	return out, nil
}
