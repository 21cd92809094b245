// Package runner is tmuxmcp's command engine: it decides whether a pane's
// shell can take a command now (Ready, waiting out a shell that is still
// starting or drawing its prompt, refusing with the real state otherwise),
// starts integrated shells in new panes, types a command or sources it
// from a job script, watches the shell's marks for the command's start,
// end and exit status, waits until the next prompt is drawn and read, stops
// a command on request (Ctrl-C, then signals), and writes each job's output.
// It works on job records (package jobs) and knows nothing of MCP or
// approval: tools/ decides whether a command may run, and renders the
// Refusals and results.
package runner

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tmuxmcp/tmuxmcp/cursor"
	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/machine"
	"github.com/tmuxmcp/tmuxmcp/shell"
	"github.com/tmuxmcp/tmuxmcp/stream"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// Config is what a Runner works with.
type Config struct {
	Hub   *stream.Hub
	Fleet *tmux.Fleet
	Jobs  *jobs.Store
	// Shell is the installed integration; nil starts shells without it
	// (every command then runs through a job script).
	Shell *shell.Integration
	// Session is the session fresh panes are created in.
	Session string
	Log     *slog.Logger
	// Ended is called once for every job that reaches a final status after
	// it started (for the audit log).
	Ended func(*jobs.Job)
	// Env is extra environment for every pane the runner creates (a
	// pane's own Env wins): shell.NoPagerEnv unless pagers are kept.
	Env map[string]string
	// Machine is where the panes run; nil is this machine, with job
	// scripts in the job store's directory.
	Machine machine.Machine
	// Remote says the tmux server is reached over a link that can drop
	// while the server and its commands go on: a lost connection leaves
	// running jobs running (Resume watches them again once it is back).
	Remote bool
	// Sandbox, when set, runs every pane the runner creates in a sandbox
	// (but a PaneSpec's Unsandboxed).
	Sandbox Sandbox
	// ShellProgram, when set, is the shell the panes the runner creates
	// start (--shell), instead of tmux's default-shell and default-command.
	ShellProgram string
	// KeepFinished is how long the window of a fresh-pane job stays once
	// its job ended, dead, showing its output and exit status
	// (--keep-finished; finished.go); 0 closes it at once.
	KeepFinished time.Duration
}

// Sandbox puts a pane's program in a sandbox.
type Sandbox interface {
	// Wrap is the command line that runs argv in the sandbox for a pane
	// whose shell has tag ("" for a program without the integration); its
	// job scripts' directory (JobDir) is reachable inside. An error says
	// why the sandbox cannot start, and its fix: nothing is created.
	Wrap(argv []string, tag string) ([]string, error)
	// JobDir is where the job scripts of the sandboxed pane whose shell
	// has tag go (read-only inside), and their status files (writable
	// inside); "" for a pane in no sandbox (the machine's ScriptPath).
	JobDir(tag string) (scripts, status string)
	// Mode names the sandbox, for results and the audit log.
	Mode() string
}

// paneServer is what the runner asks of tmux: the methods of *tmux.Fleet
// it calls, so that its tests can stand in for a server.
type paneServer interface {
	Pane(ctx context.Context, pane int) (tmux.PaneInfo, error)
	PaneScreen(ctx context.Context, pane int) (tmux.PaneInfo, []string, error)
	NewPane(ctx context.Context, spec tmux.NewPaneSpec) (tmux.NewPaneInfo, error)
	KillPane(ctx context.Context, pane int) error
	SetPaneTitle(ctx context.Context, pane int, title string) error
	SetPaneOption(ctx context.Context, pane int, name, value string) error
	UnsetPaneOption(ctx context.Context, pane int, name string) error
	KeepDeadPane(ctx context.Context, pane int) (tmux.KeptDead, error)
	RestoreDeadPane(ctx context.Context, pane int, kd tmux.KeptDead) error
	FinishPane(ctx context.Context, pane int, fin tmux.Finished) error
	CloseFinished(ctx context.Context, pane int, until time.Time) error
	SendKeys(ctx context.Context, pane int, keys ...string) error
	MarkPane(ctx context.Context, pane int, mark func()) error
	SignalChannel(ctx context.Context, channel string) error
	DefaultShell(ctx context.Context) (shell, command string, err error)
	TypeText(ctx context.Context, pane int, text, buffer string, submit bool) error
	Clients(ctx context.Context) ([]tmux.Client, error)
	RefreshPanes()
}

// server is f as the runner's paneServer: nil when f is.
func server(f *tmux.Fleet) paneServer {
	if f == nil {
		return nil
	}
	return f
}

