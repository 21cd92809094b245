package engine

import (
	"context"
	"errors"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/tmuxmcp/tmuxmcp/host"
	"github.com/tmuxmcp/tmuxmcp/runner"
	"github.com/tmuxmcp/tmuxmcp/sandbox"
)

// CreatePaneRequest describes a new pane: where, its program, its
// directory and environment.
type CreatePaneRequest struct {
	On
	Session      *string           `json:"session,omitempty"`
	Split        *string           `json:"split,omitempty"`
	TargetPaneID *string           `json:"targetPaneId,omitempty"`
	CWD          *string           `json:"cwd,omitempty"`
	Argv         []string          `json:"argv,omitempty"`
	Env          map[string]string `json:"env,omitempty"`
	Name         *string           `json:"name,omitempty"`
	WaitMs       *int64            `json:"waitMs,omitempty"`
}

// DefaultReadyMs is how long create_pane waits for a new shell's prompt.
const DefaultReadyMs = 15000

// EnvName is what an environment variable's name may be (create_pane env).
var EnvName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Limits of create_pane.
const (
	MaxArgv    = 256
	MaxEnv     = 64
	MaxNameLen = 128
)

// Check checks the arguments, naming the field, the value and the fix.
func (in *CreatePaneRequest) Check() error {
	if in.Split != nil {
		switch *in.Split {
		case "window", "horizontal", "vertical":
		default:
			return errorf("split %q: use window (a new window, the default), horizontal (side by side) or vertical (one above the other)", *in.Split)
		}
	}
	if in.TargetPaneID != nil {
		if _, err := parsePaneID("targetPaneId", *in.TargetPaneID); err != nil {
			return err
		}
		if in.Split == nil || *in.Split == "window" {
			return errorf("targetPaneId is only used to split a pane: add split: horizontal or vertical, or drop targetPaneId")
		}
	}
	if in.CWD != nil {
		if !filepath.IsAbs(*in.CWD) {
			return errorf("cwd %q is not an absolute path: give a full path such as /home/me/project", *in.CWD)
		}
	}
	if in.Argv != nil && (len(in.Argv) == 0 || len(in.Argv) > MaxArgv) {
		return errorf("argv: %d items given, the limit is 1..%d: omit argv for the default shell", len(in.Argv), MaxArgv)
	}
	for i, a := range in.Argv {
		if a == "" && i == 0 {
			return errorf("argv[0] is empty: name the program to run, e.g. [\"python3\"]")
		}
	}
	if len(in.Env) > MaxEnv {
		return errorf("env: %d variables given, the limit is %d", len(in.Env), MaxEnv)
	}
	for k := range in.Env {
		if !EnvName.MatchString(k) {
			return errorf("env key %q is not a valid variable name: use letters, digits and _, not starting with a digit", k)
		}
	}
	if in.Name != nil && (len(*in.Name) == 0 || len(*in.Name) > MaxNameLen) {
		return errorf("name: must be 1..%d bytes", MaxNameLen)
	}
	if in.WaitMs != nil && (*in.WaitMs < 0 || *in.WaitMs > MaxWaitMs) {
		return errorf("waitMs %d: must be 0..%d (how long to wait for the new shell's prompt)", *in.WaitMs, MaxWaitMs)
	}
	if in.WaitMs != nil && len(in.Argv) > 0 {
		return errorf("waitMs applies only to a new shell: with argv the program starts at once (wait_for_text from the returned cursor for its output). Drop waitMs or argv")
	}
	return nil
}

// CreatePaneResult names the new pane, the cursor from its first byte,
// and its shell once it is ready.
type CreatePaneResult struct {
	PaneID         string  `json:"paneId"`
	Cursor         string  `json:"cursor"`
	Session        string  `json:"session"`
	SessionID      string  `json:"sessionId"`
	WindowID       string  `json:"windowId"`
	Ready          *bool   `json:"ready"`
	NotReadyReason *string `json:"notReadyReason"`
	Shell          *string `json:"shell"`
	Integrated     bool    `json:"integrated"`
	// Sandbox is the sandbox the pane runs in: read-only or workspace, or
	// unsandboxed (the server runs with --sandbox off).
	Sandbox string `json:"sandbox"`
	// ServerNote says what happened to the host's tmux server since the
	// last result: it ended (and why, when tmuxmcp can tell) and tmuxmcp
	// started it again; nil otherwise.
	ServerNote *string `json:"serverNote"`
}

