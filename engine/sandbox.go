package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/tmuxmcp/tmuxmcp/private"
	"github.com/tmuxmcp/tmuxmcp/sandbox"
	"github.com/tmuxmcp/tmuxmcp/shell"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// PaneSandbox is the sandbox every pane tmuxmcp starts on this machine
// runs in (a runner.Sandbox): what cfg says, with tmuxmcp's state
// directory and the tmux server's socket hidden too. Inside, the state
// directory is an empty tmpfs but for the shell integration's scripts
// (read-only) and the pane's own job directory (<state>/sandbox/<a hash
// of its shell's secret tag>, writable: its job scripts, their keys and
// the status files they write).
type PaneSandbox struct {
	sb       *sandbox.Sandbox
	err      error // why it cannot start: every pane is refused
	mode     sandbox.Mode
	integ    *shell.Integration // nil: none installed
	jobsRoot string
}

// NewPaneSandbox is the sandbox of the panes on target's server, as cfg
// says (nil for off), hiding stateDir and the server's socket besides
// cfg.Hide. A sandbox that cannot start is returned all the same, with
// Err set: it refuses every pane (fail closed).
func NewPaneSandbox(cfg sandbox.Config, stateDir string, target tmux.Target, integ *shell.Integration) *PaneSandbox {
	if cfg.Mode == "" || cfg.Mode == sandbox.Off {
		return nil
	}
	cfg.Hide = append(append([]string{}, cfg.Hide...), stateDir, socketToHide(target.SocketFile()))
	for _, kv := range target.Env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok && cfg.Home == "" {
			cfg.Home = v // the panes' home, where it differs from tmuxmcp's
		}
	}
	p := &PaneSandbox{mode: cfg.Mode, jobsRoot: filepath.Join(stateDir, "sandbox")}
	if cfg.Seccomp == "" {
		// Beside the panes' job directories; opened outside the sandbox.
		cfg.Seccomp = filepath.Join(p.jobsRoot, "seccomp.bpf")
		if err := private.Dir(p.jobsRoot); err != nil {
			p.err = fmt.Errorf("make %s: %w", p.jobsRoot, err)
			return p
		}
	}
	if integ != nil {
		p.integ = integ
	}
	p.sb, p.err = sandbox.New(cfg)
	return p
}

// socketToHide is what hides the tmux socket sock: the per-user
// directory tmux keeps its sockets in (tmux-UID), or the socket itself
// when it lives elsewhere (-S).
func socketToHide(sock string) string {
	if dir := filepath.Dir(sock); strings.HasPrefix(filepath.Base(dir), "tmux-") {
		return dir
	}
	return sock
}

// Err is why the sandbox cannot start, or nil.
func (p *PaneSandbox) Err() error {
	if p.err != nil {
		return &SandboxError{Mode: p.mode, Err: p.err}
	}
	return nil
}

// Mode is the sandbox's mode ("off" for nil).
func (p *PaneSandbox) Mode() string {
	if p == nil {
		return string(sandbox.Off)
	}
	return string(p.mode)
}

// Sandbox is the checked sandbox (nil when it cannot start).
func (p *PaneSandbox) Sandbox() *sandbox.Sandbox { return p.sb }

// binds are the paths of the state directory a pane whose shell has tag
// gets back.
func (p *PaneSandbox) binds(tag string) ([]sandbox.Bind, error) {
	var binds []sandbox.Bind
	if p.integ != nil {
		binds = append(binds, sandbox.Bind{Path: p.integ.Dir()})
	}
	if tag != "" {
		if !tagPattern.MatchString(tag) {
			return nil, fmt.Errorf("shell tag %q is not a tag tmuxmcp makes", tag)
		}
		// The scripts are read-only inside: nothing in the pane can swap
		// the next job's command between tmuxmcp writing it and the shell
		// reading it. Only the status files are written there.
		d := p.jobDir(tag)
		st := filepath.Join(d, statusDir)
		if err := private.Dir(st); err != nil {
			return nil, fmt.Errorf("make the pane's job directory: %w", err)
		}
		binds = append(binds, sandbox.Bind{Path: d}, sandbox.Bind{Path: st, Writable: true})
	}
	return binds, nil
}

// jobDir is the job directory of the pane whose shell has the secret tag:
// named by a one-way hash of it, since its path is seen inside the
// sandbox (where the tag must not be).
func (p *PaneSandbox) jobDir(tag string) string {
	sum := sha256.Sum256([]byte("tmuxmcp sandbox job directory\x00" + tag))
	return filepath.Join(p.jobsRoot, hex.EncodeToString(sum[:16]))
}

// tagPattern is what a shell tag tmuxmcp makes looks like (shell.NewTag).
var tagPattern = regexp.MustCompile(`^[0-9a-f]{1,64}$`)

// ready is why no pane can start in the sandbox now (a *SandboxError), or
// nil: it could not be set up, or what it needs is gone (sandbox.Check).
func (p *PaneSandbox) ready() error {
	if p.err != nil {
		return p.Err()
	}
	if err := p.sb.Check(); err != nil {
		return &SandboxError{Mode: p.mode, Err: err}
	}
	return nil
}

// Wrap runs argv in the sandbox (runner.Sandbox), after checking again
// that it can start.
func (p *PaneSandbox) Wrap(argv []string, tag string) ([]string, error) {
	if err := p.ready(); err != nil {
		return nil, err
	}
	binds, err := p.binds(tag)
	if err != nil {
		return nil, &SandboxError{Mode: p.mode, Err: err}
	}
	return p.sb.Command(argv, binds...), nil
}

