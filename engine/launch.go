package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tmuxmcp/tmuxmcp/approval"
	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/runner"
	"github.com/tmuxmcp/tmuxmcp/shell"
	"github.com/tmuxmcp/tmuxmcp/stream"
)

// launch is one run_shell_command on its way to a job, a step per method
// in the order they are taken: the job its requestId already names
// (prior), the pane and directory (where), the pane's readiness (ready),
// the policy's decision and a person's answer (decide, notRun,
// askPerson), then the job record and the typing (begin: inPane,
// inFreshPane). An approved review (Host.review) goes on from begin.
type launch struct {
	h     *Host
	c     Caller
	in    *RunShellCommandRequest
	j     *jobs.Job
	pane  int    // -1: a fresh pane
	cwd   string // the cwd asked for, or ""
	sh    *runner.Shell
	fresh bool          // sh is this call's reading of the pane, nothing waited on since
	wait  time.Duration // how long begin waits for a shell not ready
	// outside: the pane (not a fresh one) is outside the host's sandbox
	// (there before tmuxmcp, or an escalated pane kept).
	outside bool
	// lookedAt is when ready last found the pane's shell ready.
	lookedAt time.Time
	// shell is the shell a fresh pane starts, as checked ("": asked again
	// when the pane is made).
	shell string
}

// Submit starts the command in: the one start path of a job. It returns
// the job: started, pending a person's answer, refused (recorded, with the
// decision), or the job its requestId already names. It holds startMu, so
// a pane gets one job at a time and a requestId one job.
func (h *Host) Submit(ctx context.Context, c Caller, in *RunShellCommandRequest) (*jobs.Job, error) {
	if err := h.connected(); err != nil {
		return nil, err
	}
	l := &launch{h: h, c: c, in: in, j: newJob(h.opts.Host, in), pane: -1}
	if p, ok, err := l.prior(); ok {
		return p, err
	}
	if err := l.where(ctx); err != nil {
		return nil, err
	}
	if l.pane < 0 {
		var err error
		if l.shell, err = h.checkedShell(ctx); err != nil {
			return nil, err
		}
	}
	if l.pane < 0 && !l.unsandboxed() {
		if err := h.checkSandbox(); err != nil {
			return nil, err
		}
	}
	if l.pane >= 0 {
		// Wait out a shell that is starting or drawing its prompt before
		// taking a lock, so the wait holds up neither other launches nor
		// keys sent to this pane meanwhile.
		if err := l.ready(ctx, readyWait(in)); err != nil {
			return nil, err
		}
	}
	h.startMu.Lock()
	defer h.startMu.Unlock()
	if p, ok, err := l.prior(); ok {
		return p, err // the same request, launched meanwhile
	}
	if l.pane >= 0 {
		defer h.run.LockPane(l.pane)()
		// Under the lock, nothing else types into the pane: look again,
		// and refuse a pane that cannot take the command before anyone is
		// asked to approve it, unless the pane has not changed since the
		// look a moment ago.
		if !l.unchanged() {
			if err := l.ready(ctx, 0); err != nil {
				return nil, err
			}
		}
	}
	return l.decide(ctx)
}

// prior is the job the request's requestId already names, if any: the same
// command's (a retry), or an error for a different command.
func (l *launch) prior() (*jobs.Job, bool, error) {
	p, ok := l.h.jobs.ByRequest(l.j.RequestID)
	if ok && p.Command != l.j.Command {
		return nil, true, errorf("requestId %s already names job %s, which ran a different command (%q): a requestId is only for retrying the same call. Use a new requestId for a new command, or await_command_result(%s) for the first one", l.j.RequestID, p.ID, truncate(p.Command, 80), p.ID)
	}
	return p, ok, nil
}

// where checks the pane and the directory asked for.
func (l *launch) where(ctx context.Context) error {
	if l.in.PaneID != nil {
		l.pane, _ = parsePaneID("paneId", *l.in.PaneID)
		if _, _, err := l.h.paneStream(ctx, "paneId", *l.in.PaneID); err != nil {
			return err
		}
	}
	if err := l.h.dirExists(ctx, l.in.CWD, "nothing was run. Create it first or pick another"); err != nil {
		return err
	}
	if l.in.CWD != nil {
		l.cwd = *l.in.CWD
	}
	return nil
}

