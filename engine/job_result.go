package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"
	"github.com/tmuxmcp/tmuxmcp/approval"
	"github.com/tmuxmcp/tmuxmcp/cursor"
	"github.com/tmuxmcp/tmuxmcp/jobs"
)

// JobResult is a job's state as run_shell_command, await_command_result
// and cancel_command report it.
type JobResult struct {
	JobID        string  `json:"jobId"`
	Status       string  `json:"status"`
	Decision     string  `json:"decision"`
	ExitCode     *int    `json:"exitCode"`
	Signal       *string `json:"signal"`
	Output       string  `json:"output"`
	OutputBytes  int64   `json:"outputBytes"`
	OmittedBytes int64   `json:"omittedBytes"`
	OutputFile   *string `json:"outputFile"`
	// OutputFileComplete says outputFile holds every byte; false with
	// OutputFileError when a write failed.
	OutputFileComplete bool    `json:"outputFileComplete"`
	OutputFileError    *string `json:"outputFileError"`
	MissedBytes        int64   `json:"missedBytes"`
	// Cursor is the one cursor of a job's result: a position in its
	// pane's recording that wait_for_text, capture_since and
	// await_command_result all take.
	Cursor          *string `json:"cursor"`
	PaneID          *string `json:"paneId"`
	Host            string  `json:"host"`
	DurationMs      int64   `json:"durationMs"`
	LaunchOutcome   string  `json:"launchOutcome"`
	LaunchError     *string `json:"launchError"`
	Note            *string `json:"note"`
	Shell           *string `json:"shell"`
	ShellReady      bool    `json:"shellReady"`
	WaitingForInput bool    `json:"waitingForInput"`
	Foreground      *string `json:"foreground"`
	Prompt          *string `json:"prompt"`
	// ServerNote says what happened to the host's tmux server since the
	// last result: it ended (and why, when tmuxmcp can tell) and tmuxmcp
	// started it again, or it ended while this job ran; nil otherwise.
	ServerNote *string `json:"serverNote"`

	// FoldedRedraws is how many times a line of the output was drawn
	// again and is shown once, in its final state.
	FoldedRedraws int64 `json:"foldedRedraws"`
	// PersonInput says a person's terminal sent keys to the pane while
	// the command ran: what they typed may be in output, and a line they
	// typed may run after it.
	PersonInput bool `json:"personInput"`
}

// outputCursor is the position after the first offset bytes of job id's
// output: ltxc1.<the job id's 16 bytes>.<offset>.
func outputCursor(id string, offset int64) string {
	var sid cursor.StreamID
	if u, err := ulid.ParseStrict(strings.ToUpper(id)); err == nil {
		sid = cursor.StreamID(u)
	}
	return cursor.Cursor{Stream: sid, Offset: offset}.String()
}

// awaitJob waits up to wait for the job to end and reports its state.
// When the client sent a progress token, it is told each second how long
// the job has run and its last line of output.
func (h *Host) awaitJob(ctx context.Context, c Caller, id string, wait time.Duration) (*JobResult, error) {
	if _, ok := h.jobs.Get(id); !ok {
		return nil, errorf("jobId %q: no such job (list_commands shows the jobs tmuxmcp knows)", id)
	}
	if c := caller(c); c.WantsProgress() && wait > time.Second {
		stop := make(chan struct{})
		defer close(stop)
		go h.reportProgress(ctx, c, id, wait, stop)
	}
	if j, _ := h.jobs.Get(id); h.opts.Machine != nil && !j.Done() && j.Decision != "pending" && !h.run.Watching(id) {
		// A job of a remote host nobody watches: the link dropped. Once it
		// is back the job is watched again, or its status collected.
		if h.connected() == nil {
			h.run.Rewatch(ctx)
		}
	}
	j, _ := h.run.Await(ctx, id, wait)
	h.lineAfterJob(j) // before the caller's next call, whenever the job's own end was noted
	out := h.jobResult(j)
	out.ServerNote = h.jobServerNote(j)
	h.noteInputWait(ctx, j, out)
	return out, nil
}

