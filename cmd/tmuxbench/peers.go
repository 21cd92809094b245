package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// peerResult is what section 10 measured of one peer and of tmuxmcp
// beside it.
type peerResult struct {
	peer                         peer
	floor, oursWait, peerWait    sample
	atEntry, missed              int // peer waits matched on the screen at entry; lines it never saw
	oursRun, peerRun             sample
	spawnCalls                   int // calls of each kind counted
	peerWaitCalls                int // the peer's wait calls among them (a missed line skips some)
	oursWaitSpawn, peerWaitSpawn int // over spawnCalls calls
	oursRunSpawn, peerRunSpawn   int
	peerWaitKinds, peerRunKinds  string
	ours, theirs                 idleCost
}

// idleCost is one server's cost over the idle window.
type idleCost struct {
	cpu, server time.Duration // the process with its children; its tmux server
	spawned     int
	clients     int // tmux clients attached to its server meanwhile
}

// sectionPeers is section 10: each peer (-peers) beside tmuxmcp, the two
// taking turns (blocks of wait samples, alternate run calls) or running at
// once (the idle window, each on its own server), so load reaches both
// alike: wait latency, run round trip, tmux processes per call, idle CPU.
func sectionPeers(ctx context.Context, cfg config, rep *report) error {
	if len(cfg.peers) == 0 {
		return errors.New("no peer to measure: give -peers (make bench PEERS=libtmux-mcp; make peer builds it)")
	}
	for _, p := range cfg.peers {
		pr := &peerResult{peer: p, spawnCalls: 20}
		fmt.Fprintf(os.Stderr, "tmuxbench: peers: %s (%s) ...\n", p.name, p.rev)
		if err := pr.latencyAndRun(ctx, cfg); err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
		if err := pr.spawnsAndIdle(ctx, cfg); err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
		pr.rows(rep, cfg)
	}
	return nil
}

// latencyAndRun measures wait latency (the bare reader floor, tmuxmcp and
// the peer in rotating blocks on one pane, all three clients attached
// throughout) and run round trips (alternate calls) on one server.
func (pr *peerResult) latencyAndRun(ctx context.Context, cfg config) error {
	w, pane, err := newShellWorld(ctx, cfg)
	if err != nil {
		return err
	}
	defer w.close()
	c, err := w.startMCP(ctx, nil)
	if err != nil {
		return err
	}
	defer c.close()
	cur, err := c.cursor(ctx, pane)
	if err != nil {
		return err
	}
	pc, err := w.startPeer(ctx, pr.peer)
	if err != nil {
		return err
	}
	defer pc.close()
	lr, err := w.attachLiveReader(ctx, pane, "F", cfg.n)
	if err != nil {
		return err
	}
	defer lr.close()
	pr.floor.name = "bare `tmux -C` reader (floor)"
	per := max(1, cfg.n/tailBlocks)
	for b := 0; b < tailBlocks; b++ {
		for k := 0; k < 3; k++ {
			switch (b + k) % 3 {
			case 0:
				err = lr.block(ctx, w, pane, b*per, per, cfg.every, &pr.floor)
			case 1:
				var s sample
				s, _, cur, err = w.measureWaitFrom(ctx, c, pane, cur, "M", b*per, per, cfg.every)
				pr.oursWait.d = append(pr.oursWait.d, s.d...)
			case 2:
				var n, m int
				n, m, err = w.peerWaitFrom(ctx, pc, pane, "N", b*per, per, cfg.every, &pr.peerWait)
				pr.atEntry, pr.missed = pr.atEntry+n, pr.missed+m
			}
			if err != nil {
				return fmt.Errorf("wait latency: %w", err)
			}
		}
	}
	return pr.runs(ctx, cfg, w, c, pc)
}

