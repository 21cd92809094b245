package tmux

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Raw ingest: how a pane's output is read. Through control mode, tmux
// re-encodes every byte for each control client (%output lines, octal
// escapes) and paces the pane to the slowest of them. A pane the fleet can
// pipe is read raw instead: `pipe-pane -O` into a relay that hands tmux's
// socket to the fleet (relay.go), and its %output turned off.
//
// The hand-over is exact. tmux starts the pipe at everything it has read
// from the pane, and control mode queues a pane's output before the reply
// of a command that runs after it: so the %output that comes before the
// pipe-pane reply is the recording up to the pipe's first byte, and what
// comes after it is a copy of the pipe's (dropped). The %output is then
// paused and switched off for the pane (pause first: `-A off` on a client
// that is behind on the pane crashed tmux 3.3a in 3 of 6 runs; pause, then
// off, in none of 12).
//
// A pane stays on %output when it cannot be piped: tmux already pipes it
// (pipe-pane is one per pane; someone else's is never replaced), the relay
// did not come, the server is on another machine, or raw ingest is off.
// If tmux closes the pipe while the pane lives (someone ran pipe-pane on
// it), the pane goes back to %output and the gap is reported as dropped.

// PipeOption is the pane option naming the process (its pid) whose relay
// pipes the pane: a pipe whose process has exited (tmux notices a closed
// pipe only when it next writes to it) is taken over, anyone else's is
// left alone.
const PipeOption = "@tmuxmcp-pipe"

// staleOwner reports whether by (a PipeOption value) names a process of
// this machine that has exited.
func staleOwner(by string) bool {
	pid, err := strconv.Atoi(by)
	if err != nil || pid <= 0 {
		return false
	}
	return syscall.Kill(pid, 0) == syscall.ESRCH
}

// Ingest paths, as Fleet.Ingest reports them.
const (
	IngestPipe    = "pipe"
	IngestControl = "control"
)

// Options are a Fleet's settings beyond its server.
type Options struct {
	// Relay is the command that serves as a pane-output relay (SelfRelay);
	// nil reads every pane through control mode.
	Relay []string
}

// relayWait bounds how long a relay may take to connect. After one did
// not, the fleet reads every later pane through control mode at once
// (Fleet.relayBroken): no pane waits for a relay that cannot come.
const relayWait = 5 * time.Second

// handover is a pane between the pipe-pane reply and its relay's arrival:
// the %output that came meanwhile is held, to be dropped (the pipe has it)
// or handed on (the relay failed).
type handover struct {
	replied bool
	held    []byte
	lost    bool // held outgrew maxHeld
	done    chan struct{}
}

// maxHeld bounds the %output held during a hand-over.
const maxHeld = 16 << 20

// Ingest says how pane's output is read: IngestPipe or IngestControl.
func (f *Fleet) Ingest(pane int) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.pipes[pane] != nil {
		return IngestPipe
	}
	return IngestControl
}

// pipeNew starts piping every listed pane that is not piped or tried yet.
func (f *Fleet) pipeNew(panes []PaneInfo) {
	if f.relays == nil {
		return
	}
	for _, p := range panes {
		f.mu.Lock()
		try := !p.Dead && !f.relayBroken && f.pipes[p.ID] == nil && f.switching[p.ID] == nil && !f.unpiped[p.ID]
		if try {
			f.switching[p.ID] = &handover{done: make(chan struct{})}
		}
		f.mu.Unlock()
		if try {
			f.wg.Add(1)
			go func() {
				defer f.wg.Done()
				f.pipeSlots <- struct{}{}
				defer func() { <-f.pipeSlots }()
				ctx, cancel := context.WithTimeout(f.ctx, relayWait)
				defer cancel()
				if err := f.pipePane(ctx, p); err != nil {
					f.log.Info("pane read through control mode", "pane", PaneName(p.ID), "why", err)
				}
			}()
		}
	}
}

