package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tmuxmcp/tmuxmcp/cursor"
	"github.com/tmuxmcp/tmuxmcp/host"
	"github.com/tmuxmcp/tmuxmcp/jobs"
)

// Remote is a host other than this machine: its Host (its own fleet, hub
// and runner, its tmux server reached over SSH) is made on first use, and
// again after a failed attempt.
type Remote struct {
	// Name is the host's name, as tool calls pass it.
	Name string
	// JobsDir is where the host's job records are kept on this machine, so
	// a job of a host not connected yet can still be found.
	JobsDir string
	// Start connects to the host and returns its Host.
	Start func(ctx context.Context) (*Host, error)

	h       atomic.Pointer[Host] // once started; read without a lock
	startMu sync.Mutex           // one start attempt at a time
	err     error                // the last attempt's failure
	failed  time.Time            // when it failed

	requestsOnce sync.Once
	requests     map[string]string // requestId -> jobId of the records on disk, before the host starts
}

// retryAfter is how long a failed start answers for the host before the
// next call tries again: a host that is down costs each call at most one
// attempt in this time, never a queue of them.
const retryAfter = 2 * time.Second

// Host returns the remote host's Host, starting it when it is not running
// yet. An error says why the host cannot be reached now.
func (r *Remote) Host(ctx context.Context) (*Host, error) {
	if h := r.h.Load(); h != nil {
		return h, nil
	}
	r.startMu.Lock()
	defer r.startMu.Unlock()
	if h := r.h.Load(); h != nil {
		return h, nil
	}
	if r.err != nil && time.Since(r.failed) < retryAfter {
		return nil, r.err
	}
	h, err := r.Start(ctx)
	if err != nil {
		r.err, r.failed = err, time.Now()
		return nil, err
	}
	r.err = nil
	r.h.Store(h)
	return h, nil
}

// started returns the host's Host when it runs, without starting it or
// waiting for a start in progress.
func (r *Remote) started() *Host { return r.h.Load() }

// storedRequest is the job of requestId among the host's records on disk
// (read once, for a host not started yet), or "".
func (r *Remote) storedRequest(requestID string) string {
	r.requestsOnce.Do(func() { r.requests = jobs.RequestIndex(r.JobsDir) })
	return r.requests[requestID]
}

// Hosts are the hosts tool calls can name: this machine's (local) and the
// remote ones, each a Host of its own, made on first use.
type Hosts struct {
	local   *Host
	remotes []*Remote
}

// NewHosts returns the hosts: local, and remotes in the order given.
func NewHosts(local *Host, remotes ...*Remote) *Hosts {
	return &Hosts{local: local, remotes: remotes}
}

// Local is this machine's host.
func (hs *Hosts) Local() *Host { return hs.local }

// Remotes are the configured remote hosts, in the order given.
func (hs *Hosts) Remotes() []*Remote { return hs.remotes }

// Close closes every host that was started, the local one last.
func (hs *Hosts) Close() {
	for _, r := range hs.remotes {
		if rh := r.started(); rh != nil {
			rh.Close()
		}
	}
	hs.local.Close()
}

// Connect opens every remote host in the background, telling failed of
// each that cannot be reached (a later call naming it tries again).
func (hs *Hosts) Connect(ctx context.Context, failed func(name string, err error)) {
	for _, r := range hs.remotes {
		go func() {
			if _, err := r.Host(ctx); err != nil {
				failed(r.Name, err)
			}
		}()
	}
}

// Started are the hosts running now (local first), without starting any.
func (hs *Hosts) Started() []*Host {
	out := []*Host{hs.local}
	for _, r := range hs.remotes {
		if rh := r.started(); rh != nil {
			out = append(out, rh)
		}
	}
	return out
}

// Name is the host this Host's panes are on.
func (h *Host) Name() string { return h.opts.Host }

// Names lists every configured host, local first.
func (hs *Hosts) Names() []string {
	names := []string{host.Local}
	for _, r := range hs.remotes {
		names = append(names, r.Name)
	}
	return names
}

