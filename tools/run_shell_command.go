package tools

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/approval"
	"github.com/tmuxmcp/tmuxmcp/audit"
	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/runner"
)

// Limits of run_shell_command.
const (
	maxCommandBytes    = 64 << 10
	maxWaitMs          = 90000
	defaultWaitMs      = 50000
	minOutputLimit     = 128
	maxOutputLimit     = 65536
	defaultOutputLimit = 8192
	maxJobTimeoutMs    = 24 * 60 * 60 * 1000
)

var requestIDPattern = regexp.MustCompile(`^[0-9a-f]{32}$`)

type runIn struct {
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
}

func (in *runIn) check() error {
	switch {
	case strings.TrimSpace(in.Command) == "":
		return errorf("command is empty: give the shell text to run, e.g. \"ls -la\"")
	case utf8.RuneCountInString(in.Command) > maxCommandBytes:
		return errorf("command is %d characters, over the limit of %d: put it in a script file and run that", utf8.RuneCountInString(in.Command), maxCommandBytes)
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
	if in.TimeoutMs != nil && (*in.TimeoutMs < 1 || *in.TimeoutMs > maxJobTimeoutMs) {
		return errorf("timeoutMs %d: must be 1..%d (omit it for no limit)", *in.TimeoutMs, maxJobTimeoutMs)
	}
	if in.WaitMs != nil && (*in.WaitMs < 0 || *in.WaitMs > maxWaitMs) {
		return errorf("waitMs %d: must be 0..%d; when it runs out you get status running and a jobId for await_command_result", *in.WaitMs, maxWaitMs)
	}
	if in.OutputLimit != nil && (*in.OutputLimit < minOutputLimit || *in.OutputLimit > maxOutputLimit) {
		return errorf("outputLimit %d: must be %d..%d bytes; the whole output is kept in outputFile when cut", *in.OutputLimit, minOutputLimit, maxOutputLimit)
	}
	if in.RequestID != nil && !requestIDPattern.MatchString(*in.RequestID) {
		return errorf("requestId %q: must be 32 lowercase hex characters, e.g. from uuid4 without dashes; reuse it only to retry the same command", *in.RequestID)
	}
	if in.Description != nil && utf8.RuneCountInString(*in.Description) > 200 {
		return errorf("description is %d characters, over the limit of 200: keep it to 5-10 words", utf8.RuneCountInString(*in.Description))
	}
	if in.Background && in.WaitMs != nil && *in.WaitMs > 0 {
		return errorf("background: true returns at once, but waitMs %d asks to wait: give one of them", *in.WaitMs)
	}
	if in.Reason != nil && utf8.RuneCountInString(*in.Reason) > 1000 {
		return errorf("reason is %d characters, over the limit of 1000: one sentence is enough", utf8.RuneCountInString(*in.Reason))
	}
	return nil
}

func (h *Handlers) runShellCommandTool() Tool {
	in := object(map[string]*jsonschema.Schema{
		"command":     {Type: "string", MinLength: ptr(1), MaxLength: ptr(maxCommandBytes), Description: "Shell text to run, exactly as you would type it; multi-line scripts, quotes, tabs and unicode arrive intact."},
		"paneId":      paneID("Run in this pane's shell (cd, export, functions persist); a shell still starting is waited for. Omit for a fresh pane, closed when done."),
		"cwd":         {Type: "string", MinLength: ptr(1), Description: "Absolute directory to run in. In a given pane this is a cd that persists."},
		"timeoutMs":   integer("Interrupt (C-c, then kill) the command after this long: status timed_out. Default: no limit.", 1, maxJobTimeoutMs),
		"waitMs":      withDefault(integer("How long to wait for the end before returning status running and a jobId (the command goes on).", 0, maxWaitMs), defaultWaitMs),
		"outputLimit": withDefault(integer("Bytes of output returned (the tail); the whole output goes to outputFile when cut.", minOutputLimit, maxOutputLimit), defaultOutputLimit),
		"requestId":   {Type: "string", Pattern: requestIDPattern.String(), Description: "32 lowercase hex characters naming the request: a retry with it returns the first call's job and never runs the command twice."},
		"reason":      {Type: "string", MaxLength: ptr(1000), Description: "One sentence on why this command is needed, shown to the person approving it."},
		"description": {Type: "string", MaxLength: ptr(200), Description: "5-10 words shown to people watching (as the fresh pane's window name), e.g. \"Run the unit tests\"."},
		"background":  boolean("Return at once with status running and a jobId (same as waitMs 0); in an existing pane the command has started and its cursor follows its own output."),
		"keep":        boolean("Keep the fresh pane open after the command ends (only without paneId)."),
	}, "command")
	tool := &mcp.Tool{
		Name:  "run_shell_command",
		Title: "Run a shell command",
		Description: "Run shell text and get its exit status and its own output (no echo, no prompt), knowing exactly when it ended from marks the shell prints. " +
			"With paneId it runs in that pane's shell (cd and export persist); without, in a fresh pane. " +
			"Result: status (completed: ended, the shell is back at its prompt, exitCode set; running: call await_command_result with jobId, never run it again; not_started with decision blocked/denied: it did not run, do not retry it in another form), " +
			"waitingForInput (its program waits at a prompt, a REPL or a pager: answer with type_text/send_keys, or cancel_command), output (head and tail when cut; outputFile has it all), shell (the pane's shell language). " +
			"A pane that is busy, in copy mode or has a half-typed line is refused with the exact way out; nothing is typed. Not for REPLs and editors: use type_text.",
		InputSchema:  in,
		OutputSchema: jobOutSchema(),
		Annotations:  &mcp.ToolAnnotations{Title: "Run a shell command", ReadOnlyHint: false, DestructiveHint: ptr(true), IdempotentHint: false, OpenWorldHint: ptr(true)},
	}
	return typed(h, tool, h.runShellCommand)
}

func (h *Handlers) runShellCommand(ctx context.Context, req *mcp.CallToolRequest, in *runIn) (*jobOut, error) {
	if err := h.connected(); err != nil {
		return nil, err
	}
	wait := time.Duration(defaultWaitMs) * time.Millisecond
	if in.WaitMs != nil {
		wait = time.Duration(*in.WaitMs) * time.Millisecond
	}
	if in.Background {
		wait = 0
	}
	j := &jobs.Job{Host: h.opts.Host, Command: in.Command, Status: jobs.Running, OutputLimit: defaultOutputLimit, Keep: in.Keep}
	if in.OutputLimit != nil {
		j.OutputLimit = *in.OutputLimit
	}
	if in.RequestID != nil {
		j.RequestID = *in.RequestID
	}
	if in.Reason != nil {
		j.Reason = *in.Reason
	}
	if in.Description != nil {
		j.Description = *in.Description
	}
	if in.TimeoutMs != nil {
		j.TimeoutMs = *in.TimeoutMs
	}
	job, err := h.launch(ctx, req, in, j)
	if err != nil {
		return nil, err
	}
	return h.awaitJob(ctx, req, job.ID, wait)
}

// launch starts the job, or returns the job its requestId already has. It
// holds startMu, so a pane gets one job at a time and a requestId one job.
func (h *Handlers) launch(ctx context.Context, req *mcp.CallToolRequest, in *runIn, j *jobs.Job) (*jobs.Job, error) {
	prior := func() (*jobs.Job, bool, error) {
		p, ok := h.jobs.ByRequest(j.RequestID)
		if ok && p.Command != j.Command {
			return nil, true, errorf("requestId %s already names job %s, which ran a different command (%q): a requestId is only for retrying the same call. Use a new requestId for a new command, or await_command_result(%s) for the first one", j.RequestID, p.ID, truncate(p.Command, 80), p.ID)
		}
		return p, ok, nil
	}
	if p, ok, err := prior(); ok {
		return p, err
	}
	pane, cwd := -1, ""
	if in.PaneID != nil {
		pane, _ = parsePaneID("paneId", *in.PaneID)
		if _, _, err := h.paneStream(ctx, "paneId", *in.PaneID); err != nil {
			return nil, err
		}
	}
	if err := h.dirExists(ctx, in.CWD, "nothing was run. Create it first or pick another"); err != nil {
		return nil, err
	}
	if in.CWD != nil {
		cwd = *in.CWD
	}
	var sh *runner.Shell
	fresh := false // sh is this call's reading of the pane, nothing waited on since
	ready := func(wait time.Duration) error {
		if st := h.line(pane); st.Open {
			// A command tmuxmcp typed that fish kept open in its editor
			// (its screen looks like a fresh line): the command would be
			// typed into it.
			return h.runnerError("paneId", pane, &runner.Refusal{Pane: pane, State: runner.Continuation, Line: strings.TrimSuffix(st.Text, "\n"), TypedByUs: true})
		}
		var err error
		sh, err = h.run.Ready(ctx, pane, wait)
		fresh = err == nil
		return h.runnerError("paneId", pane, err)
	}
	if pane >= 0 {
		// Wait out a shell that is starting or drawing its prompt before
		// taking a lock, so the wait holds up neither other launches nor
		// keys sent to this pane meanwhile.
		if err := ready(readyWait(in)); err != nil {
			return nil, err
		}
	}
	h.startMu.Lock()
	defer h.startMu.Unlock()
	if p, ok, err := prior(); ok {
		return p, err // the same request, launched meanwhile
	}
	if pane >= 0 {
		defer h.run.LockPane(pane)()
		// Under the lock, nothing else types into the pane: look again,
		// and refuse a pane that cannot take the command before anyone is
		// asked to approve it.
		if err := ready(0); err != nil {
			return nil, err
		}
	}
	decision, decidedBy, subj := h.judge(ctx, pane, j.Command, cwd)
	if decision == approval.Ask && elicitAnswered(req) {
		fresh = false
		want := elicitation{Command: j.Command, Pane: paneOrEmpty(pane), CWD: cwd, RequestID: j.RequestID}
		d, err := h.elicitDecision(req, want)
		if err != nil {
			return nil, err
		}
		decision, decidedBy = d, "elicitation"
		if d == approval.Denied {
			j.Status, j.Decision, j.PaneID = jobs.NotStarted, string(d), paneOrEmpty(pane)
			created, err := h.jobs.Create(j)
			if err == nil {
				h.audit(audit.Event{Event: "decision", Tool: "run_shell_command", RequestID: j.RequestID, JobID: created.ID, PaneID: j.PaneID, Command: j.Command, Decision: string(d), DecidedBy: decidedBy})
			}
			return created, err
		}
	}
	if decision == approval.Ask {
		if sh := approval.Show(j.Command); sh.TooLong {
			h.audit(audit.Event{Event: "decision", Tool: "run_shell_command", PaneID: paneOrEmpty(pane), Command: j.Command, Decision: string(approval.Rejected), DecidedBy: "tmuxmcp: too long to show"})
			return nil, tooLongToShow(sh)
		}
		switch h.reviewRoute(ctx, req) {
		case "elicitation":
			return nil, h.askClient(elicitation{Command: j.Command, Pane: paneOrEmpty(pane), CWD: cwd, RequestID: j.RequestID, Program: subj.Program}, j.Reason)
		case "tmux":
		default:
			h.audit(audit.Event{Event: "decision", Tool: "run_shell_command", PaneID: paneOrEmpty(pane), Command: j.Command, Decision: string(approval.Rejected), Reason: ownerSessionUnavailable})
			return nil, ownerReviewUnavailable(ownerSessionUnavailable, fmt.Sprintf("This command (%s)", truncate(approval.Visible(j.Command), 60)))
		}
		if err := h.startReview(ctx, "run_shell_command", pane, j.Command); err != nil {
			return nil, err
		}
		// A pending job: the person's answer, then the run, come later.
		j.Status, j.Decision, j.PaneID = jobs.NotStarted, string(approval.Pending), paneOrEmpty(pane)
		created, err := h.jobs.Create(j)
		if err != nil {
			h.slot.Release(false)
			return nil, err
		}
		req := approval.Request{RequestID: created.ID, Tool: "run_shell_command", Pane: created.PaneID, Program: subj.Program, CWD: subj.CWD, Command: j.Command, Reason: j.Reason}
		h.run.Go(created.ID, func(run *runner.Run) { h.review(run, req, in, pane) })
		return created, nil
	}
	j.Decision = string(decision)
	if decision == approval.Blocked {
		// Recorded, so a retry with the requestId gets the same answer.
		j.Status, j.PaneID = jobs.NotStarted, paneOrEmpty(pane)
		created, err := h.jobs.Create(j)
		if err == nil {
			h.audit(audit.Event{Event: "decision", Tool: "run_shell_command", RequestID: j.RequestID, JobID: created.ID, PaneID: j.PaneID, Command: j.Command, Decision: string(decision), DecidedBy: decidedBy})
		}
		return created, err
	}
	if pane < 0 {
		// A fresh pane: made now, so the result names it; its shell may
		// still be starting, and the command is typed once it is ready,
		// while this call's waitMs goes on.
		np, err := h.run.CreatePane(ctx, runner.PaneSpec{Name: firstNonEmpty(j.Description, "tmuxmcp job"), CWD: cwd})
		if err != nil {
			return nil, h.createError(err, h.opts.Session, nil)
		}
		j.PaneID, j.FreshPane = paneName(np.Pane), true
		created, err := h.jobs.Create(j)
		if err != nil {
			_, _ = h.fleet.Exec(context.WithoutCancel(ctx), "kill-pane", "-t", paneName(np.Pane))
			return nil, recordError(err)
		}
		h.audit(audit.Event{Event: "decision", Tool: "run_shell_command", RequestID: j.RequestID, JobID: created.ID, PaneID: created.PaneID, Command: j.Command, Decision: string(decision), DecidedBy: decidedBy, Reason: j.Reason})
		h.run.RunFresh(created, np)
		return created, nil
	}
	if !fresh {
		if err := ready(0); err != nil {
			return nil, err
		}
	}
	j.PaneID = paneName(pane)
	created, err := h.jobs.Create(j)
	if err != nil {
		return nil, recordError(err)
	}
	h.audit(audit.Event{Event: "decision", Tool: "run_shell_command", RequestID: j.RequestID, JobID: created.ID, PaneID: created.PaneID, Command: j.Command, Decision: string(decision), DecidedBy: decidedBy, Reason: j.Reason})
	st, err := h.run.Start(ctx, created, sh, cwd)
	if err != nil {
		_, _ = h.jobs.Update(created.ID, func(x *jobs.Job) { x.Status = jobs.NotStarted; x.Ended = time.Now().UTC() })
		return nil, h.paneError("paneId", pane, err)
	}
	h.run.Spawn(st)
	return created, nil
}

// recordError is the tool error for a job whose record could not be
// saved: nothing ran and the requestId is still free.
func recordError(err error) error {
	return errorf("%v: nothing was typed, no pane was left open, and the requestId is not taken. Free space (or fix the permissions) in the state directory, then call again with the same requestId: it runs once", err)
}

// readyWait is how long a call waits for a pane's shell that is still
// starting or drawing its prompt: its waitMs, at least 2 s (a background
// call too: the prompt is moments away).
func readyWait(in *runIn) time.Duration {
	wait := time.Duration(defaultWaitMs) * time.Millisecond
	if in.WaitMs != nil {
		wait = time.Duration(*in.WaitMs) * time.Millisecond
	}
	if in.Background {
		wait = 0
	}
	return max(wait, 2*time.Second)
}
