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
}

// LocalHost is the host name of this machine in the log.
const LocalHost = "local"

// Log appends events to a file.
type Log struct {
	mu sync.Mutex
	f  *os.File
}

// Open opens (creating) the log at path for appending.
func Open(path string) (*Log, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
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