func (hs *Hosts) remote(name string) *Remote {
	for _, r := range hs.remotes {
		if r.Name == name {
			return r
		}
	}
	return nil
}

// IDs are the identifiers a call may carry that belong to one host: a
// call naming another host with them is refused, never read on the wrong
// host.
type IDs struct {
	JobID     string // a job's id (await_command_result, cancel_command)
	Cursor    string // a stream cursor (wait_for_text, capture_since)
	RequestID string // a run_shell_command requestId
}

// Pick returns the host a call runs on: the host named (local when
// empty), checked against the host its ids belong to; a job's own host
// when only its jobId names one.
func (hs *Hosts) Pick(ctx context.Context, name string, ids IDs) (*Host, error) {
	if ids.JobID != "" {
		if owner := hs.jobHost(ids.JobID); owner != "" {
			if name != "" && name != owner {
				return nil, errorf("job %s runs on host %s, not %s: pass host %q, or omit host", ids.JobID, owner, name, owner)
			}
			name = owner
		}
	}
	if name == "" {
		name = host.Local
	}
	if ids.RequestID != "" {
		if owner, job := hs.requestHost(ids.RequestID); owner != "" && owner != name {
			return nil, errorf("requestId %s already names job %s on host %s: a requestId is only for retrying the same call. Pass host %q to retry it, or use a new requestId for a new command", ids.RequestID, job, owner, owner)
		}
	}
	if ids.Cursor != "" {
		if c, err := cursor.Parse(ids.Cursor); err == nil {
			if owner := hs.cursorHost(c.Stream); owner != "" && owner != name {
				return nil, errorf("cursor %s is from a pane on host %s, not %s: pass host %q with that pane's paneId (a cursor is never read on another host's pane)", ids.Cursor, owner, name, owner)
			}
		}
	}
	if name == host.Local {
		return hs.local, nil
	}
	r := hs.remote(name)
	if r == nil {
		return nil, errorf("host %q is not configured: the hosts are %s (add one with --host NAME=ssh://[user@]host[:port])", name, strings.Join(hs.Names(), ", "))
	}
	rh, err := r.Host(ctx)
	if err != nil {
		return nil, errorf("host %s cannot be reached now: %v", name, err)
	}
	return rh, nil
}

// jobHost is the host whose records hold job id, or "".
func (hs *Hosts) jobHost(id string) string {
	if _, ok := hs.local.jobs.Get(id); ok {
		return host.Local
	}
	for _, r := range hs.remotes {
		if rh := r.started(); rh != nil {
			if _, ok := rh.jobs.Get(id); ok {
				return r.Name
			}
			continue
		}
		if filepath.Base(id) == id {
			if _, err := os.Stat(filepath.Join(r.JobsDir, id+".json")); err == nil {
				return r.Name
			}
		}
	}
	return ""
}

// requestHost is the host whose records hold a job with requestId, and
// that job's id ("" when none does).
func (hs *Hosts) requestHost(requestID string) (string, string) {
	if j, ok := hs.local.jobs.ByRequest(requestID); ok {
		return host.Local, j.ID
	}
	for _, r := range hs.remotes {
		if rh := r.started(); rh != nil {
			if j, ok := rh.jobs.ByRequest(requestID); ok {
				return r.Name, j.ID
			}
		} else if id := r.storedRequest(requestID); id != "" {
			return r.Name, id
		}
	}
	return "", ""
}

// cursorHost is the host whose recording id is, or "".
func (hs *Hosts) cursorHost(id cursor.StreamID) string {
	if _, ok := hs.local.hub.Stream(id); ok {
		return host.Local
	}
	for _, r := range hs.remotes {
		if rh := r.started(); rh != nil {
			if _, ok := rh.hub.Stream(id); ok {
				return r.Name
			}
		}
	}
	return ""
}

// HostError is a host that could not answer a call made on every host.
type HostError struct {
	Host  string `json:"host"`  // the host's name
	Error string `json:"error"` // why it could not answer
}
