package engine

import (
	"context"
	"maps"
	"path/filepath"

	"github.com/tmuxmcp/tmuxmcp/runner"
	"github.com/tmuxmcp/tmuxmcp/shell"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// Session is the session tmuxmcp works in on a host: the one a person
// sees first on attach. Its first pane runs the integrated shell like
// every pane tmuxmcp creates, without pagers unless KeepPagers.
type Session struct {
	Name          string             // the session's name (--session)
	Width, Height int                // its size before a client attaches
	Shell         *shell.Integration // nil: the plain shell
	KeepPagers    bool               // leave PAGER and friends alone
	// Sandbox, when set, runs the first pane in it (NewPaneSandbox); one
	// that cannot start fails Ensure: the session is not created.
	Sandbox *PaneSandbox
	// Program is the shell the first pane starts (--shell); "": tmux's
	// default-shell (or default-command).
	Program string
}

// Ensure creates the session on target unless it exists (a new shell tag
// for each server start).
func (s Session) Ensure(ctx context.Context, target tmux.Target) error {
	var sb runner.Sandbox
	if s.Sandbox != nil {
		sb = s.Sandbox
	}
	argv, env, options, err := runner.SessionLaunchOf(s.Shell, sb, s.Program)
	if err != nil {
		return err
	}
	if !s.KeepPagers {
		if env == nil {
			env = map[string]string{}
		}
		maps.Copy(env, shell.NoPagerEnv())
	}
	// Its window is named after its shell from the start: --shell's, else
	// tmux's default-shell (tmux.SessionSpec.WindowName).
	name := ""
	if s.Program != "" {
		name = filepath.Base(s.Program)
	}
	_, err = target.EnsureSession(ctx, tmux.SessionSpec{Name: s.Name, Width: s.Width, Height: s.Height, Command: argv, Env: env, PaneOptions: options, WindowName: name})
	return err
}
