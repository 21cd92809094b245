package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tmuxmcp/tmuxmcp/engine"
	"github.com/tmuxmcp/tmuxmcp/sandbox"
	"github.com/tmuxmcp/tmuxmcp/shell"
)

// workspaceFlags is --workspace, repeatable.
type workspaceFlags []string

func (f *workspaceFlags) String() string { return strings.Join(*f, " ") }

func (f *workspaceFlags) Set(v string) error {
	if v == "" {
		return fmt.Errorf("--workspace: give a directory")
	}
	*f = append(*f, v)
	return nil
}

// sandboxHelp is --sandbox's usage line.
const sandboxHelp = "run every pane tmuxmcp starts in a bubblewrap sandbox; `mode` is off (none), read-only (the whole filesystem read-only, a private /tmp, no network, no reach to tmux, the state directory, the token or ~/.ssh) or workspace (read-only but the --workspace directories); a pane whose sandbox cannot start is not created, and tmuxmcp refuses to start when bwrap cannot run (see: tmuxmcp doctor)"

// validateSandbox checks the sandbox flags: the mode, the workspaces
// (default: the directory tmuxmcp was started in; each must exist,
// resolved through symbolic links) and what the sandbox cannot cover.
func (c *config) validateSandbox() error {
	mode, err := sandbox.ParseMode(c.sandboxMode)
	if err != nil {
		return err
	}
	c.sandbox = sandbox.Config{Mode: mode, Network: c.sandboxNet}
	if mode == sandbox.Off {
		var given []string
		if len(c.workspaces) > 0 {
			given = append(given, "--workspace")
		}
		if c.sandboxNet {
			given = append(given, "--sandbox-network")
		}
		if len(given) > 0 {
			return fmt.Errorf("%s applies to a sandbox, and --sandbox is off: add --sandbox workspace (or read-only), or drop %s", strings.Join(given, " and "), strings.Join(given, " and "))
		}
		return nil
	}
	if len(c.hosts.specs) > 0 {
		return fmt.Errorf("--sandbox %s covers this machine's panes only, and the panes on --host machines would run outside it: drop --host or run with --sandbox off", mode)
	}
	ws := []string(c.workspaces)
	if mode == sandbox.Workspace && len(ws) == 0 {
		wd, err := os.Getwd()
		if err != nil {
			return fmt.Errorf("--sandbox workspace: the current directory: %w (give --workspace DIR)", err)
		}
		if err := broadWorkspace(wd, os.Getenv("HOME")); err != nil {
			return err
		}
		ws = []string{wd}
	}
	if mode == sandbox.ReadOnly && len(ws) > 0 {
		return fmt.Errorf("--workspace with --sandbox read-only: a read-only sandbox has no writable directory; use --sandbox workspace, or drop --workspace")
	}
	if c.sandbox.Workspaces, err = sandbox.ResolveWorkspaces(ws); err != nil {
		return fmt.Errorf("--workspace: %w", err)
	}
	return nil
}

// broadWorkspace refuses the start directory wd as the default workspace
// when the sandbox would refuse it as too wide (sandbox.TooWide: /, the
// home or a directory above it), saying that it is the start directory:
// an MCP client may start tmuxmcp in either.
func broadWorkspace(wd, home string) error {
	ws, err := sandbox.ResolveWorkspaces([]string{wd})
	if err != nil {
		return nil // reported as the workspace it is, by ResolveWorkspaces
	}
	if real, err := filepath.EvalSymlinks(home); err == nil {
		home = real
	}
	if e := sandbox.TooWide(ws, home); e != nil {
		return fmt.Errorf("--sandbox workspace: tmuxmcp was started in %s, the workspace without --workspace, and %s: give --workspace DIR, the project the agent works on (MCP clients start tmuxmcp in a directory of their choosing)", wd, e.Reason)
	}
	return nil
}

// sandboxConfig is the sandbox as the flags say, hiding the token file
// and the audit log too (the engine hides the state directory and the
// tmux socket).
func (c *config) sandboxConfig() sandbox.Config {
	cfg := c.sandbox
	for _, p := range []string{c.tokenFile, c.audit} {
		if p != "" {
			cfg.Hide = append(cfg.Hide, p)
		}
	}
	return cfg
}

// paneSandbox is the sandbox of this machine's panes (nil for off).
func (c *config) paneSandbox(stateDir string, integ *shell.Integration) *engine.PaneSandbox {
	return engine.NewPaneSandbox(c.sandboxConfig(), stateDir, c.target, integ)
}

// startSandbox checks that the sandbox starts here (a preflight run):
// tmuxmcp refuses to start otherwise, with the reason and the fix.
func startSandbox(ctx context.Context, sb *engine.PaneSandbox) error {
	if sb == nil {
		return nil
	}
	if err := sb.Preflight(ctx); err != nil {
		return fmt.Errorf("%w (tmuxmcp never starts a pane outside its sandbox, so it does not start)", err)
	}
	return nil
}

// checkSandbox is doctor's report on the sandbox: its mode, bwrap's
// version and the preflight.
func checkSandbox(ctx context.Context, c *config) (bool, string) {
	sb := c.paneSandbox(stateDirOf(c), nil)
	if sb == nil {
		return true, "off (--sandbox read-only or workspace runs every pane tmuxmcp starts in bubblewrap)"
	}
	if err := sb.Err(); err != nil {
		return false, err.Error()
	}
	v, err := sb.Sandbox().Version(ctx)
	if err != nil {
		return false, err.Error()
	}
	if err := sb.Preflight(ctx); err != nil {
		return false, err.Error()
	}
	detail := fmt.Sprintf("%s with %s (%s); preflight ok", sb.Mode(), v, sb.Sandbox().Bwrap())
	if ws := sb.Sandbox().Workspaces(); len(ws) > 0 {
		detail += "; writable: " + strings.Join(ws, " ")
	}
	if sb.Sandbox().Network() {
		detail += "; network on"
	} else {
		detail += "; no network"
	}
	return true, detail
}
