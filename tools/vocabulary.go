package tools

import (
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/tmuxmcp/tmuxmcp/approval"
	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/stream"
)

// statusMeans says what each job status tells the caller.
func statusMeans() map[jobs.Status]string {
	return map[jobs.Status]string{
		jobs.Completed:   "it ended by itself: see exitCode",
		jobs.Running:     "still going: call await_command_result with jobId — never run the command again",
		jobs.Interrupted: "cancel_command stopped it",
		jobs.TimedOut:    "it ran past timeoutMs and was stopped",
		jobs.PaneDied:    "its pane closed, or its shell ended: exitCode or signal say how, when tmux could tell",
		jobs.NotStarted:  "nothing ran: see launchError",
	}
}

// decisionMeans says what each reported decision tells the caller.
func decisionMeans() map[approval.Decision]string {
	const didNotRun = "it did not run: do not retry it in another form"
	return map[approval.Decision]string{
		approval.Approved:      "a person allowed it",
		approval.AutoApproved:  "the policy allowed it",
		approval.Pending:       "a person is being asked: await_command_result waits for the answer and the run",
		approval.Denied:        "a person refused it; " + didNotRun,
		approval.DeniedTimeout: "nobody answered in time; " + didNotRun,
		approval.DeniedError:   "asking failed; " + didNotRun,
		approval.Blocked:       "the policy denies it; " + didNotRun,
		approval.Rejected:      "withdrawn, or nobody could be asked; " + didNotRun,
	}
}

// outcomeMeans says what each wait outcome tells the caller.
func outcomeMeans() map[stream.Outcome]string {
	return map[stream.Outcome]string{
		stream.Matched:    "",
		stream.TimedOut:   "see alreadyOnScreen and screen",
		stream.PaneDied:   "the pane's program exited",
		stream.NoStream:   "the cursor's recording is gone: wait again without cursor",
		stream.Cancelled:  "",
		stream.OutputLost: "tmux dropped output; cursor resumes after the gap, capture_pane shows the screen",
		stream.StreamLost: "the tmux connection or the pane's recording ended: see streamFailure",
	}
}

// failureMeans says what each stream failure means.
func failureMeans() map[stream.Failure]string {
	return map[stream.Failure]string{
		stream.ConnectionLost:  "tmux server gone",
		stream.EventsDropped:   "tmux discarded output because it fell behind",
		stream.Expired:         "the cursor's recording is gone: tmuxmcp restarted or the pane was respawned",
		stream.HubClosed:       "tmuxmcp is shutting down",
		stream.TopologyChanged: "the pane's window moved between sessions",
	}
}

// terms is the enum schema of a vocabulary: its values in their owner's
// order, described as lead, then each value with its meaning, then tail.
func terms[T ~string](lead string, values []T, means map[T]string, tail string) *jsonschema.Schema {
	var b strings.Builder
	if lead != "" {
		b.WriteString(lead + ": ")
	}
	for i, v := range values {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(string(v))
		if m := means[v]; m != "" {
			b.WriteString(" (" + m + ")")
		}
	}
	b.WriteString(".")
	if tail != "" {
		b.WriteString(" " + tail)
	}
	return enum(b.String(), names(values)...)
}

// names spells a vocabulary's values as strings.
func names[T ~string](values []T) []string {
	s := make([]string, len(values))
	for i, v := range values {
		s[i] = string(v)
	}
	return s
}
