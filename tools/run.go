package tools

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oklog/ulid/v2"
	"github.com/tmuxmcp/tmuxmcp/approval"
	"github.com/tmuxmcp/tmuxmcp/audit"
	"github.com/tmuxmcp/tmuxmcp/cursor"
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
		if st, err := os.Stat(*in.CWD); err != nil || !st.IsDir() {
			return errorf("cwd %q is not an existing directory: nothing was run. Create it first or pick another", *in.CWD)
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

type jobOut struct {
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
	Cursor             *string `json:"cursor"`
	OutputCursor       string  `json:"outputCursor"`
	PaneID             *string `json:"paneId"`
	DurationMs         int64   `json:"durationMs"`
	LaunchOutcome      string  `json:"launchOutcome"`
	LaunchError        *string `json:"launchError"`
	Shell              *string `json:"shell"`
	ShellReady         bool    `json:"shellReady"`
	WaitingForInput    bool    `json:"waitingForInput"`
	Foreground         *string `json:"foreground"`
	Prompt             *string `json:"prompt"`
}

var jobStatuses = []string{"completed", "running", "interrupted", "timed_out", "pane_died", "not_started"}

func jobOutSchema() *jsonschema.Schema {
	return outputObject(map[string]*jsonschema.Schema{
		"jobId":              str("The job's id: pass it to await_command_result or cancel_command."),
		"status":             enum("completed (it ended by itself: see exitCode); running (still going: call await_command_result with jobId — never run the command again); interrupted (cancel_command stopped it); timed_out (it ran past timeoutMs and was stopped); pane_died (its pane closed); not_started.", jobStatuses...),
		"decision":           enum("Whether it was allowed to run: auto-approved (by policy), approved (by a person), pending (a person is being asked: await_command_result waits for the answer and the run), denied / denied-timeout / denied-error / blocked / rejected (it did not run: do not retry it in another form).", "approved", "auto-approved", "pending", "denied", "denied-timeout", "denied-error", "blocked", "rejected"),
		"exitCode":           nullable(integer("The shell's exit status of the command ($?), or null while running or when unknown. Above 128 means killed by a signal (see signal).", 0, 255)),
		"signal":             nullable(str("The signal that ended it (e.g. SIGINT, SIGTERM), or null.")),
		"output":             str("The command's own output (stdout and stderr as the terminal showed them; no echo, prompt or marks), plain text. When it is longer than outputLimit: its first and last whole lines, with one line between them saying how many bytes and lines were left out (outputFile has them all)."),
		"outputBytes":        count("Total bytes of output so far."),
		"omittedBytes":       count("Bytes of the output left out of output (its middle) by outputLimit: read outputFile for all of it."),
		"outputFile":         nullable(str("A file holding the whole output, when output was cut; else null.")),
		"outputFileComplete": boolean("outputFile holds every byte of the output (true also when no file was needed). false: writing it failed (outputFileError says why: a full disk, an I/O error); output and outputBytes are still right."),
		"outputFileError":    nullable(str("Why outputFile is not whole, or null.")),
		"missedBytes":        count("Output lost before tmuxmcp could record it (evicted, or printed while tmuxmcp was restarting): non-zero means output is incomplete."),
		"cursor":             nullable(cursorSchema("Stream position after the command; while it runs, after its output so far (never before tmuxmcp's own typed line): wait_for_text or capture_since from it.")),
		"outputCursor":       cursorSchema("The position after the output so far: pass it as cursor to await_command_result to get only what the command prints next."),
		"paneId":             nullable(paneID("The pane it runs in, or null while no pane was chosen yet (a fresh pane waiting for approval, or blocked).")),
		"durationMs":         count("How long it has run."),
		"launchOutcome":      enum("STARTED when the command was typed into the shell; NOT_STARTED when nothing ran (with status running: a fresh pane's shell is still starting, and the command is typed once it is ready).", "STARTED", "NOT_STARTED"),
		"launchError":        nullable(str("Why a not_started command did not start (its fresh pane's shell never got ready, the shell took it as unfinished), or null.")),
		"shell":              nullable(enum("The shell that ran it — the command is that shell's language: bash, zsh, fish, or sh (sh, dash, ksh); null before it started.", "bash", "zsh", "fish", "sh")),
		"shellReady":         boolean("The pane's shell is back at its prompt reading input: the next command, type_text or send_keys on the pane can go at once. false while running, for a fresh pane (closed when done), or when the prompt did not come back within 5 s of the command's end."),
		"waitingForInput":    boolean("With status running: its program is blocked reading the terminal and has printed nothing for 0.5 s — a question ([y/N], Password:), a REPL, a pager or an editor. The call returns as soon as that is so. Answer with type_text (submit: true) or send_keys (q quits a pager), or stop it with cancel_command; awaiting again only waits."),
		"foreground":         nullable(str("With waitingForInput: the program waiting (less, python3, sudo), else null.")),
		"prompt":             nullable(str("With waitingForInput: the text before the cursor on its line — the question it asks, a pager's : or (END) — else null.")),
	})
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
	j := &jobs.Job{Command: in.Command, Status: jobs.Running, OutputLimit: defaultOutputLimit, Keep: in.Keep}
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

// outputCursor is the position after the first offset bytes of job id's
// output: ltxc1.<the job id's 16 bytes>.<offset>.
func outputCursor(id string, offset int64) string {
	var sid cursor.StreamID
	if u, err := ulid.ParseStrict(strings.ToUpper(id)); err == nil {
		sid = cursor.StreamID(u)
	}
	return cursor.Cursor{Stream: sid, Offset: offset}.String()
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

// awaitJob waits up to wait for the job to end and reports its state.
// When the client sent a progress token, it is told each second how long
// the job has run and its last line of output.
func (h *Handlers) awaitJob(ctx context.Context, req *mcp.CallToolRequest, id string, wait time.Duration) (*jobOut, error) {
	if _, ok := h.jobs.Get(id); !ok {
		return nil, errorf("jobId %q: no such job (list_commands shows the jobs tmuxmcp knows)", id)
	}
	if req != nil && req.Params != nil && req.Session != nil {
		if token := req.Params.GetProgressToken(); token != nil && wait > time.Second {
			stop := make(chan struct{})
			defer close(stop)
			go h.reportProgress(ctx, req, token, id, wait, stop)
		}
	}
	j, _ := h.run.Await(ctx, id, wait)
	h.lineAfterJob(j) // before the caller's next call, whenever the job's own end was noted
	out := h.jobResult(j)
	h.noteInputWait(ctx, j, out)
	return out, nil
}

// noteInputWait sets waitingForInput, foreground and prompt on a running
// job's result whose program waits for someone to type.
func (h *Handlers) noteInputWait(ctx context.Context, j *jobs.Job, out *jobOut) {
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
func (h *Handlers) reportProgress(ctx context.Context, req *mcp.CallToolRequest, token any, id string, wait time.Duration, stop <-chan struct{}) {
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
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
			ProgressToken: token,
			Progress:      float64(time.Since(start).Milliseconds()),
			Total:         float64(wait.Milliseconds()),
			Message:       msg,
		})
	}
}

func (h *Handlers) jobResult(j *jobs.Job) *jobOut {
	out := &jobOut{JobID: j.ID, Status: string(j.Status), Decision: j.Decision, ExitCode: j.ExitCode, Signal: j.Signal,
		LaunchOutcome: "STARTED"}
	if j.PaneID != "" {
		out.PaneID = ptr(j.PaneID)
	}
	if j.Status == jobs.NotStarted || j.Started.IsZero() {
		// Nothing typed (yet: a fresh pane's shell may still be starting).
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
	out.OutputCursor = outputCursor(j.ID, out.OutputBytes)
	if j.Shell != "" {
		out.Shell = ptr(j.Shell)
	}
	out.ShellReady = j.ShellReady
	if j.LaunchError != "" {
		out.LaunchError = ptr(j.LaunchError)
	}
	if out.OmittedBytes == 0 && j.OmittedBytes == 0 && out.OutputBytes > int64(len(out.Output)) && j.Done() {
		// A record from before head-and-tail output: its text is the tail.
		out.OmittedBytes = out.OutputBytes - int64(len(out.Output))
	}
	out.MissedBytes = j.MissedBytes
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

type cancelIn struct {
	JobID string `json:"jobId"`
}

func (h *Handlers) cancelCommandTool() Tool {
	in := object(map[string]*jsonschema.Schema{
		"jobId": {Type: "string", MinLength: ptr(1), Description: "The jobId of the running command to stop."},
	}, "jobId")
	tool := &mcp.Tool{
		Name:         "cancel_command",
		Title:        "Cancel a running command",
		Description:  "Stop a job from run_shell_command: C-c (SIGINT), then SIGTERM and SIGKILL to the pane's foreground program (after 1 s, 2 s); the shell stays. Returns the final state once the pane's shell is back at its prompt: status interrupted (exitCode, signal) when the interrupt stopped it; a job that ended by itself before the interrupt reached it, or already had, is returned as it ended (completed, its own exitCode).",
		InputSchema:  in,
		OutputSchema: jobOutSchema(),
		Annotations:  &mcp.ToolAnnotations{Title: "Cancel a running command", ReadOnlyHint: false, DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)},
	}
	return typed(h, tool, h.cancelCommand)
}

func (h *Handlers) cancelCommand(ctx context.Context, _ *mcp.CallToolRequest, in *cancelIn) (*jobOut, error) {
	if _, ok := h.jobs.Get(in.JobID); !ok {
		return nil, errorf("jobId %q: no such job (list_commands shows the jobs tmuxmcp knows)", in.JobID)
	}
	h.run.Cancel(in.JobID)
	return h.awaitJob(ctx, nil, in.JobID, 10*time.Second)
}

type listCommandsIn struct {
	Status *string `json:"status,omitempty"`
	Limit  *int    `json:"limit,omitempty"`
}

type commandSummary struct {
	JobID      string `json:"jobId"`
	Status     string `json:"status"`
	Command    string `json:"command"`
	PaneID     string `json:"paneId"`
	ExitCode   *int   `json:"exitCode"`
	Created    string `json:"created"`
	DurationMs int64  `json:"durationMs"`
}

func (in *listCommandsIn) check() error {
	if in.Limit != nil && (*in.Limit < 1 || *in.Limit > 1000) {
		return errorf("limit %d: must be 1..1000", *in.Limit)
	}
	if in.Status != nil && !slices.Contains(jobStatuses, *in.Status) {
		return errorf("status %q: use one of %s", *in.Status, strings.Join(jobStatuses, ", "))
	}
	return nil
}

type listCommandsOut struct {
	Commands []commandSummary `json:"commands"`
}

func (h *Handlers) listCommandsTool() Tool {
	in := object(map[string]*jsonschema.Schema{
		"status": enum("Only jobs with this status.", jobStatuses...),
		"limit":  withDefault(integer("At most this many jobs, newest first.", 1, 1000), 50),
	})
	item := outputObject(map[string]*jsonschema.Schema{
		"jobId":      str("Pass to await_command_result or cancel_command."),
		"status":     enum("The job's status.", jobStatuses...),
		"command":    str("The command (first 200 bytes)."),
		"paneId":     paneID("Where it runs."),
		"exitCode":   nullable(integer("Exit status, or null.", 0, 255)),
		"created":    str("When it was submitted (RFC 3339)."),
		"durationMs": count("How long it ran (so far)."),
	})
	tool := &mcp.Tool{
		Name:         "list_commands",
		Title:        "List commands",
		Description:  "List the jobs run with run_shell_command (also before a tmuxmcp restart), newest first, with status and exit code: to find a lost jobId for await_command_result.",
		InputSchema:  in,
		OutputSchema: outputObject(map[string]*jsonschema.Schema{"commands": {Type: "array", Items: item, Description: "Jobs, newest first."}}),
		Annotations:  &mcp.ToolAnnotations{Title: "List commands", ReadOnlyHint: true, DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)},
	}
	return typed(h, tool, h.listCommands)
}

func (h *Handlers) listCommands(_ context.Context, _ *mcp.CallToolRequest, in *listCommandsIn) (*listCommandsOut, error) {
	limit := 50
	if in.Limit != nil {
		limit = *in.Limit
	}
	out := &listCommandsOut{Commands: []commandSummary{}}
	for _, j := range h.jobs.List() {
		if in.Status != nil && string(j.Status) != *in.Status {
			continue
		}
		if len(out.Commands) == limit {
			break
		}
		r := h.jobResult(j)
		out.Commands = append(out.Commands, commandSummary{JobID: j.ID, Status: string(j.Status), Command: truncate(j.Command, 200),
			PaneID: j.PaneID, ExitCode: j.ExitCode, Created: j.Created.Format(time.RFC3339), DurationMs: r.DurationMs})
	}
	return out, nil
}
