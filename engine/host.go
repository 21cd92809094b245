package engine

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tmuxmcp/tmuxmcp/audit"
	"github.com/tmuxmcp/tmuxmcp/host"
	"github.com/tmuxmcp/tmuxmcp/input"
	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/machine"
	"github.com/tmuxmcp/tmuxmcp/policy"
	"github.com/tmuxmcp/tmuxmcp/runner"
	"github.com/tmuxmcp/tmuxmcp/sandbox"
	"github.com/tmuxmcp/tmuxmcp/shell"
	"github.com/tmuxmcp/tmuxmcp/stream"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// Config is what a Host is opened with: its tmux server, its limits, its
// state directory, the approval policy and how people are asked.
type Config struct {
	// Target is the tmux server the host drives (its Via reaches a remote
	// one).
	Target tmux.Target
	// Retain and RetainTotal bound the output kept per pane and in all,
	// in bytes (0: stream's defaults).
	Retain, RetainTotal int
	// Log gets the host's warnings; nil discards them.
	Log *slog.Logger
	// Session is the session new panes go to when none is given.
	Session string
	// WaitMax is the ceiling on a wait's timeout.
	WaitMax time.Duration
	// ResultMax is the ceiling on the bytes of text one result returns.
	ResultMax int
	// StateDir holds job records, their outputs and the shell integration
	// scripts; default $XDG_STATE_HOME/tmuxmcp.
	StateDir string
	// Policy decides whether submitted input may run; nil allows all.
	Policy *policy.Policy
	// Audit receives a line per decision and per job completion; may be nil.
	Audit *audit.Log
	// ReviewTimeout is how long a person has to answer an approval prompt.
	ReviewTimeout time.Duration
	// RestartServer, when set, starts the tmux server again: set it only
	// for a server tmuxmcp started itself (the embedded default, a remote
	// host's private one), never for one the user chose with -L/-S. The
	// next call that finds the server gone calls it (revive.go).
	RestartServer func(context.Context) error
	// ApprovalVia lists how to ask a person, in order of preference:
	// "tmux" (a popup on attached clients), "elicitation" (the caller's
	// client asks its user) and "exec" (the program Approver). Default:
	// tmux, then elicitation.
	ApprovalVia []string
	// Approver is the program a person away from the terminal answers
	// through (--approval-via exec:PROGRAM): it races the tmux popups.
	Approver string
	// ApproverArgs are the arguments Approver is started with (the
	// subcommand of --approval-via telegram).
	ApproverArgs []string
	// Shell is the installed shell integration; nil installs it under
	// StateDir/shell.
	Shell *shell.Integration
	// KeepPagers leaves PAGER, GIT_PAGER, MANPAGER, SYSTEMD_PAGER,
	// PSQL_PAGER, GH_PAGER and AWS_PAGER alone in the panes tmuxmcp
	// creates; by default they are set so nothing opens a pager
	// (shell.NoPagerEnv).
	KeepPagers bool
	// Host names the host this Host's panes are on (host.Local when
	// empty); Machine is that host (nil: this machine).
	Host    string
	Machine machine.Machine
	// ShellProgram, when set, is the shell every pane tmuxmcp starts runs
	// (--shell), instead of tmux's default-shell; one tmuxmcp cannot run
	// commands in is refused (CheckShell).
	ShellProgram string
	// KeepFinished is how long a fresh-pane job's window stays, dead,
	// showing its output and exit status once the job ended
	// (runner.Config.KeepFinished); 0 closes it at once.
	KeepFinished time.Duration
	// Sandbox is the sandbox every pane tmuxmcp starts runs in (--sandbox,
	// --workspace, --sandbox-network); Mode "" or off: none. Only this
	// machine's panes are sandboxed (a host with a Machine never is).
	Sandbox sandbox.Config
	// Ingest is how panes' output is read (--ingest): tmux.IngestPipe (the
	// default, where the program can serve as a relay: tmux.RelayMain) or
	// tmux.IngestControl (%output only). Left empty, TMUXMCP_INGEST=control
	// in the environment asks for control.
	Ingest string
}

// fleetOptions is how the host's fleet reads panes: raw through a relay,
// unless control mode is asked for or no relay can be started.
func fleetOptions(opts Config) tmux.Options {
	if opts.Ingest == tmux.IngestControl || opts.Ingest == "" && os.Getenv("TMUXMCP_INGEST") == tmux.IngestControl {
		return tmux.Options{}
	}
	return tmux.Options{Relay: tmux.SelfRelay()}
}