// pipePane hands pane p over from %output to a pipe; on failure the pane
// stays on %output with nothing lost.
func (f *Fleet) pipePane(ctx context.Context, p PaneInfo) (err error) {
	pane := p.ID
	f.mu.Lock()
	h := f.switching[pane]
	c := f.owner[pane]
	if c == nil {
		c = f.conns[p.SessionID]
	}
	f.mu.Unlock()
	var pp *panePipe
	defer func() { f.endHandover(pane, h, pp, err) }()
	if c == nil {
		return fmt.Errorf("no control client sees the pane")
	}
	out, err := c.Exec(ctx, "display-message", "-p", "-t", PaneName(pane), "#{pane_pipe}\x1f#{"+PipeOption+"}")
	if err != nil {
		return err
	}
	open := "-o" // never replace someone else's pipe
	if len(out) == 1 {
		if piped, by, _ := strings.Cut(out[0], "\x1f"); piped == "1" {
			if !staleOwner(by) {
				return fmt.Errorf("the pane is already piped (pipe-pane)")
			}
			open = "-O" // a tmuxmcp that has exited left it: replaced
		}
	}
	token, ch := f.relays.expect()
	defer f.relays.forget(token)
	mark := func() {
		f.mu.Lock()
		h.replied = true
		f.mu.Unlock()
	}
	if _, err := c.ExecBatchMark(ctx, mark,
		[]string{"pipe-pane", open, "-O", "-t", PaneName(pane), relayCommand(f.relay, f.relays.addr, token)},
		[]string{"set-option", "-p", "-t", PaneName(pane), PipeOption, strconv.Itoa(os.Getpid())}); err != nil {
		return err
	}
	select {
	case file := <-ch:
		if pp, err = newPanePipe(pane, file, f.ev.PaneOutput); err != nil {
			return err
		}
		return nil
	case <-ctx.Done():
		// Ours or not, a pipe that never connected is closed.
		_, _ = c.Exec(context.Background(), "pipe-pane", "-t", PaneName(pane))
		if f.ctx.Err() == nil {
			f.mu.Lock()
			f.relayBroken = true
			f.mu.Unlock()
			f.log.Warn("the pipe-pane relay did not connect; every pane is read through control mode", "relay", strings.Join(f.relay, " "))
		}
		return fmt.Errorf("the pipe-pane relay did not connect: %w", ctx.Err())
	}
}

// endHandover ends pane's hand-over: with pp the pipe takes over (the held
// %output is a copy of its first bytes), else the held %output is handed on.
func (f *Fleet) endHandover(pane int, h *handover, pp *panePipe, err error) {
	f.mu.Lock()
	delete(f.switching, pane)
	if pp == nil {
		f.unpiped[pane] = true
		if len(h.held) > 0 {
			f.ev.PaneOutput(pane, h.held) // under mu: before any later %output
		}
		if h.lost {
			f.ev.PaneOutputDropped(pane)
		}
		f.mu.Unlock()
		close(h.done)
		return
	}
	f.pipes[pane] = pp
	f.mu.Unlock()
	close(h.done)
	go pp.run()
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		f.watchPipe(pp)
	}()
	// No more %output for the pane on any client: pause (which drops what
	// is queued), then off.
	f.setOutput(pane, "pause", "off")
}

// setOutput sends refresh-client -A pane:state for each state, one round
// trip each, on every control client.
func (f *Fleet) setOutput(pane int, states ...string) {
	f.mu.Lock()
	conns := make([]*Conn, 0, len(f.conns))
	for _, c := range f.conns {
		conns = append(conns, c)
	}
	f.mu.Unlock()
	for _, st := range states {
		for _, c := range conns {
			ctx, cancel := context.WithTimeout(f.ctx, 10*time.Second)
			if _, err := c.Exec(ctx, "refresh-client", "-A", PaneName(pane)+":"+st); err != nil {
				f.log.Debug("refresh-client -A", "pane", PaneName(pane), "state", st, "err", err)
			}
			cancel()
		}
	}
}

