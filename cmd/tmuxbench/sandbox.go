package main

import (
	"context"
	"fmt"
	"time"
)

// sectionSandbox is section 8: what a bubblewrap sandbox costs a pane's
// start and a command — create_pane and run_shell_command true in an
// existing pane, through one tmuxmcp with --sandbox workspace and one
// without, on the same server, their samples interleaved so load hits both
// alike.
func sectionSandbox(ctx context.Context, cfg config, rep *report) error {
	w, err := newWorld(ctx, cfg)
	if err != nil {
		return err
	}
	defer w.close()
	off, err := w.startMCP(ctx, nil)
	if err != nil {
		return err
	}
	defer off.close()
	in, err := w.startMCP(ctx, nil, "--sandbox", "workspace", "--workspace", w.tmp)
	if err != nil {
		return fmt.Errorf("--sandbox workspace (is bubblewrap installed?): %w", err)
	}
	defer in.close()
	clients := []*client{off, in}
	panes := []sample{{name: "create_pane (bash), --sandbox off"}, {name: "create_pane (bash), --sandbox workspace"}}
	for i := 0; i < max(5, cfg.n/10); i++ {
		for k, c := range clients {
			start := time.Now()
			p, err := c.newShell(ctx)
			if err != nil {
				return fmt.Errorf("%s: %w", panes[k].name, err)
			}
			panes[k].d = append(panes[k].d, time.Since(start))
			if _, err := c.call(ctx, "kill_pane", map[string]any{"paneId": p}); err != nil {
				return err
			}
		}
	}
	cmds := []sample{{name: "run_shell_command true, existing pane, --sandbox off"}, {name: "run_shell_command true, existing pane, --sandbox workspace"}}
	shells := make([]string, len(clients))
	for k, c := range clients {
		if shells[k], err = c.newShell(ctx); err != nil {
			return err
		}
	}
	for i := 0; i < cfg.n; i++ {
		for k, c := range clients {
			s, err := c.runs(ctx, cmds[k].name, 1, map[string]any{"paneId": shells[k], "command": "true"})
			if err != nil {
				return err
			}
			cmds[k].d = append(cmds[k].d, s.d...)
		}
	}
	const sec = "8 sandbox"
	for _, pair := range []struct {
		s      []sample
		budget time.Duration
	}{{panes, 25 * time.Millisecond}, {cmds, time.Millisecond}} {
		base, sb := pair.s[0], pair.s[1]
		delta := sb.p(0.5) - base.p(0.5)
		rep.add(row{sec, base.name, base.summary(), "—", "", "", ""})
		rep.add(row{sec, sb.name, sb.summary(), "off p50 " + msf(base.p(0.5)), fmt.Sprintf("%+.2f ms (p50)", ms(delta)),
			"p50 ≤ off + " + msf(pair.budget) + " ms", verdict(delta <= pair.budget)})
	}
	return nil
}