// WaitTrace is where one matched wait spent its time on the way from
// tmux's output to its answer.
type WaitTrace struct {
	// Appended is when the pane's stream last grew before the match: for
	// output arriving a line at a time, when the matching line did.
	Appended time.Time
	Matched  time.Time // the wait returned its match
	Encoded  time.Time // the result was built and encoded (set by the transport)
}

// DefaultWaitMax is the default ceiling on waits (--wait-max).
const DefaultWaitMax = 120 * time.Second

// DefaultResultMax is the default result byte ceiling.
const DefaultResultMax = 64 << 10

// WithDefaults is cfg with every unset field at its default.
func WithDefaults(cfg Config) Config {
	if cfg.WaitMax <= 0 {
		cfg.WaitMax = DefaultWaitMax
	}
	if cfg.ResultMax <= 0 {
		cfg.ResultMax = DefaultResultMax
	}
	if cfg.Session == "" {
		cfg.Session = "agent"
	}
	if cfg.Host == "" {
		cfg.Host = host.Local
	}
	if len(cfg.ApprovalVia) == 0 {
		cfg.ApprovalVia = []string{"tmux", "elicitation"}
	}
	if cfg.ReviewTimeout <= 0 {
		cfg.ReviewTimeout = DefaultReviewTimeout
	}
	if cfg.StateDir == "" {
		cfg.StateDir = DefaultStateDir()
	}
	return cfg
}

// Host is one tmux server and everything tmuxmcp keeps about it: the hub
// of pane streams, the fleet of control connections, the job records and
// the runner that starts and watches commands, the one review slot and
// the edit line tmuxmcp typed in each pane. Every operation of the tool
// contract is a method of Host.
type Host struct {
	hub   *stream.Hub
	fleet *tmux.Fleet
	opts  Config
	log   *slog.Logger

	jobs *jobs.Store
	run  *runner.Runner // readiness, launch, watching

	mu       sync.Mutex
	panes    map[int]tmux.PaneInfo // the latest listing
	listed   chan struct{}         // closed (and made anew) by each listing
	onPanes  []func([]PaneEntry)
	selfPane int          // the pane tmuxmcp itself runs in on this server, or -1
	gate     *Gate        // the policy, the one review, the audit log
	sandbox  *PaneSandbox // nil: panes start without a sandbox
	lines    *input.Lines // each pane's edit line as tmuxmcp typed it (for the policy)
	waits    map[int]int  // open waits per pane
	waitsAll int          // open waits in all

	resumeNext atomic.Bool // a remote host came back: Rewatch after the next listing
	revive     revival     // the server's ends and restarts (revive.go)

	startMu   sync.Mutex    // one job launch at a time
	closing   chan struct{} // closed by Close
	closeOnce sync.Once
	wg        sync.WaitGroup // background work (rewatching)
}

