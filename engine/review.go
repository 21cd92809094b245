package engine

import (
	"context"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/tmuxmcp/tmuxmcp/approval"
	"github.com/tmuxmcp/tmuxmcp/audit"
	"github.com/tmuxmcp/tmuxmcp/host"
	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/runner"
)

// DefaultReviewTimeout is how long a person has to answer (--review-timeout).
const DefaultReviewTimeout = 600 * time.Second

// humanClients lists the tmux clients people have attached (not control
// clients such as tmuxmcp's own).
func (h *Host) humanClients(ctx context.Context) []string {
	clients, err := h.fleet.Clients(ctx)
	if err != nil {
		return nil
	}
	var out []string
	for _, c := range clients {
		if !c.Control {
			out = append(out, c.Name)
		}
	}
	return out
}

// asker puts requests to the people attached to the server, each popup
// through its own short-lived tmux command (never the control connection,
// whose queue a waiting command would stall), and to the approver program.
// A popup runs where the tmux server does, so its files are kept on that
// machine.
func (h *Host) asker(ctx context.Context) *approval.Asker {
	target := h.fleet.Target()
	title := " tmuxmcp asks: run this command? "
	if h.opts.Host != host.Local {
		title = " tmuxmcp asks: run this command on host " + h.opts.Host + "? "
	}
	return &approval.Asker{
		Dir:          h.approvalDir(ctx),
		Files:        h.run.Machine(),
		Timeout:      h.opts.ReviewTimeout,
		Approver:     h.opts.Approver,
		ApproverArgs: h.opts.ApproverArgs,
		Log:          h.log,
		Popup: func(ctx context.Context, client, cmd string) error {
			return target.Popup(ctx, client, title, cmd)
		},
		Close: func(ctx context.Context, client string) {
			_ = target.ClosePopup(ctx, client)
		},
	}
}

// privateDirer is a machine with a private directory (host.SSH).
type privateDirer interface {
	Dir(ctx context.Context) (string, error)
}

// approvalDir is the directory, on the machine the popups run on, that
// holds open requests' files: under the state directory here, under the
// host's private directory on a remote host; "" when that cannot be told
// (then no popup is shown).
func (h *Host) approvalDir(ctx context.Context) string {
	if h.opts.Machine == nil {
		return filepath.Join(h.opts.StateDir, "approvals")
	}
	m, ok := h.opts.Machine.(privateDirer)
	if !ok {
		return ""
	}
	dir, err := m.Dir(ctx)
	if err != nil || !strings.HasPrefix(dir, "/") {
		if h.log != nil {
			h.log.Warn("approval popups: no private directory on the host", "err", err)
		}
		return ""
	}
	return path.Join(dir, "approvals")
}

// ask puts req, for this host, to the people attached to its
// tmux server and to the approver program, and returns the first answer.
func (h *Host) ask(ctx context.Context, req approval.Request) approval.Answer {
	req.Host = h.opts.Host
	return h.asker(ctx).Ask(ctx, h.humanClients(ctx), req)
}

// askInTmux asks the people attached to the server (and the approver
// program) about a request whose review startReview began, waits for the
// first answer (or ctx), ends the review and returns the decision and who
// made it.
func (h *Host) askInTmux(ctx context.Context, req approval.Request) (approval.Decision, string) {
	ans := h.ask(ctx, req)
	h.gate.slot.Release(ans.AllowAll)
	return ans.Decision, ans.By
}

// review runs a person's review of a pending job, then the job itself if
// approved. It runs as the job's run: cancel_command withdraws it.
func (h *Host) review(run *runner.Run, req approval.Request, l *launch) {
	in, pane := l.in, l.pane
	ctx := context.Background()
	// While the person is asked, cancel_command withdraws the request.
	rctx, endReview := context.WithCancel(ctx)
	withdrawn := make(chan struct{})
	go func() {
		select {
		case <-run.Stopped():
			close(withdrawn)
			endReview()
		case <-h.run.Closing():
			endReview()
		case <-rctx.Done():
		}
	}()
	// People watching the pane see the pending request in their status
	// line (tmux shows the pane title there by default).
	oldTitle := ""
	titled, err := parsePaneID("paneId", req.Pane)
	if err == nil {
		if p, err := h.fleet.Pane(rctx, titled); err == nil {
			oldTitle = p.Title
		}
		_ = h.fleet.SetPaneTitle(rctx, titled, "approve? "+truncate(approval.Visible(audit.Redact(req.Command)), 40))
	}
	ans := h.ask(rctx, req)
	endReview()
	if req.Pane != "" {
		tctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = h.fleet.SetPaneTitle(tctx, titled, oldTitle)
		cancel()
	}
	h.gate.slot.Release(ans.AllowAll)
	select {
	case <-withdrawn:
		ans = approval.Answer{Decision: approval.Rejected, By: "withdrawn by cancel_command"}
	default:
	}
	h.gate.record(verdict{Tool: req.Tool, JobID: req.RequestID, Pane: req.Pane, Command: req.Command, Decision: ans.Decision, By: ans.By, Reason: req.Reason, Sandbox: req.Sandbox})
	if ans.Decision != approval.Approved {
		_, _ = h.jobs.Update(req.RequestID, func(x *jobs.Job) { x.Decision, x.Ended = string(ans.Decision), time.Now().UTC() })
		return
	}
	// The pane may have changed while the person read the prompt: the
	// directory they were shown, and the policy, must still hold.
	if pane >= 0 {
		now := h.subject(ctx, pane, req.Command)
		if in.CWD == nil && now.CWD != req.CWD && req.CWD != "" {
			_, _ = h.jobs.Update(req.RequestID, func(x *jobs.Job) {
				x.Decision, x.Ended = string(approval.Rejected), time.Now().UTC()
				x.Output = "approved, but the pane's directory changed from " + req.CWD + " to " + now.CWD + " since the person was asked: not run"
			})
			h.gate.record(verdict{Tool: req.Tool, JobID: req.RequestID, Pane: req.Pane, Command: req.Command, Decision: approval.Rejected, By: "tmuxmcp: directory changed after approval"})
			return
		}
		if h.gate.policy != nil {
			if d, by, _ := h.gate.decide(now); d == approval.Blocked {
				_, _ = h.jobs.Update(req.RequestID, func(x *jobs.Job) { x.Decision, x.Ended = string(approval.Blocked), time.Now().UTC() })
				h.gate.record(verdict{Tool: req.Tool, JobID: req.RequestID, Pane: req.Pane, Command: req.Command, Decision: approval.Blocked, By: by})
				return
			}
		}
	}
	j, _ := h.jobs.Update(req.RequestID, func(x *jobs.Job) { x.Decision = string(approval.Approved) })
	if pane >= 0 {
		defer h.run.LockPane(pane)()
	}
	// The same start as a call's own (launch.begin), this run going on as
	// the job's; the pane's shell is read afresh, waiting a little for one
	// drawing its prompt.
	l.j, l.fresh, l.wait = j, false, 2*time.Second
	_, err = l.begin(context.Background(), func(j *jobs.Job) (*jobs.Job, error) {
		return h.jobs.Update(req.RequestID, func(x *jobs.Job) { x.PaneID, x.FreshPane, x.Status = j.PaneID, j.FreshPane, jobs.Running })
	}, run)
	if err != nil {
		_, _ = h.jobs.Update(req.RequestID, func(x *jobs.Job) {
			x.Status, x.Ended, x.LaunchError = jobs.NotStarted, time.Now().UTC(), "approved, but not started: "+err.Error()
		})
	}
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
