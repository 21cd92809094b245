package engine

import (
	"context"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits of run_shell_command.
const (
	MaxCommandBytes    = 64 << 10
	MaxWaitMs          = 90000
	DefaultWaitMs      = 50000
	MinOutputLimit     = 128
	MaxOutputLimit     = 65536
	DefaultOutputLimit = 8192
	MaxJobTimeoutMs    = 24 * 60 * 60 * 1000
)

// RequestIDPattern is what a requestId may be: 32 lowercase hex characters.
var RequestIDPattern = regexp.MustCompile(`^[0-9a-f]{32}$`)

// RunShellCommandRequest is a command to run and how to wait for it.
type RunShellCommandRequest struct {
	On
	Command     string  `json:"command"`
	PaneID      *string `json:"paneId,omitempty"`
	CWD         *string `json:"cwd,omitempty"`
	TimeoutMs   *int64  `json:"timeoutMs,omitempty"`
	WaitMs      *int64  `json:"waitMs,omitempty"`
	OutputLimit *int    `json:"outputLimit,omitempty"`
	RequestID   *string `json:"requestId,omitempty"`
	Reason      *string `json:"reason,omitempty"`
	Description *string `json:"description,omitempty"`
	Background  bool    `json:"background,omitempty"`
	Keep        bool    `json:"keep,omitempty"`
	// Escalate asks to run the command outside the server's sandbox, in a
	// fresh pane, on a person's explicit approval (with Reason).
	Escalate bool `json:"escalate,omitempty"`
}

// Check checks the arguments, naming the field, the value and the fix.
func (in *RunShellCommandRequest) Check() error {
	switch {
	case strings.TrimSpace(in.Command) == "":
		return errorf("command is empty: give the shell text to run, e.g. \"ls -la\"")
	case utf8.RuneCountInString(in.Command) > MaxCommandBytes:
		return errorf("command is %d characters, over the limit of %d: put it in a script file and run that", utf8.RuneCountInString(in.Command), MaxCommandBytes)
	}
	if in.PaneID != nil {
		if _, err := parsePaneID("paneId", *in.PaneID); err != nil {
			return err
		}
		if in.Keep {
			return errorf("keep applies only to a fresh pane: drop keep, or drop paneId")
		}
	}
	if in.CWD != nil {
		if !strings.HasPrefix(*in.CWD, "/") {
			return errorf("cwd %q is not an absolute path: give a full path such as /home/me/project", *in.CWD)
		}
	}
	if in.TimeoutMs != nil && (*in.TimeoutMs < 1 || *in.TimeoutMs > MaxJobTimeoutMs) {
		return errorf("timeoutMs %d: must be 1..%d (omit it for no limit)", *in.TimeoutMs, MaxJobTimeoutMs)
	}
	if in.WaitMs != nil && (*in.WaitMs < 0 || *in.WaitMs > MaxWaitMs) {
		return errorf("waitMs %d: must be 0..%d; when it runs out you get status running and a jobId for await_command_result", *in.WaitMs, MaxWaitMs)
	}
	if in.OutputLimit != nil && (*in.OutputLimit < MinOutputLimit || *in.OutputLimit > MaxOutputLimit) {
		return errorf("outputLimit %d: must be %d..%d bytes; the whole output is kept in outputFile when cut", *in.OutputLimit, MinOutputLimit, MaxOutputLimit)
	}
	if in.RequestID != nil && !RequestIDPattern.MatchString(*in.RequestID) {
		return errorf("requestId %q: must be 32 lowercase hex characters, e.g. from uuid4 without dashes; reuse it only to retry the same command", *in.RequestID)
	}
	if in.Description != nil && utf8.RuneCountInString(*in.Description) > 200 {
		return errorf("description is %d characters, over the limit of 200: keep it to 5-10 words", utf8.RuneCountInString(*in.Description))
	}
	if in.Background && in.WaitMs != nil && *in.WaitMs > 0 {
		return errorf("background: true returns at once, but waitMs %d asks to wait: give one of them", *in.WaitMs)
	}
	if in.Escalate && (in.Reason == nil || strings.TrimSpace(*in.Reason) == "") {
		return errorf("escalate: true needs a reason: say in one sentence why this command must run outside the sandbox; a person reads it before approving")
	}
	if in.Escalate && in.PaneID != nil {
		return errorf("escalate: true runs the command in a fresh pane outside the sandbox, never in an existing pane: drop paneId %s (a command for that pane runs where the pane runs; one outside the sandbox is asked of a person without escalate)", *in.PaneID)
	}
	if in.Reason != nil && utf8.RuneCountInString(*in.Reason) > 1000 {
		return errorf("reason is %d characters, over the limit of 1000: one sentence is enough", utf8.RuneCountInString(*in.Reason))
	}
	return nil
}

// RunShellCommand runs shell text in a pane's shell (or a fresh pane)
// once the pane can take it and the policy (or a person) allows it, and
// waits up to WaitMs for its end: a command's whole life, from the
// request to its job record (see launch).
func (h *Host) RunShellCommand(ctx context.Context, c Caller, in *RunShellCommandRequest) (*JobResult, error) {
	wait := time.Duration(DefaultWaitMs) * time.Millisecond
	if in.WaitMs != nil {
		wait = time.Duration(*in.WaitMs) * time.Millisecond
	}
	if in.Background {
		wait = 0
	}
	job, err := h.Submit(ctx, c, in)
	if err != nil {
		return nil, err
	}
	if in.Background {
		// Once the command has begun (a fresh pane's shell started it):
		// the result's cursor is then its first byte.
		h.run.Begun(ctx, job.ID)
	}
	return h.awaitJob(ctx, c, job.ID, wait)
}

// recordError is the tool error for a job whose record could not be
// saved: nothing ran and the requestId is still free.
func recordError(err error) error {
	return errorf("%v: nothing was typed, no pane was left open, and the requestId is not taken. Free space (or fix the permissions) in the state directory, then call again with the same requestId: it runs once", err)
}

// readyWait is how long a call waits for a pane's shell that is still
// starting or drawing its prompt: its waitMs, at least 2 s (a background
// call too: the prompt is moments away).
func readyWait(in *RunShellCommandRequest) time.Duration {
	wait := time.Duration(DefaultWaitMs) * time.Millisecond
	if in.WaitMs != nil {
		wait = time.Duration(*in.WaitMs) * time.Millisecond
	}
	if in.Background {
		wait = 0
	}
	return max(wait, 2*time.Second)
}
