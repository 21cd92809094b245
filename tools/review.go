package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/tmuxmcp/tmuxmcp/approval"
	"github.com/tmuxmcp/tmuxmcp/audit"
	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/policy"
	"github.com/tmuxmcp/tmuxmcp/runner"
	"github.com/tmuxmcp/tmuxmcp/shell"
)

// DefaultReviewTimeout is how long a person has to answer (--review-timeout).
const DefaultReviewTimeout = 600 * time.Second

// reviewRequest is what a person is asked to approve.
type reviewRequest struct {
	id, tool, pane, program, cwd, command, reason string
	env                                           map[string]string
}

// reviewAnswer is how the review ended.
type reviewAnswer struct {
	decision     string // approved, denied, denied-timeout or denied-error
	client       string // the tmux client that answered
	allowSession bool   // "allow for the rest of this session"
}

// humanClients lists the tmux clients people have attached (not control
// clients such as tmuxmcp's own).
func (h *Handlers) humanClients(ctx context.Context) []string {
	lines, err := h.fleet.Exec(ctx, "list-clients", "-F", "#{client_control_mode}\x1f#{client_name}")
	if err != nil {
		return nil
	}
	var out []string
	for _, l := range lines {
		if f := strings.Split(l, "\x1f"); len(f) == 2 && f[0] != "1" && f[1] != "" {
			out = append(out, f[1])
		}
	}
	return out
}

const reviewScript = `# tmuxmcp approval prompt: $1 is the file that receives the answer.
cat "$2"
printf '\n  [y] allow once   [a] allow for the rest of this session   [n] deny  '
while :; do
  stty -icanon -echo 2>/dev/null
  k=$(dd bs=1 count=1 2>/dev/null)
  stty icanon echo 2>/dev/null
  case "$k" in
    y|Y|a|A|n|N) break ;;
    q|"$(printf '\033')") k=n; break ;;
  esac
done
printf '%s' "$k" > "$1"
`

// askInTmux asks the people attached to the server about a request whose
// review startReview began, waits for the first answer (or ctx), ends the
// review and returns the decision and who made it.
func (h *Handlers) askInTmux(ctx context.Context, req reviewRequest) (decision, by string) {
	ans := h.askPeople(ctx, h.humanClients(ctx), req)
	h.mu.Lock()
	h.reviewing = false
	if ans.allowSession {
		h.allowAll = true
	}
	h.mu.Unlock()
	return ans.decision, ans.decidedBy()
}

// decidedBy names who answered, for the audit log: "tmux:<client>".
func (a reviewAnswer) decidedBy() string {
	switch {
	case a.client == "":
		return "tmux"
	case strings.HasPrefix(a.client, "exec:"):
		return a.client
	}
	return "tmux:" + a.client
}

