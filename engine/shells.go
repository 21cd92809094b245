package engine

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"

	"github.com/tmuxmcp/tmuxmcp/shell"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// paneShell is the shell the panes tmuxmcp creates start, and where that
// is set: --shell, or tmux's default-shell ("" when tmux runs a
// default-command instead, or cannot say).
func (h *Host) paneShell(ctx context.Context) (program, from string) {
	program = h.run.PaneShell(ctx)
	switch {
	case program == "":
		return "", ""
	case h.opts.ShellProgram != "":
		return program, "--shell"
	}
	return program, "tmux's default-shell"
}

// checkShell refuses, before a pane is created, to start a shell tmuxmcp
// cannot run commands in: one clear error naming the shells that work and
// how to switch, instead of a pane that is never ready.
func (h *Host) checkShell(ctx context.Context) error {
	_, err := h.checkedShell(ctx)
	return err
}

// checkedShell is checkShell returning the shell a new pane starts ("":
// tmux runs a default-command, or could not say).
func (h *Host) checkedShell(ctx context.Context) (string, error) {
	program, from := h.paneShell(ctx)
	if program == "" || !shell.Unsupported(program) {
		return program, nil
	}
	return "", errorf("%s. Nothing was created", UnsupportedShell(program, from, h.fleet.Target(), h.opts.Machine == nil))
}

// notAShellNext is what to do about a pane whose program in front is not a
// shell tmuxmcp can run commands in: a shell it cannot drive (the startup
// files exec'd tcsh) gets which shells work and how to switch.
func (h *Host) notAShellNext(program string) string {
	if !shell.Unsupported(program) {
		return "Use type_text and wait_for_text with it, or omit paneId to run in a fresh pane"
	}
	alt := suggestedShell(h.opts.Machine == nil)
	set, _ := h.fleet.Target().DefaultShellLine(alt)
	return fmt.Sprintf("tmuxmcp runs commands in %s; type_text and wait_for_text still work with %s. Switch the shell of tmuxmcp's panes: start tmuxmcp with --shell %s, or set tmux's default-shell (%s), and keep %s out of that shell's startup files; `tmuxmcp doctor` checks it", shell.Supported, filepath.Base(program), alt, set, filepath.Base(program))
}

// suggestedShell is the shell to switch to: the first of bash, zsh and
// fish installed here (local), else /bin/bash.
func suggestedShell(local bool) string {
	if local {
		for _, name := range []string{"bash", "zsh", "fish"} {
			if p, err := exec.LookPath(name); err == nil {
				return p
			}
		}
	}
	return "/bin/bash"
}

// UnsupportedShell says that program (set in from: "--shell", "tmux's
// default-shell") is a shell tmuxmcp cannot run commands in, which shells
// it can, and how to switch the panes of target to one; local says target
// is on this machine, where the suggested shell is looked up.
func UnsupportedShell(program, from string, target tmux.Target, local bool) string {
	alt := suggestedShell(local)
	set, keep := target.DefaultShellLine(alt)
	return fmt.Sprintf("the panes tmuxmcp starts run %s (%s, %s), a shell tmuxmcp cannot run commands in: its command language is neither POSIX sh's nor fish's, so neither its integration nor a job script can drive it. "+
		"tmuxmcp runs commands in %s. Switch the shell of tmuxmcp's panes: start tmuxmcp with --shell %s, or set tmux's default-shell (%s; to keep it, put `%s` in your tmux config) — your own login shell can stay %s",
		filepath.Base(program), from, program, shell.Supported, alt, set, keep, filepath.Base(program))
}