// runs times `true` run in an existing bash pane by each server, the two
// calling in turns.
func (pr *peerResult) runs(ctx context.Context, cfg config, w *world, c, pc *client) error {
	ours, err := c.newShell(ctx)
	if err != nil {
		return err
	}
	theirs, err := w.defaultPane(ctx)
	if err != nil {
		return err
	}
	if _, err := peerRun(ctx, pc, theirs); err != nil { // its first run sets the pane up
		return err
	}
	for i := 0; i < cfg.n; i++ {
		for k := 0; k < 2; k++ {
			if (i+k)%2 == 0 {
				s, err := c.runs(ctx, "", 1, map[string]any{"paneId": ours, "command": "true"})
				if err != nil {
					return err
				}
				pr.oursRun.d = append(pr.oursRun.d, s.d...)
				continue
			}
			d, err := peerRun(ctx, pc, theirs)
			if err != nil {
				return err
			}
			pr.peerRun.d = append(pr.peerRun.d, d)
		}
	}
	return nil
}

// spawnsAndIdle counts the tmux processes each server starts per wait and
// per run, then measures both over the idle window at once, each on a
// server of its own with 20 idle panes and 100 open waits.
func (pr *peerResult) spawnsAndIdle(ctx context.Context, cfg config) error {
	wo, err := newWorld(ctx, cfg)
	if err != nil {
		return err
	}
	defer wo.close()
	wp, err := newWorld(ctx, cfg)
	if err != nil {
		return err
	}
	defer wp.close()
	tco, err := wo.countTmux("tmuxmcp")
	if err != nil {
		return err
	}
	tcp, err := wp.countTmux("peer")
	if err != nil {
		return err
	}
	waitMax := cfg.idle + 2*time.Minute
	c, err := wo.startMCP(ctx, []string{tco.pathEnv()}, "--wait-max", waitMax.String())
	if err != nil {
		return err
	}
	defer c.close()
	pc, err := wp.startPeer(ctx, pr.peer, tcp.pathEnv())
	if err != nil {
		return err
	}
	defer pc.close()
	if err := pr.spawns(ctx, cfg, wo, wp, c, pc, tco, tcp); err != nil {
		return fmt.Errorf("tmux processes per call: %w", err)
	}
	return pr.idle(ctx, cfg, wo, wp, c, pc, tco, tcp)
}

// spawns counts the tmux processes started during spawnCalls waits and
// spawnCalls runs of each server.
func (pr *peerResult) spawns(ctx context.Context, cfg config, wo, wp *world, c, pc *client, tco, tcp *tmuxCounter) error {
	op, err := wo.shellPane(ctx)
	if err != nil {
		return err
	}
	pp, err := wp.shellPane(ctx)
	if err != nil {
		return err
	}
	cur, err := c.cursor(ctx, op)
	if err != nil {
		return err
	}
	n := pr.spawnCalls
	o0, p0 := tco.spawned(), tcp.spawned()
	if _, _, _, err := wo.measureWaitFrom(ctx, c, op, cur, "M", 0, n, cfg.every); err != nil {
		return err
	}
	var discard sample
	_, missed, err := wp.peerWaitFrom(ctx, pc, pp, "N", 0, n, cfg.every, &discard)
	if err != nil {
		return err
	}
	pr.peerWaitCalls = len(discard.d) + missed
	pr.oursWaitSpawn, pr.peerWaitSpawn = tco.spawned()-o0, tcp.spawned()-p0
	pr.peerWaitKinds = tmuxKinds(tcp.calls()[p0:])
	ours, err := c.newShell(ctx)
	if err != nil {
		return err
	}
	theirs, err := wp.defaultPane(ctx)
	if err != nil {
		return err
	}
	if _, err := peerRun(ctx, pc, theirs); err != nil {
		return err
	}
	o0, p0 = tco.spawned(), tcp.spawned()
	if _, err := c.runs(ctx, "", n, map[string]any{"paneId": ours, "command": "true"}); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if _, err := peerRun(ctx, pc, theirs); err != nil {
			return err
		}
	}
	pr.oursRunSpawn, pr.peerRunSpawn = tco.spawned()-o0, tcp.spawned()-p0
	pr.peerRunKinds = tmuxKinds(tcp.calls()[p0:])
	return nil
}