// ready reads the pane's shell, waiting up to wait for one starting or
// drawing its prompt, and refuses a pane that cannot take a command.
func (l *launch) ready(ctx context.Context, wait time.Duration) error {
	if st := l.h.line(l.pane); st.Open {
		// A command tmuxmcp typed that fish kept open in its editor (its
		// screen looks like a fresh line): the command would be typed
		// into it.
		return l.h.runnerError("paneId", l.pane, &runner.Refusal{Pane: l.pane, State: runner.Continuation, Line: strings.TrimSuffix(st.Text, "\n"), TypedByUs: true})
	}
	var err error
	l.sh, err = l.h.run.Ready(ctx, l.pane, wait)
	if err == nil {
		l.lookedAt = time.Now() // Submit takes it again, under the lock, when nothing changed since
	}
	var ref *runner.Refusal
	if errors.As(err, &ref) && ref.State == runner.HalfTyped && ref.Shell != nil && runner.OwnKeysOnly(ref.Typed) {
		if st := l.h.line(l.pane); st.Unsure != "" && st.Text == "" {
			// What the line shows is what tmuxmcp's own control keys drew
			// (a quoted insert waiting, an unbound key): resetLine clears it.
			l.sh, err = ref.Shell, nil
		}
	}
	l.fresh = err == nil
	return l.h.runnerError("paneId", l.pane, err)
}

// lookAgainAfter bounds how old a look at a pane may be for Submit to
// take it again under the pane's lock, the pane unchanged since.
const lookAgainAfter = 50 * time.Millisecond

// unchanged reports whether the pane is as the look at it (ready) found
// it a moment ago: its shell still reading at its prompt, since nothing
// was printed in it and no input was sent to it since (a shell at its
// prompt changes only on input, and what it reads it draws).
func (l *launch) unchanged() bool {
	if l.sh == nil || l.sh.Stream == nil || time.Since(l.lookedAt) > lookAgainAfter {
		return false
	}
	s, ok := l.h.hub.Live(l.pane)
	return ok && s == l.sh.Stream && s.End() == l.sh.SeenEnd && s.LastActivity().Equal(l.sh.SeenActivity)
}

// decide applies the policy (and the answer the caller brings), then
// records the job and starts it, or records why it did not run.
func (l *launch) decide(ctx context.Context) (*jobs.Job, error) {
	decision, decidedBy, why, subj := l.h.judge(ctx, l.pane, l.j.Command, l.cwd)
	l.outside = l.pane >= 0 && l.sh != nil && l.h.outside(l.sh.PID)
	if l.unsandboxed() && (decision == approval.AutoApproved || decision == approval.Ask) {
		// Leaving the sandbox is a person's call, under every policy (a
		// rule that blocks the command still blocks it).
		decision, decidedBy = approval.Ask, escalateBy
		if l.outside {
			decision, decidedBy = approval.Ask, outsideBy
		}
		if subj.Line == "" {
			subj = approval.Subject{Line: l.j.Command, CWD: l.cwd, Host: l.h.opts.Host}
		}
	}
	if decision == approval.Ask && elicitAnswered(l.c) {
		l.fresh = false
		d, err := l.h.elicitDecision(l.c, elicitation{Command: l.j.Command, Pane: paneOrEmpty(l.pane), CWD: l.cwd, RequestID: l.j.RequestID, Sandbox: l.sandboxShown(), Escalate: l.unsandboxed()})
		if err != nil {
			return nil, err
		}
		decision, decidedBy = d, "elicitation"
	}
	switch decision {
	case approval.Ask:
		return l.askPerson(ctx, subj)
	case approval.Blocked, approval.Denied:
		// Recorded, so a retry with the requestId gets the same answer;
		// the policy's reason tells the agent what to change.
		if decision == approval.Blocked && why != "" {
			l.j.LaunchError = "blocked by the policy (" + decidedBy + "): " + why
		}
		return l.notRun(decision, decidedBy)
	}
	l.j.Decision = string(decision)
	return l.begin(ctx, func(j *jobs.Job) (*jobs.Job, error) {
		created, err := l.h.jobs.Create(j)
		if err != nil {
			return nil, recordError(err)
		}
		l.h.gate.record(l.decided(created, decidedBy, true))
		return created, nil
	}, nil)
}

// notRun records the job as refused: nothing was typed.
func (l *launch) notRun(d approval.Decision, by string) (*jobs.Job, error) {
	l.j.Status, l.j.Decision, l.j.PaneID = jobs.NotStarted, string(d), paneOrEmpty(l.pane)
	created, err := l.h.jobs.Create(l.j)
	if err == nil {
		l.h.gate.record(l.decided(created, by, false))
	}
	return created, err
}

// decided is the verdict on the job, as the audit log records it.
func (l *launch) decided(j *jobs.Job, by string, withReason bool) verdict {
	v := verdict{Tool: "run_shell_command", RequestID: j.RequestID, JobID: j.ID, Pane: j.PaneID, Command: j.Command, Decision: approval.Decision(j.Decision), By: by, Sandbox: l.sandboxShown()}
	if withReason {
		v.Reason = j.Reason
	}
	return v
}

