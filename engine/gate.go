package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"
	"github.com/tmuxmcp/tmuxmcp/approval"
	"github.com/tmuxmcp/tmuxmcp/audit"
	"github.com/tmuxmcp/tmuxmcp/host"
	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/policy"
	"github.com/tmuxmcp/tmuxmcp/shell"
)

// The reasons of an OwnerReviewUnavailable error (SPEC §4).
const (
	ownerSessionUnavailable = "OWNER_SESSION_UNAVAILABLE"
	reviewBusy              = "REVIEW_BUSY"
)

// ownerReviewUnavailable is the tool error for a command that needs a
// person's approval when no person can be asked: nothing ran.
func ownerReviewUnavailable(reason, what string) error {
	return errorf("OwnerReviewUnavailable: reason=%s launchOutcome=NOT_STARTED. %s needs a person's approval under this server's policy, and no person can be asked now, so nothing was typed or run. Report this to the user and wait for them; do not resubmit it automatically or in another form", reason, what)
}

// resolveTimeout bounds resolving a directory where the panes run.
const resolveTimeout = 5 * time.Second

// subject describes what input would be submitted where, for the policy:
// the host, the program it goes to, the shell whose language it is in
// (when that program is a shell) and the directory, resolved on the host.
func (h *Host) subject(ctx context.Context, pane int, command string) approval.Subject {
	s := approval.Subject{Line: command, Host: h.opts.Host}
	if pane < 0 {
		s.Program = h.run.DefaultShell(ctx)
	} else if p, err := h.fleet.Pane(ctx, pane); err == nil {
		s.Program = programName(p.CurrentCommand, p.Program)
		s.CWD, s.CWDUnresolved = h.resolveDir(ctx, p.CWD)
	}
	if _, ok := shell.KindOf(s.Program); ok {
		s.Program = strings.TrimPrefix(filepath.Base(s.Program), "-")
		s.Shell = s.Program
	}
	return s
}

// resolveDir is dir as the policy judges it: cleaned, and its symbolic
// links resolved on the machine the panes run on (never this one for a
// remote host; there, a directory that cannot be resolved stays cleaned).
//
// unresolved says a remote host could not be asked (as opposed to
// answering that there is no such directory): the policy then judges the
// line no better than ask.
func (h *Host) resolveDir(ctx context.Context, dir string) (resolved string, unresolved bool) {
	ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	var failed error
	r := dirResolverFunc(func(ctx context.Context, d string) (string, error) {
		real, err := h.run.Machine().ResolveDir(ctx, d)
		failed = err
		return real, err
	})
	resolved = approval.ResolveDir(ctx, r, dir)
	return resolved, h.opts.Machine != nil && failed != nil && !errors.Is(failed, host.ErrNoDirectory)
}

// dirResolverFunc is a function as an approval.DirResolver.
type dirResolverFunc func(ctx context.Context, dir string) (string, error)

// ResolveDir calls f.
func (f dirResolverFunc) ResolveDir(ctx context.Context, dir string) (string, error) {
	return f(ctx, dir)
}

// judge decides on command about to run in pane (-1: a new pane), in cwd
// when given: the decision for the result and audit log, who decided, and
// the subject it judged. A nil policy allows everything without reading
// the pane.
func (h *Host) judge(ctx context.Context, pane int, command, cwd string) (decision approval.Decision, decidedBy, why string, subj approval.Subject) {
	if h.gate.policy == nil {
		return approval.AutoApproved, "policy:default", "", approval.Subject{Line: command, CWD: cwd, Host: h.opts.Host}
	}
	subj = h.subject(ctx, pane, command)
	if subj.Shell == "" {
		// run_shell_command's text always goes to a shell (a fresh pane's
		// default-command, or a pane whose shell is not told by name).
		subj.Shell = "bash"
	}
	if cwd != "" {
		subj.CWD, subj.CWDUnresolved = h.resolveDir(ctx, cwd)
	}
	decision, decidedBy, why = h.gate.decide(subj)
	return decision, decidedBy, why, subj
}

// Gate is a host's approval of input: its policy, the one review open at
// a time (and a person's "allow for this session"), the questions open
// with callers' clients, and the audit log every decision is recorded in.
// Asking the people attached to the host's tmux server is the Host's
// (review.go): it needs the fleet.
type Gate struct {
	host    string         // the host's name, on every audit line
	policy  *policy.Policy // nil allows everything
	log     *audit.Log     // may be nil
	warn    *slog.Logger   // where a failed audit write is told
	slot    approval.Slot
	elicits approval.Elicitations
}

// newGate is the gate of the host cfg describes.
func newGate(cfg Config, warn *slog.Logger) *Gate {
	return &Gate{host: cfg.Host, policy: cfg.Policy, log: cfg.Audit, warn: warn}
}

// decide applies the (non-nil) policy to subj on the gate's host: the
// decision, who made it, and for a refusal that is no rule's, why.
func (g *Gate) decide(subj approval.Subject) (decision approval.Decision, decidedBy, why string) {
	subj.Host = g.host
	v := approval.Judge(g.policy, subj)
	switch v.Action {
	case policy.Deny:
		return approval.Blocked, v.By, v.Why
	case policy.Ask:
		// "Allow everything" covers what a person could have read: a
		// line that does not parse, or hides what it runs in a value
		// decided at run time, is still asked.
		if g.slot.AllowedAll() && v.By != "policy:unparsed" && v.By != "policy:unseen" {
			return approval.AutoApproved, "tmux:allowed for this session", ""
		}
		return approval.Ask, v.By, v.Why
	}
	return approval.AutoApproved, v.By, ""
}