// Runner runs commands in panes. Its methods are safe for concurrent use.
type Runner struct {
	cfg     Config
	hub     *stream.Hub
	fleet   paneServer
	jobs    *jobs.Store
	log     *slog.Logger
	machine machine.Machine // where the panes run

	resumeMu sync.Mutex // Resume, one at a time

	mu      sync.Mutex
	runs    map[string]*Run       // jobs being watched (or waiting to start)
	outputs map[string]*jobOutput // the output of each job being watched
	prompts map[int]promptSeen    // the last prompt seen per pane
	locks   map[int]paneLock      // input to a pane, judged and sent as one
	tags    map[int]string        // the tag of each pane's integrated shell, from the pane listings
	broken  map[int]brokenSeen    // panes whose integrated shell was found drawing unmarked prompts
	// released holds, per pane, the recording during which its shell was
	// let start (a session's first pane waits for tmuxmcp): that shell's
	// whole start is in that recording, however long it waited.
	released map[int]cursor.StreamID
	// finished holds the windows of finished fresh-pane jobs kept to show
	// their end, each with its close timer (finished.go).
	finished    map[int]finishedPane
	finishedSeq uint64 // the last finishedPane.seq
	// suspects holds, per pane, the recording in which end or prompt
	// marks came that its shell did not print (a program learnt its
	// tag): its jobs' ends wait for the whole proof.
	suspects map[int]cursor.StreamID
	// learning holds, per pane, a channel closed when the look after a
	// cleared line (LineCleared) is done: readiness waits for it.
	learning map[int]chan struct{}
	closing  chan struct{}
	once     sync.Once
	wg       sync.WaitGroup
}

// promptSeen is a prompt line tmuxmcp saw a pane's shell draw, with the
// recording it saw it in and the shell (its process group: the pane's own
// shell, or one it started).
type promptSeen struct {
	stream cursor.StreamID
	shell  int
	text   string
}

// New returns a runner; Resume picks up jobs of an earlier process.
func New(cfg Config) *Runner {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Machine == nil {
		cfg.Machine = machine.Local{Dir: cfg.Jobs.Dir()}
	}
	return &Runner{cfg: cfg, hub: cfg.Hub, fleet: withTags(server(cfg.Fleet), cfg.Shell), jobs: cfg.Jobs, log: cfg.Log, machine: cfg.Machine,
		runs: map[string]*Run{}, prompts: map[int]promptSeen{}, locks: map[int]paneLock{}, tags: map[int]string{}, broken: map[int]brokenSeen{}, learning: map[int]chan struct{}{}, closing: make(chan struct{})}
}

// Machine is where the runner's panes run.
func (r *Runner) Machine() machine.Machine { return r.machine }

// SetFleet gives the runner its tmux connections, when they are made after
// the runner (their first pane listing already reaches Track).
func (r *Runner) SetFleet(f *tmux.Fleet) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fleet = withTags(server(f), r.cfg.Shell)
}

// Close stops every watcher; running jobs stay running in their records
// and are watched again by the next process's Resume.
func (r *Runner) Close() {
	r.once.Do(func() {
		close(r.closing)
		r.wg.Wait()
	})
}

// LockPane serialises input to one pane (a launch, typed text, keys) from
// judging to sending, so nothing can be added to a line between its
// approval and its Enter. It returns the unlock.
//
// The lock belongs to the pane's recording: a later pane with the same id
// (after a tmux restart) never waits behind a call stuck on the old one.
func (r *Runner) LockPane(pane int) func() {
	var rec cursor.StreamID
	if s, ok := r.hub.Live(pane); ok {
		rec = s.ID()
	}
	r.mu.Lock()
	l, ok := r.locks[pane]
	if !ok || l.rec != rec {
		l = paneLock{rec: rec, mu: &sync.Mutex{}}
		r.locks[pane] = l
	}
	r.mu.Unlock()
	l.mu.Lock()
	return l.mu.Unlock
}

// paneLock is a pane's input lock, for one recording of the pane.
type paneLock struct {
	rec cursor.StreamID
	mu  *sync.Mutex
}

// ForgetPane drops what the runner remembers of a pane that is gone (its
// prompt, its input lock, its integration's state), so that nothing of it
// reaches a later pane with the same id.
func (r *Runner) ForgetPane(pane int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.locks, pane)
	delete(r.prompts, pane)
	delete(r.broken, pane)
	delete(r.tags, pane)
	delete(r.suspects, pane)
}

// suspectMarks records that marks with pane's shell tag came, in
// recording s, that its shell did not print.
func (r *Runner) suspectMarks(pane int, s *stream.PaneStream) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.suspects == nil {
		r.suspects = map[int]cursor.StreamID{}
	}
	r.suspects[pane] = s.ID()
}