// idle opens 20 panes and parks 100 waits that never match on each
// server, then measures both over cfg.idle, at once.
func (pr *peerResult) idle(ctx context.Context, cfg config, wo, wp *world, c, pc *client, tco, tcp *tmuxCounter) error {
	var ours, theirs []string
	for i := 0; i < 20; i++ {
		p, err := c.newShell(ctx)
		if err != nil {
			return err
		}
		ours = append(ours, p)
		if p, err = wp.defaultPane(ctx); err != nil {
			return err
		}
		theirs = append(theirs, p)
	}
	waitMax := cfg.idle + 2*time.Minute
	stopO, err := c.park(ctx, 100, ours, waitMax, 2*time.Second, never)
	if err != nil {
		return err
	}
	defer stopO()
	stopP, err := pc.parkCalls(ctx, 100, 2*time.Second, func(i int) map[string]any {
		return map[string]any{"paneId": theirs[i%len(theirs)], "patterns": []string{fmt.Sprintf("never-%d", i)}, "timeoutSeconds": int(waitMax.Seconds())}
	})
	if err != nil {
		return err
	}
	defer stopP()
	start := func(w *world, cl *client, tc *tmuxCounter) (func() idleCost, error) {
		srv, err := w.serverPID(ctx)
		if err != nil {
			return nil, err
		}
		cpu0, srv0, n0 := treeCPU(cl.pid()), treeCPU(srv), tc.spawned()
		return func() idleCost {
			clients, _ := w.target.Run(ctx, "list-clients", "-F", "x")
			return idleCost{cpu: treeCPU(cl.pid()) - cpu0, server: treeCPU(srv) - srv0, spawned: tc.spawned() - n0, clients: len(strings.Fields(clients))}
		}, nil
	}
	endO, err := start(wo, c, tco)
	if err != nil {
		return err
	}
	endP, err := start(wp, pc, tcp)
	if err != nil {
		return err
	}
	select {
	case <-time.After(cfg.idle):
	case <-ctx.Done():
		return ctx.Err()
	}
	pr.ours, pr.theirs = endO(), endP()
	if n := stopP(); n > 0 {
		return fmt.Errorf("%d of the peer's 100 idle waits ended before the window did", n)
	}
	if n := stopO(); n > 0 {
		return fmt.Errorf("%d of tmuxmcp's 100 idle waits ended before the window did", n)
	}
	return nil
}

// treeCPU is the CPU time (user and system) of pid, of its descendants
// alive now, and of the children they have reaped, from /proc.
func treeCPU(pid int) time.Duration {
	children := map[int][]int{}
	stats := map[int][]string{}
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		i := strings.LastIndexByte(string(b), ')')
		if err != nil || i < 0 || i+2 > len(b) {
			continue
		}
		f := strings.Fields(string(b[i+2:]))
		p, _ := strconv.Atoi(filepath.Base(filepath.Dir(d)))
		ppid, _ := strconv.Atoi(f[1])
		children[ppid] = append(children[ppid], p)
		stats[p] = f
	}
	var total int64
	var walk func(p int)
	walk = func(p int) {
		if f, ok := stats[p]; ok && len(f) > 14 {
			for _, k := range []int{11, 12, 13, 14} { // utime stime cutime cstime
				v, _ := strconv.ParseInt(f[k], 10, 64)
				total += v
			}
		}
		for _, ch := range children[p] {
			walk(ch)
		}
	}
	walk(pid)
	return time.Duration(total) * time.Second / 100 // USER_HZ is 100 on Linux
}

// tmuxKinds summarises tmux argument lists by command: "capture-pane ×20,
// attach-session (-C) ×20".
func tmuxKinds(calls []string) string {
	count := map[string]int{}
	for _, c := range calls {
		f := strings.Fields(c)
		kind, control := "?", false
		for i := 0; i < len(f); i++ {
			switch a := f[i]; {
			case a == "-L" || a == "-S" || a == "-f":
				i++
			case a == "-C" || a == "-CC":
				control = true
			case !strings.HasPrefix(a, "-"):
				kind = a
				i = len(f)
			}
		}
		if control {
			kind += " (-C)"
		}
		count[kind]++
	}
	var kinds []string
	for k := range count {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool {
		return count[kinds[i]] > count[kinds[j]] || count[kinds[i]] == count[kinds[j]] && kinds[i] < kinds[j]
	})
	var parts []string
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%s ×%d", k, count[k]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