// statusDir is the part of a pane's job directory its sandbox may write:
// where job scripts leave their status.
const statusDir = "status"

// JobDir is the job directory of the sandboxed pane whose shell has tag
// (runner.Sandbox), when there is one: the scripts' (read-only inside)
// and the status files' (writable).
func (p *PaneSandbox) JobDir(tag string) (scripts, status string) {
	if !tagPattern.MatchString(tag) {
		return "", ""
	}
	d := p.jobDir(tag)
	if st, err := os.Stat(d); err == nil && st.IsDir() {
		return d, filepath.Join(d, statusDir)
	}
	return "", ""
}

// Preflight starts the sandbox once (sandbox.Preflight) with the binds a
// pane gets: tmuxmcp refuses to start when it fails.
func (p *PaneSandbox) Preflight(ctx context.Context) error {
	if p.err != nil {
		return p.Err()
	}
	binds, err := p.binds("")
	if err == nil {
		err = p.sb.Preflight(ctx, binds...)
	}
	if err != nil {
		return &SandboxError{Mode: p.mode, Err: err}
	}
	return nil
}

// SandboxError is why a pane's sandbox cannot start: nothing was created
// and nothing ran.
type SandboxError struct {
	Mode sandbox.Mode
	Err  error
}

// Error names the mode, the reason and the fix.
func (e *SandboxError) Error() string {
	return fmt.Sprintf("the sandbox (--sandbox %s) cannot start: %v", e.Mode, e.Err)
}

// Unwrap is the reason.
func (e *SandboxError) Unwrap() error { return e.Err }

// sandboxUnavailable is the tool error for a pane whose sandbox cannot
// start.
func sandboxUnavailable(err error) error {
	return errorf("SandboxUnavailable: launchOutcome=NOT_STARTED. %v. No pane was created and nothing ran: this server never starts a pane outside its sandbox, and no argument turns it off. Tell the user (the fix is theirs); a command that must run outside needs run_shell_command with escalate: true and a person's approval", err)
}

// paneSandboxMode is the mode of the pane whose first process is pid, as
// list_panes, create_pane, the person asked and the audit log see it:
// this host's sandbox when that process is its bwrap running the command
// line it builds (read from /proc: the program and its arguments, which
// no process in the pane can change), else unsandboxed. Without a sandbox
// (or on a remote host, never sandboxed) every pane is unsandboxed.
func (h *Host) paneSandboxMode(pid int) string {
	p := h.sandbox
	if p == nil || p.sb == nil || h.opts.Machine != nil || pid <= 0 {
		return string(sandbox.Unsandboxed)
	}
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if err != nil {
		return string(sandbox.Unsandboxed)
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return string(sandbox.Unsandboxed)
	}
	args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	if inner, ok := p.integ.SandboxedInner(args); ok && sandbox.SameFile(exe, "/bin/sh") {
		// A session's first pane before its launcher's first stage (our
		// own script, outside) execs into the sandbox: its shell has not
		// started, and will start only in there.
		args = p.sb.Unfiltered(inner)
		exe = args[0]
	} else if un := p.sb.Unfiltered(args); len(un) < len(args) && sandbox.SameFile(exe, "/bin/sh") {
		// The launcher has exec'd into the seccomp filter's prefix (a
		// /bin/sh that opens the filter and execs bwrap): the pane is a
		// moment from its sandbox, and its shell will start only in there.
		args = un
		exe = args[0]
	}
	return string(p.sb.Verify(exe, args, p.exposed))
}

// exposed reports whether path is one the sandbox gives back to its panes:
// the integration's scripts, or a pane's own job directory.
func (p *PaneSandbox) exposed(path string) bool {
	if p.integ != nil && path == p.integ.Dir() {
		return true
	}
	rel, ok := strings.CutPrefix(path, p.jobsRoot+"/")
	rel = strings.TrimSuffix(rel, "/"+statusDir)
	return ok && tagPattern.MatchString(rel)
}

// outside reports whether input to pane, whose first process is pid, runs
// outside this host's sandbox: the host has one and the pane is not in
// it (a pane that was there before tmuxmcp, or an escalated one kept).
// Such input is a person's call, like escalate.
func (h *Host) outside(pid int) bool {
	return h.sandbox != nil && h.paneSandboxMode(pid) == string(sandbox.Unsandboxed)
}

// sandboxShown is where a new pane runs, for the audit log and the person
// asked: "" when the host has no sandbox.
func (h *Host) sandboxShown(unsandboxed bool) string {
	if h.sandbox == nil {
		return ""
	}
	return h.newPaneSandbox(unsandboxed)
}

// checkSandbox refuses, before anything is asked or made, a new pane
// whose sandbox cannot start.
func (h *Host) checkSandbox() error {
	if h.sandbox == nil {
		return nil
	}
	if err := h.sandbox.ready(); err != nil {
		return sandboxUnavailable(err)
	}
	return nil
}

// asSandboxError turns a runner error whose cause is the sandbox into its
// tool error; nil for other errors.
func asSandboxError(err error) error {
	var se *SandboxError
	if errors.As(err, &se) {
		return sandboxUnavailable(se)
	}
	return nil
}

// panePID is the pid of pane's first process, or 0 when tmux cannot say
// (then the pane reads as outside any sandbox: fail closed).
func (h *Host) panePID(ctx context.Context, pane int) int {
	p, err := h.fleet.Pane(ctx, pane)
	if err != nil {
		return 0
	}
	return p.PID
}