// marksSuspect reports whether marks the shell did not print came in
// pane's recording s.
func (r *Runner) marksSuspect(pane int, s *stream.PaneStream) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	id, ok := r.suspects[pane]
	return ok && id == s.ID()
}

// Run is a job being watched, or waiting to start: its goroutine owns the
// stream reading and the escalation; Await waits on it.
type Run struct {
	ID       string
	done     chan struct{}
	stop     chan jobs.Status // interrupted or timed_out
	stopping atomic.Bool      // a stop was requested: awaits wait for the end
	begun    chan struct{}    // closed when the command's output begins
	beginO   sync.Once
}

// markBegun says the command's output has begun (its start mark came).
func (run *Run) markBegun() { run.beginO.Do(func() { close(run.begun) }) }

// Stopped is where a stop request (cancel_command, the job's timeout)
// arrives.
func (run *Run) Stopped() <-chan jobs.Status { return run.stop }

func (run *Run) requestStop(st jobs.Status) {
	run.stopping.Store(true)
	select {
	case run.stop <- st:
	default:
	}
}

// Go registers a run for job id (Await and Cancel find it) and runs body in
// a goroutine; the run is done when body returns. While the runner is
// closing it does nothing: the record stays as it is, for the next process.
func (r *Runner) Go(id string, body func(*Run)) {
	run := &Run{ID: id, done: make(chan struct{}), stop: make(chan jobs.Status, 1), begun: make(chan struct{})}
	r.mu.Lock()
	select {
	case <-r.closing:
		r.mu.Unlock()
		return
	default:
	}
	if _, dup := r.runs[id]; dup {
		// Watched already (a resume got there first): one watcher a job.
		r.mu.Unlock()
		return
	}
	r.runs[id] = run
	r.wg.Add(1)
	r.mu.Unlock()
	go func() {
		defer r.wg.Done()
		defer func() {
			if p := recover(); p != nil {
				r.log.Error("job watcher failed", "job", id, "panic", p)
				// The record must not stay running with nobody watching.
				_, _ = r.jobs.Update(id, func(x *jobs.Job) {
					if !x.Done() {
						x.Status, x.Ended = jobs.Interrupted, time.Now().UTC()
						x.LaunchError = fmt.Sprintf("tmuxmcp stopped watching this job after an internal error (%v): its outcome is unknown; look at its pane", p)
					}
				})
			}
			r.mu.Lock()
			if r.runs[id] == run {
				delete(r.runs, id)
			}
			r.mu.Unlock()
			close(run.done)
		}()
		body(run)
	}()
}

// Closing is closed when the runner stops.
func (r *Runner) Closing() <-chan struct{} { return r.closing }

// Await waits up to wait (or ctx) for job id's run to end, or for its
// program to wait for input (WaitingForInput), and returns the
// job's record as it is then.
func (r *Runner) Await(ctx context.Context, id string, wait time.Duration) (*jobs.Job, bool) {
	r.mu.Lock()
	run := r.runs[id]
	r.mu.Unlock()
	if run != nil {
		if j, ok := r.jobs.Get(id); ok {
			r.awaitInput(ctx, run, j, wait)
		}
		if j, ok := r.jobs.Get(id); ok && !j.Done() && j.Decision != "pending" && (!j.Started.IsZero() || wait > 0 && j.FreshPane && j.PaneID != "") {
			// Typed (or about to be, in a fresh pane whose shell starts,
			// when the caller waited at all: a background call waits in
			// Begun) but its start mark not seen yet: wait a moment for
			// it, so the result's cursor is after tmuxmcp's own typed line.
			// waitMs 0 in a fresh pane returns at once (no cursor yet).
			limit := beginWait
			if j.Started.IsZero() {
				limit = freshBeginWait // a fresh pane's shell reads its startup files first
			}
			t := time.NewTimer(limit)
			select {
			case <-run.begun:
			case <-run.done:
			case <-t.C:
			case <-ctx.Done():
			}
			t.Stop()
		}
	}
	return r.jobs.Get(id)
}

// Begun waits (up to freshBeginWait, or ctx) until job id's command has
// begun — its start mark read — or ended: a background command's result
// then has its cursor at the command's first byte, a fresh pane's too.
func (r *Runner) Begun(ctx context.Context, id string) {
	r.mu.Lock()
	run := r.runs[id]
	r.mu.Unlock()
	if j, ok := r.jobs.Get(id); run == nil || !ok || j.Done() || j.Decision == "pending" {
		return
	}
	t := time.NewTimer(freshBeginWait)
	defer t.Stop()
	select {
	case <-run.begun:
	case <-run.done:
	case <-t.C:
	case <-ctx.Done():
	}
}

