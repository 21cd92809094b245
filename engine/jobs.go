package engine

import (
	"github.com/tmuxmcp/tmuxmcp/input"
	"github.com/tmuxmcp/tmuxmcp/jobs"
)

// Job is the record of job id, as the host keeps it.
func (h *Host) Job(id string) (*jobs.Job, bool) { return h.jobs.Get(id) }

// TypedLine is pane's edit line as tmuxmcp typed it (what the policy
// judges with the screen's line when input submits it).
func (h *Host) TypedLine(pane int) input.Line { return h.line(pane) }