// askPerson puts the command to a person: through the caller's client
// (the call ends with a ClientAsk), or in tmux popups (the job is pending
// and its run goes on in the background once they answer).
func (l *launch) askPerson(ctx context.Context, subj approval.Subject) (*jobs.Job, error) {
	h, j := l.h, l.j
	if sh := approval.Show(j.Command); sh.TooLong {
		h.gate.record(verdict{Tool: "run_shell_command", Pane: paneOrEmpty(l.pane), Command: j.Command, Decision: approval.Rejected, By: "tmuxmcp: too long to show"})
		return nil, tooLongToShow(sh)
	}
	switch h.reviewRoute(ctx, l.c) {
	case "elicitation":
		return nil, h.askClient(elicitation{Command: j.Command, Pane: paneOrEmpty(l.pane), CWD: l.cwd, RequestID: j.RequestID, Program: subj.Program, Sandbox: l.sandboxShown(), Escalate: l.unsandboxed()}, j.Reason)
	case "tmux":
	default:
		// The audit line names the refusal in reason, as it always has
		// (tools read it there).
		h.gate.record(verdict{Tool: "run_shell_command", Pane: paneOrEmpty(l.pane), Command: j.Command, Decision: approval.Rejected, Reason: ownerSessionUnavailable})
		return nil, ownerReviewUnavailable(ownerSessionUnavailable, fmt.Sprintf("This command (%s)", truncate(approval.Visible(j.Command), 60)))
	}
	if err := h.startReview(ctx, "run_shell_command", l.pane, j.Command); err != nil {
		return nil, err
	}
	// A pending job: the person's answer, then the run, come later.
	j.Status, j.Decision, j.PaneID = jobs.NotStarted, string(approval.Pending), paneOrEmpty(l.pane)
	created, err := h.jobs.Create(j)
	if err != nil {
		h.gate.slot.Release(false)
		return nil, err
	}
	req := approval.Request{RequestID: created.ID, Tool: "run_shell_command", Pane: created.PaneID, Program: subj.Program, CWD: subj.CWD, Command: j.Command, Reason: j.Reason,
		Sandbox: l.sandboxShown(), Escalate: l.unsandboxed()}
	h.run.Go(created.ID, func(run *runner.Run) { h.review(run, req, l) })
	return created, nil
}

// begin puts the job in its pane: a fresh pane made now, or the pane's
// shell typed into. save records the job before anything is typed (a new
// record, or a pending one updated; its error is returned as it is); run
// is the job's run when it has one already (a review that was approved),
// nil to start one.
func (l *launch) begin(ctx context.Context, save func(*jobs.Job) (*jobs.Job, error), run *runner.Run) (*jobs.Job, error) {
	if l.pane < 0 {
		return l.inFreshPane(ctx, save, run)
	}
	return l.inPane(ctx, save, run)
}

// inFreshPane makes the job's pane now, so the result names it; its shell
// may still be starting, and the command is typed once it is ready, while
// the call's waitMs goes on.
func (l *launch) inFreshPane(ctx context.Context, save func(*jobs.Job) (*jobs.Job, error), run *runner.Run) (*jobs.Job, error) {
	h, j := l.h, l.j
	np, err := h.run.CreatePane(ctx, runner.PaneSpec{Name: firstNonEmpty(j.Description, windowName(j.Command), "tmuxmcp job"), CWD: l.cwd, Unsandboxed: l.unsandboxed(), Shell: l.shell})
	if err != nil {
		return nil, h.createError(err, h.opts.Session, nil)
	}
	j.PaneID, j.FreshPane, j.Status = paneName(np.Pane), true, jobs.Running
	saved, err := save(j)
	if err != nil {
		_ = h.fleet.KillPane(context.WithoutCancel(ctx), np.Pane)
		return nil, err
	}
	if run != nil {
		h.run.RunFreshIn(run, saved, np) // this run goes on as the job's: await and cancel find it
	} else {
		h.run.RunFresh(saved, np)
	}
	return saved, nil
}

// inPane records the job and types it into the pane's shell.
func (l *launch) inPane(ctx context.Context, save func(*jobs.Job) (*jobs.Job, error), run *runner.Run) (*jobs.Job, error) {
	h, j := l.h, l.j
	if err := l.resetLine(ctx); err != nil {
		return nil, err
	}
	if !l.fresh {
		if err := l.ready(ctx, l.wait); err != nil {
			return nil, err
		}
	}
	j.PaneID, j.Status = paneName(l.pane), jobs.Running
	saved, err := save(j)
	if err != nil {
		return nil, err
	}
	st, err := h.run.Start(ctx, saved, l.sh, l.cwd)
	if err != nil {
		_, _ = h.jobs.Update(saved.ID, func(x *jobs.Job) { x.Status = jobs.NotStarted; x.Ended = time.Now().UTC() })
		return nil, h.paneError("paneId", l.pane, err)
	}
	if run != nil {
		h.run.Watch(run, st)
	} else {
		h.run.Spawn(st)
	}
	return saved, nil
}