// beginWait bounds how long a result waits for a command's start mark
// (the shell echoes the line and starts it within milliseconds; a fresh
// pane's shell first reads its startup files).
const beginWait = 2 * time.Second

// freshBeginWait is beginWait for a command whose fresh pane's shell is
// still starting.
const freshBeginWait = 10 * time.Second

// Cancel asks job id's run to stop it (interrupt, then signals). It
// reports whether the job had a run.
func (r *Runner) Cancel(id string) bool {
	r.mu.Lock()
	run := r.runs[id]
	r.mu.Unlock()
	if run != nil {
		run.requestStop(jobs.Interrupted)
	}
	return run != nil
}

// runningIn returns the job still running in pane, if any.
func (r *Runner) runningIn(paneID string) (*jobs.Job, bool) {
	r.mu.Lock()
	ids := make([]string, 0, len(r.runs))
	for id := range r.runs {
		ids = append(ids, id)
	}
	r.mu.Unlock()
	for _, id := range ids {
		// A job not typed yet is the one waiting for this pane's shell.
		if j, ok := r.jobs.Get(id); ok && j.PaneID == paneID && !j.Done() && !j.Started.IsZero() {
			return j, true
		}
	}
	return nil, false
}

// Track installs the input-region scanner (shell.InputRegions) on the
// recordings of panes that run an integrated shell tmuxmcp started, so
// waits never match what its line editor draws. It is cheap to call with
// every pane listing: a recording keeps its scanner.
//
// A pane whose shell waits to start until it is recorded (a session's
// first pane, SessionLaunch) is told to go on.
func (r *Runner) Track(panes []tmux.PaneInfo) {
	panes = r.secretTags(panes)
	tags := make(map[int]string, len(panes))
	for _, p := range panes {
		if p.ShellTag != "" && !p.Dead {
			tags[p.ID] = p.ShellTag
		}
	}
	r.mu.Lock()
	r.tags = tags
	r.mu.Unlock()
	for _, p := range panes {
		if p.Dead && !p.FinishedUntil.IsZero() {
			r.keepListed(p.ID, p.FinishedUntil) // left by an earlier tmuxmcp, or by this one
		}
		if p.ShellTag == "" || p.Dead {
			continue
		}
		if s, ok := r.hub.Live(p.ID); ok && !s.HasScanner() {
			s.SetScanner(shell.NewInputRegions(p.ShellTag, 0))
		}
		r.mu.Lock()
		fleet := r.fleet
		r.mu.Unlock()
		if p.StartAfter != "" && fleet != nil {
			// Track runs on the fleet's own goroutine: the commands go from
			// another one.
			pane, ch := p.ID, p.StartAfter
			r.mu.Lock()
			if s, ok := r.hub.Live(p.ID); ok {
				if r.released == nil {
					r.released = map[int]cursor.StreamID{}
				}
				r.released[p.ID] = s.ID()
			}
			if !r.addWorkerLocked() {
				r.mu.Unlock()
				continue
			}
			r.mu.Unlock()
			go func() {
				defer r.wg.Done()
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				_ = fleet.UnsetPaneOption(ctx, pane, tmux.StartOption)
				_ = fleet.SignalChannel(ctx, ch)
			}()
		}
	}
}

func paneName(n int) string { return tmux.PaneName(n) }

func ptr[T any](v T) *T { return &v }

// Prompted waits (up to max, or ctx) while the integrated shell of pane is
// between a command's end and its next drawn prompt, so text typed right
// after a command is not read by a shell still running its prompt hooks
// (bash would echo it twice, zsh would lose a character). It returns at
// once for any other pane, and whenever a command runs.
func (r *Runner) Prompted(ctx context.Context, pane int, max time.Duration) {
	r.mu.Lock()
	tag := r.tags[pane]
	r.mu.Unlock()
	s, ok := r.hub.Live(pane)
	if tag == "" || !ok {
		return
	}
	t := time.NewTimer(max)
	defer t.Stop()
	for {
		changed := s.ReadRaw(s.End(), 0, nil).Changed
		if last := lastMarks(s, tag).last; last != 'D' && last != 'A' {
			return
		}
		select {
		case <-changed:
		case <-t.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// addWorkerLocked counts a goroutine about to start in r.wg (Close waits
// for it), unless the runner is closing; r.mu must be held.
func (r *Runner) addWorkerLocked() bool {
	select {
	case <-r.closing:
		return false
	default:
	}
	r.wg.Add(1)
	return true
}