// askPeople shows the request in a popup on every client in clients, each
// through its own short-lived tmux command (never the control connection,
// whose queue a waiting command would stall). The first answer wins and
// the other popups close; no answer within the review timeout is
// denied-timeout.
func (h *Handlers) askPeople(ctx context.Context, clients []string, req reviewRequest) reviewAnswer {
	dir := filepath.Join(h.opts.StateDir, "approvals")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return reviewAnswer{decision: "denied-error"}
	}
	details := filepath.Join(dir, req.id+".txt")
	script := filepath.Join(dir, req.id+".sh")
	where := "a new pane"
	if req.pane != "" {
		where = "pane " + req.pane
	}
	text := approval.Text(where, req.program, req.cwd, req.command, req.reason, req.env)
	_ = os.WriteFile(details, []byte(text), 0o600)
	_ = os.WriteFile(script, []byte(reviewScript), 0o600)
	defer func() {
		_ = os.Remove(details)
		_ = os.Remove(script)
	}()

	type result struct {
		client, answer string
		err            error
		timedOut       bool // the approver program was silent
	}
	askers := len(clients)
	if h.opts.Approver != "" {
		askers++
	}
	results := make(chan result, askers)
	target := h.fleet.Target()
	var wg sync.WaitGroup
	actx, withdraw := context.WithCancel(ctx) // ends the approver program once an answer is in
	defer withdraw()
	if h.opts.Approver != "" {
		host, _ := os.Hostname()
		areq := approval.Request{RequestID: req.id, Tool: req.tool, Command: req.command, Shown: approval.Visible(req.command), Pane: req.pane, Program: req.program, CWD: req.cwd, Host: host, Reason: req.reason, Env: req.env}
		wg.Add(1)
		go func() {
			defer wg.Done()
			pctx, cancel := context.WithTimeout(actx, h.opts.ReviewTimeout)
			defer cancel()
			d, err := approval.AskProgram(pctx, h.opts.Approver, areq)
			answer := map[approval.Decision]string{approval.Approved: "y", approval.Denied: "n"}[d]
			if err != nil && h.log != nil {
				h.log.Warn("approver program", "program", h.opts.Approver, "decision", d, "err", err)
			}
			results <- result{client: "exec:" + filepath.Base(h.opts.Approver), answer: answer, err: err, timedOut: d == approval.DeniedTimeout}
		}()
	}
	for i, c := range clients {
		answer := filepath.Join(dir, fmt.Sprintf("%s.%d.answer", req.id, i))
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer os.Remove(answer)
			pctx, cancel := context.WithTimeout(ctx, h.opts.ReviewTimeout+10*time.Second)
			defer cancel()
			_, err := target.Run(pctx, "display-popup", "-c", c, "-E", "-w", "90%", "-h", "60%",
				"-T", " tmuxmcp asks: run this command? ", "sh "+shell.Quote(script)+" "+shell.Quote(answer)+" "+shell.Quote(details))
			got, _ := os.ReadFile(answer)
			results <- result{client: c, answer: strings.TrimSpace(string(got)), err: err}
		}()
	}
	closeAll := func() {
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		for _, c := range clients {
			_, _ = target.Run(cctx, "display-popup", "-C", "-c", c)
		}
	}
	timer := time.NewTimer(h.opts.ReviewTimeout)
	defer timer.Stop()
	ans := reviewAnswer{decision: "denied"}
	failed, closed, silent := 0, 0, 0
wait:
	for closed < askers {
		select {
		case r := <-results:
			closed++
			switch strings.ToLower(r.answer) {
			case "y":
				ans = reviewAnswer{decision: "approved", client: r.client}
				break wait
			case "a":
				ans = reviewAnswer{decision: "approved", client: r.client, allowSession: true}
				break wait
			case "n":
				ans = reviewAnswer{decision: "denied", client: r.client}
				break wait
			}
			switch {
			case r.timedOut:
				silent++
			case r.err != nil:
				failed++
			}
		case <-timer.C:
			ans = reviewAnswer{decision: "denied-timeout"}
			break wait
		case <-ctx.Done():
			ans = reviewAnswer{decision: "denied-error"}
			break wait
		}
	}
	switch {
	case closed == askers && failed == askers:
		ans.decision = "denied-error"
	case closed == askers && silent > 0 && ans.client == "":
		ans.decision = "denied-timeout"
	}
	withdraw()
	closeAll()
	wg.Wait()
	return ans
}