// resetLine resets the line editor of the pane's shell with C-c when keys
// sent since its last prompt may have left it in a state the screen does
// not show (a pending Escape or Meta prefix, vi command mode, a quoted
// insert): keys tmuxmcp sent (send_keys, type_text), or keys a person's
// client sent to the pane since it last printed anything (personKeys). A
// command typed into it would run changed, as a different command. Ready
// found the line showing nothing but the prompt, so nothing of a person's
// is discarded. The shell is read again after it.
func (l *launch) resetLine(ctx context.Context) error {
	if l.sh == nil {
		return nil
	}
	unsure := l.h.line(l.pane).Unsure
	what := fmt.Sprintf("after the keys sent to it (%q)", unsure)
	if unsure == "" {
		// fish reads a lone Escape as Escape once fish_escape_delay_ms has
		// passed, so a person's keys leave nothing pending there (and its
		// reset costs a second); bash's readline and zle wait for the next
		// key.
		if l.sh.Kind == shell.Fish {
			return nil
		}
		if unsure = l.h.personKeys(ctx, l.pane, l.sh.Stream); unsure == "" {
			return nil
		}
		what = "after " + unsure
	}
	if !l.fresh {
		if err := l.ready(ctx, l.wait); err != nil {
			return err
		}
	}
	err := l.h.run.ResetLine(ctx, l.sh)
	l.h.lineSubmitted(l.pane)
	l.fresh = false
	if err != nil {
		return errorf("paneId %s: %s, its shell's line editor may be in a mode that would change the command (a pending Escape, vi command mode, a quoted insert), and %v: nothing was typed. Look at it with capture_pane, or omit paneId to run in a fresh pane", paneName(l.pane), what, err)
	}
	return nil
}

// personKeys says whether a person's tmux client may have sent keys to
// pane since the pane last printed (a lone Escape prints nothing and
// changes the next command): a client showing the pane as its active one
// whose last key (tmux counts whole seconds) came in the second of the
// pane's last output or later. It returns what to say then, else "".
func (h *Host) personKeys(ctx context.Context, pane int, s *stream.PaneStream) string {
	if s == nil {
		return ""
	}
	clients, err := h.fleet.Clients(ctx)
	if err != nil {
		return ""
	}
	quietSince := s.LastActivity().Unix()
	for _, c := range clients {
		if !c.Control && c.Pane == pane && !c.Activity.IsZero() && c.Activity.Unix() >= quietSince {
			return "keys a person's terminal (" + c.Name + ") sent to it since its last output"
		}
	}
	return ""
}

// newJob is the record of the command in, before it is decided on.
func newJob(host string, in *RunShellCommandRequest) *jobs.Job {
	j := &jobs.Job{Host: host, Command: in.Command, Status: jobs.Running, OutputLimit: DefaultOutputLimit, Keep: in.Keep,
		RequestID: deref(in.RequestID), Reason: deref(in.Reason), Description: deref(in.Description)}
	if in.OutputLimit != nil {
		j.OutputLimit = *in.OutputLimit
	}
	if in.TimeoutMs != nil {
		j.TimeoutMs = *in.TimeoutMs
	}
	return j
}

// unsandboxed reports whether the command runs outside the host's
// sandbox: an escalated one, or one for a pane outside it (without a
// sandbox, neither changes anything).
func (l *launch) unsandboxed() bool { return l.h.sandbox != nil && (l.in.Escalate || l.outside) }

// escalateBy is who decided an escalated command must be asked.
const escalateBy = "escalate: leaving the sandbox is always asked"

// outsideBy is who decided input to a pane outside the sandbox must be
// asked.
const outsideBy = "sandbox: input to a pane outside the sandbox is always asked"

// sandboxShown is where the command runs, for the audit log and the
// person asked: "" when the host has no sandbox.
func (l *launch) sandboxShown() string {
	if l.h.sandbox == nil {
		return ""
	}
	if l.pane >= 0 && l.sh != nil {
		return l.h.paneSandboxMode(l.sh.PID)
	}
	return l.h.newPaneSandbox(l.unsandboxed())
}

// windowName is a fresh pane's window name for command: its first line,
// spaces folded, cut to 30 characters ("…" says it was cut).
func windowName(command string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(command), "\n")
	r := []rune(strings.Join(strings.Fields(line), " "))
	if len(r) > 30 {
		return string(r[:29]) + "…"
	}
	return string(r)
}