// Open opens this machine's host under cfg, and the set of hosts with the
// remote ones (each opened on first use, by its Start, through OpenHost).
func Open(ctx context.Context, cfg Config, remotes ...*Remote) (*Hosts, error) {
	local, err := OpenHost(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return NewHosts(local, remotes...), nil
}

// OpenHost connects to the tmux server cfg.Target, begins recording every
// pane and returns the Host: the one way a host is opened, here or over
// SSH. Close stops it all.
func OpenHost(ctx context.Context, cfg Config) (*Host, error) {
	opts := WithDefaults(cfg)
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	hub := stream.NewHub(opts.Retain)
	if opts.RetainTotal > 0 {
		hub.SetRetainTotal(opts.RetainTotal)
	}
	target := opts.Target
	h := &Host{hub: hub, opts: opts, log: log, panes: map[int]tmux.PaneInfo{}, listed: make(chan struct{}), selfPane: -1,
		closing: make(chan struct{}), lines: input.NewLines(), waits: map[int]int{}, gate: newGate(opts, log)}
	h.revive.since = time.Now()
	if err := PrepareStateDir(opts.StateDir); err != nil {
		return nil, err
	}
	store, err := jobs.Open(filepath.Join(opts.StateDir, "jobs"))
	if err != nil {
		return nil, err
	}
	for _, ignored := range store.Ignored() {
		log.Warn("a job record is ignored", "err", ignored)
	}
	h.jobs = store
	integ := opts.Shell
	if integ == nil {
		if integ, err = shell.Install(filepath.Join(opts.StateDir, "shell")); err != nil {
			log.Warn("no shell integration; commands use the inline wrapper", "err", err)
		}
	}
	// The runner exists before the fleet's first pane listing reaches it.
	var env map[string]string
	if !opts.KeepPagers {
		env = shell.NoPagerEnv()
	}
	rc := runner.Config{Hub: hub, Jobs: store, Shell: integ, Session: opts.Session, Log: log, Ended: h.jobEnded, Env: env, Machine: opts.Machine, Remote: opts.Machine != nil, ShellProgram: opts.ShellProgram, KeepFinished: opts.KeepFinished}
	if opts.Machine == nil {
		if h.sandbox = NewPaneSandbox(opts.Sandbox, opts.StateDir, target, integ); h.sandbox != nil {
			rc.Sandbox = h.sandbox
		}
	}
	h.run = runner.New(rc)
	fleet, err := tmux.StartFleetWith(ctx, target, hubEvents{h}, log, fleetOptions(opts))
	if err != nil {
		return nil, err
	}
	h.fleet = fleet
	h.run.SetFleet(fleet)
	h.mu.Lock()
	listed := make([]tmux.PaneInfo, 0, len(h.panes))
	for _, p := range h.panes {
		listed = append(listed, p)
	}
	h.mu.Unlock()
	h.run.Track(listed) // the first listing came before the runner had the fleet
	h.selfPane = h.findSelfPane(ctx)
	h.bindHandOff(ctx)
	if err := h.checkShell(ctx); err != nil {
		log.Warn("no command can run in the panes tmuxmcp starts", "err", err)
	}
	h.resumePending()
	h.run.Resume(ctx)
	return h, nil
}

// bindHandOff binds the hand-off key (tmux.BindHandOff) on a server
// tmuxmcp started itself; a user's own server keeps its bindings (doctor
// prints the line for their tmux.conf).
func (h *Host) bindHandOff(ctx context.Context) {
	if h.opts.RestartServer == nil {
		return
	}
	if err := h.fleet.BindHandOff(ctx); err != nil {
		h.log.Warn("no hand-off key", "err", err)
	}
}

// Close detaches from tmux and ends every stream with hub_closed.
func (h *Host) Close() {
	h.closeOnce.Do(func() {
		close(h.closing)
		h.run.Close()
		h.wg.Wait()
		h.fleet.Close()
		h.hub.Close()
	})
}

// Fleet returns the tmux connections (for doctor and tests).
func (h *Host) Fleet() *tmux.Fleet { return h.fleet }

// findSelfPane returns the pane tmuxmcp runs in, when it runs inside a
// pane of the server it controls, so kill_pane can refuse it.
func (h *Host) findSelfPane(ctx context.Context) int {
	env, pane := os.Getenv("TMUX"), os.Getenv("TMUX_PANE")
	if env == "" || !strings.HasPrefix(pane, "%") || h.opts.Machine != nil {
		return -1
	}
	socket, err := h.fleet.ServerSocket(ctx)
	if err != nil || socket == "" {
		return -1
	}
	sock, _, _ := strings.Cut(env, ",")
	if sock != socket {
		return -1
	}
	n, err := strconv.Atoi(pane[1:])
	if err != nil {
		return -1
	}
	return n
}

// Error is an error the caller can fix: it names the argument, the value
// and the fix, and nothing was changed.
type Error struct{ msg string }

// Error is the message: what is wrong and the fix.
func (e *Error) Error() string { return e.msg }

func errorf(format string, args ...any) error { return &Error{fmt.Sprintf(format, args...)} }

// parsePaneID turns "%12" into 12; field names the argument for errors.
func parsePaneID(field, s string) (int, error) {
	if s == "" {
		return 0, errorf("%s is required: give a pane id such as %%3 (list_panes shows every pane's id)", field)
	}
	if !strings.HasPrefix(s, "%") {
		return 0, errorf("%s %q is not a tmux pane id: write it as %%N, e.g. %%3 (list_panes shows every pane's id)", field, s)
	}
	n, err := strconv.Atoi(s[1:])
	if err != nil || n < 0 || s[1:] == "" || (len(s) > 2 && s[1] == '0') {
		return 0, errorf("%s %q is not a tmux pane id: write it as %%N, e.g. %%3 (list_panes shows every pane's id)", field, s)
	}
	return n, nil
}

func paneName(n int) string { return "%" + strconv.Itoa(n) }

func ptr[T any](v T) *T { return &v }

// Config is the configuration the Host was opened with, defaults filled in.
func (h *Host) Config() Config { return h.opts }

// CloseStreams ends every pane stream with hub_closed, so open waits
// answer at once: the first step of a shutdown.
func (h *Host) CloseStreams() { h.hub.Close() }