// CreatePane makes a pane (a window or a split), under the policy when
// one is set, and waits for its shell to be ready.
func (h *Host) CreatePane(ctx context.Context, c Caller, in *CreatePaneRequest) (*CreatePaneResult, error) {
	if err := h.connected(); err != nil {
		return nil, err
	}
	if err := h.dirExists(ctx, in.CWD, "create it first or pick another"); err != nil {
		return nil, err
	}
	if err := h.checkSandbox(); err != nil {
		return nil, err
	}
	session := h.opts.Session
	if in.Session != nil {
		session = *in.Session
	}
	split := "window"
	if in.Split != nil {
		split = *in.Split
	}
	if len(in.Argv) > 0 || len(in.Env) > 0 {
		// Starting a program runs a command, and the environment can
		// change what runs: the approval policy judges both.
		cwd := ""
		if in.CWD != nil {
			cwd = *in.CWD
		}
		if err := h.allowLaunch(ctx, in.Argv, in.Env, cwd); err != nil {
			return nil, err
		}
	}
	if len(in.Argv) > 0 {
		if err := h.programExists(ctx, in.Argv[0]); err != nil {
			return nil, err
		}
	} else if err := h.checkShell(ctx); err != nil {
		return nil, err
	}
	spec := runner.PaneSpec{Session: session, Split: split, Env: in.Env, Argv: in.Argv}
	if in.TargetPaneID != nil {
		spec.Target = *in.TargetPaneID
	}
	if in.CWD != nil {
		spec.CWD = *in.CWD
	}
	if in.Name != nil {
		spec.Name = *in.Name
	}
	np, err := h.run.CreatePane(ctx, spec)
	if err != nil {
		return nil, h.createError(err, session, in.TargetPaneID)
	}
	out := &CreatePaneResult{PaneID: paneName(np.Pane), Cursor: np.Stream.Cursor(0).String(), Session: np.Session, SessionID: np.SessionID, WindowID: np.WindowID, Sandbox: h.newPaneSandbox(false), ServerNote: h.takeServerNote()}
	if len(in.Argv) > 0 {
		return out, nil
	}
	wait := time.Duration(DefaultReadyMs) * time.Millisecond
	if in.WaitMs != nil {
		wait = time.Duration(*in.WaitMs) * time.Millisecond
	}
	sh, err := h.run.Ready(ctx, np.Pane, wait)
	if err := h.sandboxDied(err); err != nil {
		return nil, err
	}
	out.Ready = ptr(err == nil)
	if err != nil {
		out.NotReadyReason = ptr(h.notReady(np, err))
		return out, nil
	}
	out.Shell, out.Integrated = ptr(sh.Program), sh.Live
	return out, nil
}

// notReady says why a new pane's shell is not ready, and what to do.
func (h *Host) notReady(np *runner.NewPane, err error) string {
	var ref *runner.Refusal
	if errors.As(err, &ref) && ref.State == runner.Exited {
		return ref.Reason() + ". Check tmux's default-shell and the shell's startup files (`tmuxmcp doctor`)"
	}
	if errors.As(err, &ref) && ref.State == runner.NotAShell {
		return ref.Reason() + ". " + h.notAShellNext(ref.Program)
	}
	if errors.As(err, &ref) {
		return ref.Reason() + ". It may still get there: wait_for_text from the cursor, or look with capture_pane; `tmuxmcp doctor` checks the shell's startup files"
	}
	return err.Error()
}

// newPaneSandbox is the sandbox a new pane runs in: the host's, unless
// unsandboxed (an escalated command's pane).
func (h *Host) newPaneSandbox(unsandboxed bool) string {
	if h.sandbox == nil || unsandboxed {
		return string(sandbox.Unsandboxed)
	}
	return h.sandbox.Mode()
}

// sandboxDied is the tool error for a sandboxed pane that exited at once
// with bubblewrap's complaint on its screen: its sandbox could not start,
// and nothing ran in it.
func (h *Host) sandboxDied(err error) error {
	var ref *runner.Refusal
	if h.sandbox == nil || !errors.As(err, &ref) || ref.State != runner.Exited {
		return nil
	}
	screen := strings.TrimSpace(strings.Join(ref.Screen, "\n"))
	if !strings.Contains(screen, "bwrap:") {
		return nil
	}
	return sandboxUnavailable(&SandboxError{Mode: sandbox.Mode(h.sandbox.Mode()), Err: errors.New(screen)})
}

// dirExists checks that cwd is a directory where the panes run.
func (h *Host) dirExists(ctx context.Context, cwd *string, fix string) error {
	if cwd == nil {
		return nil
	}
	if st, err := h.run.Machine().Stat(ctx, *cwd); err != nil || !st.Dir {
		where := ""
		if h.opts.Host != host.Local {
			where = " on host " + h.opts.Host
		}
		return errorf("cwd %q is not an existing directory%s: %s", *cwd, where, fix)
	}
	return nil
}

// programExists checks that argv[0] can be run in a pane: an absolute or
// relative path that exists, or a name on the PATH new panes get.
func (h *Host) programExists(ctx context.Context, prog string) error {
	m := h.run.Machine()
	if strings.Contains(prog, "/") {
		if st, err := m.Stat(ctx, prog); err != nil || st.Dir {
			return errorf("argv[0] %q is not a program file: give a full path to an executable or a name on PATH; nothing was created", prog)
		}
		return nil
	}
	search := ""
	if h.opts.Machine == nil {
		search = os.Getenv("PATH")
	}
	if lines, err := h.fleet.Exec(ctx, "show-environment", "-g", "PATH"); err == nil && len(lines) == 1 {
		if v, ok := strings.CutPrefix(lines[0], "PATH="); ok {
			search = v
		}
	}
	for _, dir := range filepath.SplitList(search) {
		if st, err := m.Stat(ctx, path.Join(dir, prog)); err == nil && !st.Dir && st.Exec {
			return nil
		}
	}
	return errorf("argv[0] %q was not found on the PATH new panes get (%s): give its full path or install it; nothing was created", prog, truncate(search, 200))
}