// watchPipe waits for pp's end. Closed by tmux while the pane lives: the
// pane goes back to %output, and the bytes in between are reported lost.
func (f *Fleet) watchPipe(pp *panePipe) {
	select {
	case <-pp.done:
	case <-f.ctx.Done():
		return
	}
	f.mu.Lock()
	if f.pipes[pp.pane] == pp {
		delete(f.pipes, pp.pane)
		f.unpiped[pp.pane] = true
	}
	f.mu.Unlock()
	if !pp.endedByTmux() || f.ctx.Err() != nil {
		return
	}
	ctx, cancel := context.WithTimeout(f.ctx, 10*time.Second)
	defer cancel()
	if p, err := f.Pane(ctx, pp.pane); err != nil || p.Dead {
		return // the pane is gone (or the server): the listing ends its recording
	}
	f.log.Warn("pane's output pipe closed by someone else; reading it through control mode", "pane", PaneName(pp.pane))
	f.setOutput(pp.pane, "on", "continue") // on clears off, continue the pause
	f.ev.PaneOutputDropped(pp.pane)
}

// barrier returns pane's pipe (nil: the pane is read through %output),
// waiting first for a hand-over in progress: a command whose reply must
// follow every byte of the pane before it drains the pipe at its reply
// (ExecBatchPane).
func (f *Fleet) barrier(ctx context.Context, pane int) (*panePipe, error) {
	f.mu.Lock()
	h := f.switching[pane]
	f.mu.Unlock()
	if h != nil {
		select {
		case <-h.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pipes[pane], nil
}

// drainPipes hands on what every pipe holds now (before a listing is
// delivered, so a pane's bytes come before the listing that says it died).
func (f *Fleet) drainPipes() {
	f.mu.Lock()
	pipes := make([]*panePipe, 0, len(f.pipes))
	for _, pp := range f.pipes {
		pipes = append(pipes, pp)
	}
	f.mu.Unlock()
	for _, pp := range pipes {
		pp.drain()
	}
}

// closePipes ends every pipe and stops the listener: tmux is told to
// close them (it would notice a closed socket only at the pane's next
// output, and a pane that stays quiet would look piped to the next
// tmuxmcp).
func (f *Fleet) closePipes() {
	f.mu.Lock()
	pipes := f.pipes
	f.pipes = map[int]*panePipe{}
	f.mu.Unlock()
	if c, err := f.anyConn(); err == nil && len(pipes) > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		for pane := range pipes { // one line each: a pane gone fails only its own
			if _, err := c.ExecBatch(ctx, []string{"pipe-pane", "-t", PaneName(pane)}, []string{"set-option", "-p", "-u", "-t", PaneName(pane), PipeOption}); err != nil {
				f.log.Debug("closing a pane's pipe", "pane", PaneName(pane), "err", err)
			}
		}
		cancel()
	}
	for _, pp := range pipes {
		pp.close()
	}
	if f.relays != nil {
		f.relays.close()
	}
}

// openRelays starts listening for relays when opts and the target allow.
func (f *Fleet) openRelays(opts Options) {
	if len(opts.Relay) == 0 || f.target.Via != nil {
		return
	}
	l, err := listenRelay(f.log, f.serverPID)
	if err != nil {
		f.log.Warn("panes read through control mode", "err", err)
		return
	}
	f.relays, f.relay = l, opts.Relay
}

// serverPID is the tmux server's process id, asked now (0 when it cannot
// be): relays must be its children.
func (f *Fleet) serverPID() int {
	ctx, cancel := context.WithTimeout(f.ctx, 5*time.Second)
	defer cancel()
	out, err := f.Exec(ctx, "display-message", "-p", "#{pid}")
	if err != nil || len(out) != 1 {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(out[0]))
	return pid
}
