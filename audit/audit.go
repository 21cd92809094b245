// Package audit writes the approval audit log: one JSON line per decision
// and per completion of a command, each naming the host it ran on, with
// secrets in command texts redacted. It knows nothing of tmux or MCP.
package audit

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/tmuxmcp/tmuxmcp/private"
)

// Event is one line of the log.
type Event struct {
	Time  time.Time `json:"time"`
	Event string    `json:"event"` // "decision" or "completed"
	// Host is the host the command is for: LocalHost (this machine, also
	// when empty: every line names its host) or the name given with --host.
	Host      string `json:"host"`
	RequestID string `json:"requestId,omitempty"`
	JobID     string `json:"jobId,omitempty"`
	PaneID    string `json:"paneId,omitempty"`
	Tool      string `json:"tool,omitempty"`
	Command   string `json:"command,omitempty"`
	Decision  string `json:"decision,omitempty"`
	DecidedBy string `json:"decidedBy,omitempty"` // "policy:<rule>", "tmux:<client>", "elicitation"
	Reason    string `json:"reason,omitempty"`    // the agent's reason for the command
	Refusal   string `json:"refusal,omitempty"`   // why nobody could decide (OWNER_SESSION_UNAVAILABLE, REVIEW_BUSY)
	Status    string `json:"status,omitempty"`
	ExitCode  *int   `json:"exitCode,omitempty"`

	// Sandbox is where the command or pane runs when tmuxmcp has a
	// sandbox: read-only, workspace, or unsandboxed (an escalated command,
	// a pane from before tmuxmcp).
	Sandbox string `json:"sandbox,omitempty"`
}

// LocalHost is the host name of this machine in the log.
const LocalHost = "local"

// Log appends events to a file.
type Log struct {
	mu sync.Mutex
	f  *os.File
}

// Open opens (creating, mode 0600) the log at path for appending. An
// existing log must be a private file of the user's (package private): a
// file another user owns, or may read or write, or a symbolic link, is
// refused with the fix.
func Open(path string) (*Log, error) {
	f, err := private.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND)
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	return &Log{f: f}, nil
}

// Record writes ev (command redacted, time set when zero, host LocalHost
// when empty) as one line. A nil Log records nothing.
func (l *Log) Record(ev Event) error {
	if l == nil {
		return nil
	}
	if ev.Time.IsZero() {
		ev.Time = time.Now().UTC()
	}
	if ev.Host == "" {
		ev.Host = LocalHost
	}
	ev.Command, ev.Reason = Redact(ev.Command), Redact(ev.Reason)
	b, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	_, err = l.f.Write(append(b, '\n'))
	return err
}

// Close closes the file.
func (l *Log) Close() error {
	if l == nil {
		return nil
	}
	return l.f.Close()
}
