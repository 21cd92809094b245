package engine

import (
	"time"

	"github.com/tmuxmcp/tmuxmcp/approval"
	"github.com/tmuxmcp/tmuxmcp/jobs"
)

// jobEnded writes a job's completion to the audit log.
func (h *Host) jobEnded(j *jobs.Job) {
	h.lineAfterJob(j)
	h.gate.completed(j)
}

// resumePending ends the reviews a previous tmuxmcp opened: nobody is left
// to answer them.
func (h *Host) resumePending() {
	for _, j := range h.jobs.List() {
		if j.Decision != string(approval.Pending) {
			continue
		}
		_, _ = h.jobs.Update(j.ID, func(x *jobs.Job) { x.Decision, x.Ended = string(approval.DeniedError), time.Now().UTC() })
		h.gate.record(verdict{JobID: j.ID, Pane: j.PaneID, Command: j.Command, Decision: approval.DeniedError, By: "tmuxmcp: restarted during the review"})
	}
}

// lineAfterJob starts the pane's line afresh once a job in it is over: keys
// sent meanwhile went to the job's program (q to a pager, an answer to a
// prompt), not to the shell's next command line.
func (h *Host) lineAfterJob(j *jobs.Job) {
	if !j.Done() || j.PaneID == "" || h.gate.policy != nil {
		// Under a policy the line keeps what was typed: type-ahead the
		// job's program did not read reaches the shell, and must be
		// judged with the line (a stale line is refused; C-u clears it).
		return
	}
	if n, err := parsePaneID("paneId", j.PaneID); err == nil {
		h.lineSubmitted(n)
	}
}