// noteInputWait sets waitingForInput, foreground and prompt on a running
// job's result whose program waits for someone to type.
func (h *Host) noteInputWait(ctx context.Context, j *jobs.Job, out *JobResult) {
	if j.Done() || j.Started.IsZero() || j.PaneID == "" {
		return
	}
	pane, err := parsePaneID("paneId", j.PaneID)
	if err != nil {
		return
	}
	if w, ok := h.run.WaitingForInput(ctx, pane); ok {
		out.WaitingForInput, out.Foreground, out.Prompt = true, ptr(w.Program), ptr(w.Prompt)
	}
}

// reportProgress sends a progress notification each second until stop:
// the job's running time against wait, and its last line of output.
func (h *Host) reportProgress(ctx context.Context, c Caller, id string, wait time.Duration, stop <-chan struct{}) {
	start := time.Now()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		case <-t.C:
		}
		j, ok := h.jobs.Get(id)
		if !ok || j.Done() {
			return
		}
		text, size, _ := h.run.Output(j)
		last := strings.TrimSpace(text[strings.LastIndexByte(strings.TrimRight(text, "\n"), '\n')+1:])
		msg := fmt.Sprintf("job %s running, %d bytes of output", id, size)
		if last != "" {
			msg += ": " + truncate(approval.Visible(last), 200)
		}
		c.Progress(ctx, float64(time.Since(start).Milliseconds()), float64(wait.Milliseconds()), msg)
	}
}

func (h *Host) jobResult(j *jobs.Job) *JobResult {
	out := &JobResult{JobID: j.ID, Host: h.opts.Host, Status: string(j.Status), Decision: j.Decision, ExitCode: j.ExitCode, Signal: j.Signal,
		LaunchOutcome: "STARTED"}
	if j.PaneID != "" {
		out.PaneID = ptr(j.PaneID)
	}
	if j.Status == jobs.NotStarted {
		// Nothing ran. (A running job in a fresh pane whose shell is still
		// starting is STARTED: its command is typed once the shell reads.)
		out.LaunchOutcome = "NOT_STARTED"
	}
	end := j.Ended
	if end.IsZero() {
		end = time.Now()
	}
	if !j.Started.IsZero() {
		out.DurationMs = end.Sub(j.Started).Milliseconds()
	}
	out.Output, out.OutputBytes, out.OmittedBytes = j.Output, j.OutputBytes, j.OmittedBytes
	// The cursor is taken before the output is read: output may then hold
	// a little more than the cursor is past (seen twice), never less.
	var running struct {
		at    int64
		begun bool
	}
	if !j.Done() {
		running.at, running.begun = h.run.RunningCursor(j.ID)
		out.Output, out.OutputBytes, out.OmittedBytes = h.run.Output(j)
	}
	if j.Shell != "" {
		out.Shell = ptr(j.Shell)
	}
	out.ShellReady = j.ShellReady
	if j.LaunchError != "" {
		out.LaunchError = ptr(j.LaunchError)
	}
	if j.Note != "" {
		out.Note = ptr(j.Note)
	}
	if out.OmittedBytes == 0 && j.OmittedBytes == 0 && out.OutputBytes > int64(len(out.Output)) && j.Done() {
		// A record from before head-and-tail output: its text is the tail.
		out.OmittedBytes = out.OutputBytes - int64(len(out.Output))
	}
	out.MissedBytes = j.MissedBytes
	out.FoldedRedraws = j.FoldedRedraws
	out.PersonInput = j.PersonInput
	if !j.Done() {
		out.FoldedRedraws = h.run.FoldedRedraws(j)
	}
	if j.OutputFile != "" {
		out.OutputFile = ptr(j.OutputFile)
	}
	out.OutputFileComplete = j.OutputFileError == ""
	if j.OutputFileError != "" {
		out.OutputFileError = ptr(j.OutputFileError)
	}
	if n, err := parsePaneID("paneId", j.PaneID); err == nil {
		if s, ok := h.hub.Live(n); ok && s.ID().String() == j.Stream {
			off := j.EndOffset
			if !j.Done() || off == 0 {
				off = s.End()
			}
			if !j.Done() && running.begun {
				off = running.at // after the typed line and the output so far
			}
			out.Cursor = cursorText(s, off)
		} else if s, ok := h.hubStream(j.Stream); ok {
			out.Cursor = cursorText(s, j.EndOffset)
		}
	}
	return out
}