// review runs a person's review of a pending job, then the job itself if
// approved. It runs as the job's run: cancel_command withdraws it.
func (h *Handlers) review(run *runner.Run, req reviewRequest, in *runIn, pane int) {
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
	if n, err := parsePaneID("paneId", req.pane); err == nil {
		if p, err := h.fleet.Pane(rctx, n); err == nil {
			oldTitle = p.Title
		}
		_, _ = h.fleet.Exec(rctx, "select-pane", "-t", req.pane, "-T", "approve? "+truncate(approval.Visible(audit.Redact(req.command)), 40))
	}
	ans := h.askPeople(rctx, h.humanClients(rctx), req)
	endReview()
	if req.pane != "" {
		tctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, _ = h.fleet.Exec(tctx, "select-pane", "-t", req.pane, "-T", oldTitle)
		cancel()
	}
	h.mu.Lock()
	h.reviewing = false
	h.mu.Unlock()
	select {
	case <-withdrawn:
		ans = reviewAnswer{decision: "rejected", client: "withdrawn by cancel_command"}
	default:
	}
	h.audit(audit.Event{Event: "decision", Tool: req.tool, JobID: req.id, PaneID: req.pane, Command: req.command, Decision: ans.decision, DecidedBy: ans.decidedBy(), Reason: req.reason})
	if ans.allowSession {
		h.mu.Lock()
		h.allowAll = true
		h.mu.Unlock()
	}
	if ans.decision != "approved" {
		_, _ = h.jobs.Update(req.id, func(x *jobs.Job) { x.Decision, x.Ended = ans.decision, time.Now().UTC() })
		return
	}
	// The pane may have changed while the person read the prompt: the
	// directory they were shown, and the policy, must still hold.
	if pane >= 0 {
		now := h.subject(ctx, pane, req.command)
		if in.CWD == nil && now.CWD != req.cwd && req.cwd != "" {
			_, _ = h.jobs.Update(req.id, func(x *jobs.Job) {
				x.Decision, x.Ended = "rejected", time.Now().UTC()
				x.Output = "approved, but the pane's directory changed from " + req.cwd + " to " + now.CWD + " since the person was asked: not run"
			})
			h.audit(audit.Event{Event: "decision", Tool: req.tool, JobID: req.id, PaneID: req.pane, Command: req.command, Decision: "rejected", DecidedBy: "tmuxmcp: directory changed after approval"})
			return
		}
		if h.opts.Policy != nil {
			if v := approval.Judge(h.opts.Policy, now); v.Action == policy.Deny {
				_, _ = h.jobs.Update(req.id, func(x *jobs.Job) { x.Decision, x.Ended = "blocked", time.Now().UTC() })
				h.audit(audit.Event{Event: "decision", Tool: req.tool, JobID: req.id, PaneID: req.pane, Command: req.command, Decision: "blocked", DecidedBy: v.By})
				return
			}
		}
	}
	j, _ := h.jobs.Update(req.id, func(x *jobs.Job) { x.Decision = "approved" })
	fail := func(err error) {
		_, _ = h.jobs.Update(req.id, func(x *jobs.Job) {
			x.Ended, x.LaunchError = time.Now().UTC(), "approved, but not started: "+err.Error()
		})
	}
	cwd := ""
	if in.CWD != nil {
		cwd = *in.CWD
	}
	if pane < 0 {
		np, err := h.run.CreatePane(ctx, runner.PaneSpec{Name: firstNonEmpty(j.Description, "tmuxmcp job"), CWD: cwd})
		if err != nil {
			fail(err)
			return
		}
		j, _ = h.jobs.Update(req.id, func(x *jobs.Job) { x.PaneID, x.FreshPane, x.Status = paneName(np.Pane), true, jobs.Running })
		h.run.RunFreshIn(run, j, np) // this run goes on as the job's: await and cancel find it
		return
	}
	defer h.run.LockPane(pane)()
	sh, err := h.run.Ready(ctx, pane, 2*time.Second)
	if err != nil {
		fail(h.runnerError("paneId", pane, err))
		return
	}
	j, _ = h.jobs.Update(req.id, func(x *jobs.Job) { x.Status = jobs.Running })
	st, err := h.run.Start(ctx, j, sh, cwd)
	if err != nil {
		_, _ = h.jobs.Update(req.id, func(x *jobs.Job) { x.Status = jobs.NotStarted })
		fail(err)
		return
	}
	h.run.Watch(run, st)
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
