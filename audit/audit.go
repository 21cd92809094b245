// Package audit writes the approval audit log: one JSON line per decision
// and per completion of a command, with secrets in command texts redacted.
// It knows nothing of tmux or MCP.
package audit

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sync"
	"time"
)

// Event is one line of the log.
type Event struct {
	Time      time.Time `json:"time"`
	Event     string    `json:"event"` // "decision" or "completed"
	RequestID string    `json:"requestId,omitempty"`
	JobID     string    `json:"jobId,omitempty"`
	PaneID    string    `json:"paneId,omitempty"`
	Tool      string    `json:"tool,omitempty"`
	Command   string    `json:"command,omitempty"`
	Decision  string    `json:"decision,omitempty"`
	DecidedBy string    `json:"decidedBy,omitempty"` // "policy:<rule>", "tmux:<client>", "elicitation"
	Reason    string    `json:"reason,omitempty"`    // the agent's reason for the command
	Refusal   string    `json:"refusal,omitempty"`   // why nobody could decide (OWNER_SESSION_UNAVAILABLE, REVIEW_BUSY)
	Status    string    `json:"status,omitempty"`
	ExitCode  *int      `json:"exitCode,omitempty"`
}

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

// Record writes ev (command redacted, time set when zero) as one line.
// A nil Log records nothing.
func (l *Log) Record(ev Event) error {
	if l == nil {
		return nil
	}
	if ev.Time.IsZero() {
		ev.Time = time.Now().UTC()
	}
	ev.Command = Redact(ev.Command)
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

var secrets = []struct {
	re   *regexp.Regexp
	repl string
}{
	// user:password@ in URLs
	{regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@]+):[^@\s/]+@`), "$1:[REDACTED]@"},
	// NAME_KEY=value, TOKEN=..., PASSWORD=..., SECRET=...
	{regexp.MustCompile(`(?i)\b([A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PWD|CREDENTIALS?)[A-Z0-9_]*)=("[^"]*"|'[^']*'|[^\s;&|'"]+)`), "$1=[REDACTED]"},
	// Authorization headers
	{regexp.MustCompile(`(?i)(authorization:\s*(?:bearer|basic|token)\s+)[^\s;&|'"]+`), "$1[REDACTED]"},
	// --password x, --token=x, -p secret is too ambiguous to touch
	{regexp.MustCompile(`(?i)(--(?:password|passwd|token|secret|api-key|apikey)[= ])("[^"]*"|'[^']*'|[^\s;&|'"]+)`), "$1[REDACTED]"},
	// well-known token shapes
	{regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_-]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16})\b`), "[REDACTED]"},
}

// Redact replaces secrets in a command text with [REDACTED].
func Redact(s string) string {
	for _, r := range secrets {
		s = r.re.ReplaceAllString(s, r.repl)
	}
	return s
}
