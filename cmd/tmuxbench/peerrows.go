package main

import (
	"fmt"
	"io"
	"time"
)

// peerPair is one measurement of tmuxmcp and a peer, side by side.
type peerPair struct {
	what, ours, theirs, ratio string
}

// pairs are the peer's measurements beside tmuxmcp's, in table order.
func (pr *peerResult) pairs(cfg config) []peerPair {
	p50 := func(a, b sample) string {
		return fmt.Sprintf("%.2f× (p50), %.2f× (p99)", ratio(a.p(0.5), b.p(0.5)), ratio(a.p(0.99), b.p(0.99)))
	}
	per := func(n, calls int) string {
		return fmt.Sprintf("%.2f (%d in %d calls)", float64(n)/float64(max(calls, 1)), n, calls)
	}
	perMin := func(d time.Duration) float64 { return d.Seconds() * float64(time.Minute) / float64(cfg.idle) }
	cpu := func(d time.Duration) string { return fmt.Sprintf("%.3f CPU-s/min", perMin(d)) }
	cpuRatio := func(a, b time.Duration) string {
		if perMin(b) <= 0 {
			return ""
		}
		return fmt.Sprintf("%.3f×", perMin(a)/perMin(b))
	}
	return []peerPair{
		{"wait latency: wait_for_text per printed line (stdio)", pr.oursWait.summary(),
			pr.peerWait.summary() + fmt.Sprintf("; %d matched on the screen at entry; %d lines its wait never saw (a line printed after the wait reads the screen and before its control client attaches is in neither), the wait given up and the lines printed meanwhile not sampled", pr.atEntry, pr.missed), p50(pr.oursWait, pr.peerWait)},
		{"run round trip: `true` in an existing bash pane (run_shell_command / run_command)", pr.oursRun.summary(), pr.peerRun.summary(), p50(pr.oursRun, pr.peerRun)},
		{"tmux processes spawned per wait_for_text call", per(pr.oursWaitSpawn, pr.spawnCalls), per(pr.peerWaitSpawn, pr.peerWaitCalls) + ": " + pr.peerWaitKinds, ""},
		{"tmux processes spawned per run call", per(pr.oursRunSpawn, pr.spawnCalls), per(pr.peerRunSpawn, pr.spawnCalls) + ": " + pr.peerRunKinds, ""},
		{fmt.Sprintf("idle CPU, 20 idle panes + 100 open waits, %v (the server and its child processes)", cfg.idle), cpu(pr.ours.cpu), cpu(pr.theirs.cpu), cpuRatio(pr.ours.cpu, pr.theirs.cpu)},
		{"tmux processes spawned in the idle window", fmt.Sprint(pr.ours.spawned), fmt.Sprint(pr.theirs.spawned), ""},
		{"tmux clients attached in the idle window", fmt.Sprint(pr.ours.clients), fmt.Sprint(pr.theirs.clients), ""},
		{"tmux server CPU in the idle window", cpu(pr.ours.server), cpu(pr.theirs.server), cpuRatio(pr.ours.server, pr.theirs.server)},
	}
}

// rows adds section 10's rows to the summary table: the floor, then each
// measurement with the peer's figure as the value and tmuxmcp's as the
// baseline.
func (pr *peerResult) rows(rep *report, cfg config) {
	const sec = "10 peers"
	name := pr.peer.short()
	rep.add(row{sec, "wait latency: bare `tmux -C` reader (floor), in turns with both", pr.floor.summary(), "—", "", "", ""})
	for _, p := range pr.pairs(cfg) {
		r := ""
		if p.ratio != "" {
			r = "tmuxmcp ÷ peer " + p.ratio
		}
		rep.add(row{sec, p.what + " — " + name, p.theirs, "tmuxmcp " + p.ours, r, "", ""})
	}
	rep.peers = append(rep.peers, pr)
	rep.note(fmt.Sprintf("peers (section 10): %s is %s, driven over stdio by the same MCP client SDK as tmuxmcp: its wait_for_text with a regex for each line (`LATN <i> \\d+\\r?$`, unanchored at the start: its matching reads the terminal stream, where the first line follows an escape sequence; it has no cursor: it matches what the pane shows when the wait starts, then watches a control client it opens for that wait), its run_command `true` with paneId in a bash pane with the same rc files as tmuxmcp's. Wait samples in %d rotating blocks with the floor and tmuxmcp on one pane, run calls alternating; the idle window ran on two servers at once; tmux processes counted by a wrapper first in each server's PATH.", pr.peer.name, pr.peer.shown, tailBlocks))
}

// peerMarkdown writes the Peers section of docs/bench.md: each peer's
// measurements beside tmuxmcp's, with the revision it was built from.
func (r *report) peerMarkdown(w io.Writer, cfg config) {
	if len(r.peers) == 0 {
		return
	}
	fmt.Fprintf(w, "\n## Peers\n\nEach peer was measured beside tmuxmcp in the same run (`make bench PEERS=…`; `make peer PEER_SRC=…` builds libtmux-go's server). Ratios are tmuxmcp ÷ the peer: below 1 tmuxmcp is faster.\n")
	for _, pr := range r.peers {
		fmt.Fprintf(w, "\n### %s\n\nBuilt from %s (%s). Wait-latency floor in the same blocks: %s.\n\n| measurement | tmuxmcp | %s | tmuxmcp ÷ peer |\n|---|---|---|---|\n", pr.peer.name, pr.peer.rev, pr.peer.shown, pr.floor.summary(), pr.peer.name)
		for _, p := range pr.pairs(cfg) {
			fmt.Fprintf(w, "| %s | %s | %s | %s |\n", p.what, p.ours, p.theirs, p.ratio)
		}
	}
}