// verdict is one decision on input, as the audit log records it.
type verdict struct {
	Tool      string
	RequestID string
	JobID     string
	Pane      string
	Command   string
	Decision  approval.Decision
	By        string // who decided: a rule, a person, "nobody"
	Reason    string // the agent's reason for the command
	Refusal   string // why nobody could decide (OWNER_SESSION_UNAVAILABLE, REVIEW_BUSY)
	Sandbox   string // where it runs, when the host has a sandbox
}

// record writes a decision to the audit log: the one place decisions are
// recorded.
func (g *Gate) record(v verdict) {
	g.audit(audit.Event{Event: "decision", Tool: v.Tool, RequestID: v.RequestID, JobID: v.JobID, PaneID: v.Pane, Command: v.Command, Decision: string(v.Decision), DecidedBy: v.By, Reason: v.Reason, Refusal: v.Refusal, Sandbox: v.Sandbox})
}

// completed writes a job's end to the audit log.
func (g *Gate) completed(j *jobs.Job) {
	g.audit(audit.Event{Event: "completed", RequestID: j.RequestID, JobID: j.ID, PaneID: j.PaneID, Status: string(j.Status), ExitCode: j.ExitCode})
}

// startReview claims the one review slot, or says why nobody can be asked.
func (h *Host) startReview(ctx context.Context, tool string, pane int, command string) error {
	if len(h.humanClients(ctx)) == 0 && h.opts.Approver == "" {
		h.gate.record(verdict{Tool: tool, Pane: paneOrEmpty(pane), Command: command, Decision: approval.Rejected, By: "nobody", Refusal: ownerSessionUnavailable})
		return ownerReviewUnavailable(ownerSessionUnavailable, fmt.Sprintf("This input (%s)", truncate(approval.Visible(command), 60)))
	}
	if !h.gate.slot.Claim() {
		h.gate.record(verdict{Tool: tool, Pane: paneOrEmpty(pane), Command: command, Decision: approval.Rejected, By: "nobody", Refusal: reviewBusy})
		return ownerReviewUnavailable(reviewBusy, fmt.Sprintf("This input (%s)", truncate(approval.Visible(command), 60)))
	}
	return nil
}

func paneOrEmpty(pane int) string {
	if pane < 0 {
		return ""
	}
	return paneName(pane)
}

// audit records an event, naming the gate's host, when an audit log is
// configured.
func (g *Gate) audit(ev audit.Event) {
	if ev.Host == "" {
		ev.Host = g.host
	}
	if err := g.log.Record(ev); err != nil && g.warn != nil {
		g.warn.Warn("audit log", "err", err)
	}
}

// allowLaunch applies the approval policy to a program create_pane starts
// (argv; nil for the default shell) with the environment env: the command
// judged is the line a shell would need to run it (env assignments, then
// argv quoted), its program argv[0], and every variable is judged by name.
func (h *Host) allowLaunch(ctx context.Context, argv []string, env map[string]string, cwd string) error {
	if h.gate.policy == nil {
		return nil
	}
	program := ""
	if len(argv) == 0 {
		program = h.run.DefaultShell(ctx)
		argv = []string{program}
	}
	command := launchLine(argv, env)
	subj := approval.Subject{Line: command, Shell: "bash", Program: filepath.Base(argv[0]), Env: env, Host: h.opts.Host}
	subj.CWD, subj.CWDUnresolved = h.resolveDir(ctx, cwd)
	decision, by, why := h.gate.decide(subj)
	if decision == approval.Ask {
		if sh := approval.Show(command); sh.TooLong {
			h.gate.record(verdict{Tool: "create_pane", Command: command, Decision: approval.Rejected, By: "tmuxmcp: too long to show"})
			return tooLongToShow(sh)
		}
		if err := h.startReview(ctx, "create_pane", -1, command); err != nil {
			return err
		}
		decision, by = h.askInTmux(ctx, approval.Request{RequestID: strings.ToLower(ulid.Make().String()), Tool: "create_pane", Program: subj.Program, CWD: subj.CWD, Command: command, Env: env, Sandbox: h.sandboxShown(false)})
	}
	h.gate.record(verdict{Tool: "create_pane", Command: command, Decision: decision, By: by, Sandbox: h.sandboxShown(false)})
	switch {
	case decision.Runs():
		return nil
	case decision == approval.Blocked:
		return errorf("blocked by this server's policy (%s)%s: the pane was not created. Do not retry it in another form; tell the user what you wanted to run and why", by, because(why))
	}
	return errorf("%s by the person asked (%s): the pane was not created. Do not retry it in another form; ask the user what to do instead", decision, by)
}

// launchLine is argv with env as the shell line that would run it.
func launchLine(argv []string, env map[string]string) string {
	var parts []string
	names := make([]string, 0, len(env))
	for n := range env {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		parts = append(parts, n+"="+shell.Quote(env[n]))
	}
	for _, a := range argv {
		parts = append(parts, shellWord(a))
	}
	return strings.Join(parts, " ")
}

// shellWord quotes a only when a shell would need it, so rules written for
// commands (^git status, \brm\s+-r) match argv as they match a typed line.
func shellWord(a string) string {
	if a != "" && !strings.ContainsFunc(a, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%^", r))
	}) {
		return a
	}
	return shell.Quote(a)
}

// because renders why after a decision, or "".
func because(why string) string {
	if why == "" {
		return ""
	}
	return ": " + why
}

// tooLongToShow is the tool error for a command a person would have to
// approve without being able to read it.
func tooLongToShow(sh approval.Shown) error {
	return errorf("this input needs a person's approval, but at %d bytes it takes more than %d rows of %d characters, so it cannot be shown whole and is not put to anyone: nothing ran. Put the long part in a file (a script you show the user first), then ask to run the short command that uses it", sh.Bytes, approval.MaxShownRows, approval.ShowWidth)
}
