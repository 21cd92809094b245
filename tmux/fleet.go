package tmux

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Events receives what the Fleet learns. PaneOutput, PaneRestarted and
// PaneOutputDropped are called from control-connection reader goroutines and
// must not block; PanesListed and Disconnected from the Fleet's own loop.
type Events interface {
	// PaneOutput delivers decoded %output bytes; data is reused after return.
	PaneOutput(pane int, data []byte)
	// PaneRestarted says the pane's output now arrives over another
	// connection, so bytes may have been lost in between.
	PaneRestarted(pane int)
	// PaneOutputDropped says tmux discarded output of the pane (%pause).
	PaneOutputDropped(pane int)
	// PanesListed delivers a full listing of the server's panes, requested
	// at listedAt.
	PanesListed(panes []PaneInfo, listedAt time.Time)
	// Disconnected says no control connection is left; err says why.
	Disconnected(err error)
	// Reconnected says the server is reachable again after Disconnected:
	// panes seen from now on are new recordings.
	Reconnected()
}

// PaneInfo describes one pane as list-panes reports it.
type PaneInfo struct {
	ID             int
	SessionID      string
	SessionName    string
	WindowID       string
	WindowIndex    int
	WindowName     string
	WindowActive   bool
	PaneIndex      int
	Title          string
	CurrentCommand string
	PID            int
	CWD            string
	Width, Height  int
	Active         bool
	Dead           bool
	DeadStatus     *int
	DeadSignal     *int
	InMode         bool
	Alternate      bool
	InputOff       bool
	// TTY is the pane's terminal device, e.g. /dev/pts/3.
	TTY string
	// CursorX and CursorY are the cursor's column and row on the screen;
	// HistorySize is how many rows scrolled above it, so HistorySize+CursorY
	// is the cursor's absolute row, stable while the screen scrolls.
	CursorX, CursorY, HistorySize int
	// Program is the pane option ProgramOption: the program a pane was
	// created to run, when tmuxmcp started it under a wrapper.
	Program string
	// ShellTag is the pane option ShellOption: the tag of the integrated
	// shell tmuxmcp started in the pane, or "".
	ShellTag string
	// Prompt is the pane option PromptOption: the last line of the prompt
	// the pane's integrated shell last drew while tmuxmcp watched, or "".
	Prompt string
	// StartAfter is the pane option StartOption: the wait-for channel its
	// shell waits on before it starts, or "".
	StartAfter string
	// Person is the pane option PersonOption: PersonTook or PersonAsked
	// while a person has the pane, "" while the agent may type into it.
	Person string
	// FinishedUntil is the pane option FinishedOption: when the window of a
	// finished job, kept to show its end, is to close (zero: not one).
	FinishedUntil time.Time
}

// ProgramOption is the pane option that names the program a pane was
// created to run (PaneInfo.Program), set by whoever starts it under a
// wrapper.
const ProgramOption = "@tmuxmcp-program"

// ShellOption is the pane option that holds the tag of the integrated
// shell tmuxmcp started in the pane (PaneInfo.ShellTag).
const ShellOption = "@tmuxmcp-shell"

// PromptOption is the pane option that remembers the pane's last prompt
// line (PaneInfo.Prompt), so a restarted tmuxmcp still knows it.
const PromptOption = "@tmuxmcp-prompt"

// StartOption is the pane option naming the wait-for channel the pane's
// shell waits on before it starts (PaneInfo.StartAfter): a session's first
// pane, created before tmuxmcp records it.
const StartOption = "@tmuxmcp-start"

// PersonOption is the pane option that says a person has the pane
// (PaneInfo.Person): the hand-off key binding (BindHandOff) sets it to
// PersonTook and clears it, the agent's request for a person sets it to
// PersonAsked.
const PersonOption = "@tmuxmcp-person"

// The values of PersonOption.
const (
	PersonTook  = "took"  // a person took the pane with the hand-off key
	PersonAsked = "asked" // an agent asked for a person in the pane
)

// paneFields are the list-panes fields PaneInfo is parsed from, separated
// by \x1f: ids and numbers first, then free text, the current path last so
// that a stray separator in it cannot shift the other fields.
var paneFields = []string{
	"pane_id", "session_id", "window_id", "window_index", "window_active", "pane_index", "pane_pid",
	"pane_width", "pane_height", "pane_active", "pane_dead", "pane_dead_status", "pane_dead_signal",
	"pane_in_mode", "alternate_on", "pane_input_off", "cursor_x", "cursor_y", "history_size", "pane_tty",
	ShellOption, StartOption, ProgramOption, PersonOption, FinishedOption, "session_name", "window_name", "pane_current_command", PromptOption, "pane_title", "pane_current_path",
}

// PaneFormat is the -F format for list-panes that ParsePane reads.
var PaneFormat = func() string {
	parts := make([]string, len(paneFields))
	for i, f := range paneFields {
		parts[i] = "#{" + f + "}"
	}
	return strings.Join(parts, "\x1f")
}()

// paneRecords joins list-panes output lines into one record per pane: a
// title or path with a newline in it continues on the next line.
func paneRecords(lines []string) []string {
	var out []string
	for _, l := range lines {
		id, _, ok := strings.Cut(l, "\x1f")
		if n, isID := parsePaneNumber([]byte(strings.TrimPrefix(id, "%"))); ok && isID && strings.HasPrefix(id, "%") && n >= 0 || len(out) == 0 {
			out = append(out, l)
			continue
		}
		out[len(out)-1] += "\n" + l
	}
	return out
}

// ParsePane parses one record printed with PaneFormat.
func ParsePane(line string) (PaneInfo, error) {
	f := strings.SplitN(line, "\x1f", len(paneFields))
	if len(f) != len(paneFields) {
		return PaneInfo{}, fmt.Errorf("pane line has %d fields, want %d: %q", len(f), len(paneFields), line)
	}
	id, ok := parsePaneNumber([]byte(strings.TrimPrefix(f[0], "%")))
	if !ok || !strings.HasPrefix(f[0], "%") {
		return PaneInfo{}, fmt.Errorf("bad pane id %q", f[0])
	}
	atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
	optInt := func(s string) *int {
		n, err := strconv.Atoi(s)
		if err != nil {
			return nil
		}
		return &n
	}
	return PaneInfo{
		ID: id, SessionID: f[1], WindowID: f[2], WindowIndex: atoi(f[3]), WindowActive: f[4] == "1",
		PaneIndex: atoi(f[5]), PID: atoi(f[6]), Width: atoi(f[7]), Height: atoi(f[8]), Active: f[9] == "1",
		Dead: f[10] == "1", DeadStatus: optInt(f[11]), DeadSignal: optInt(f[12]), InMode: f[13] == "1", Alternate: f[14] == "1",
		InputOff: f[15] == "1", CursorX: atoi(f[16]), CursorY: atoi(f[17]), HistorySize: atoi(f[18]), TTY: f[19],
		ShellTag: f[20], StartAfter: f[21], Program: f[22], Person: f[23], FinishedUntil: unixTime(f[24]), SessionName: f[25], WindowName: f[26], CurrentCommand: f[27],
		Prompt: f[28], Title: f[29], CWD: f[30],
	}, nil
}

// Fleet keeps one control connection per tmux session of a server, adds one
// when a session appears, and routes each pane's output from exactly one
// connection (the pane's owner), however many sessions link its window.
type Fleet struct {
	target Target
	ev     Events
	log    *slog.Logger

	mu      sync.Mutex
	conns   map[string]*Conn // by session id
	owner   map[int]*Conn
	owned   map[int]bool // panes that have had an owner, to detect a change of owner
	lostErr error        // set when the last connection ended

	kickPanes    chan struct{}
	kickSessions chan struct{}
	syncMu       sync.Mutex    // serialises syncSessions
	reconnectMu  sync.Mutex    // the lost transition and Reconnect, one at a time
	retry        *time.Timer   // reconnect attempts while lost
	backoff      time.Duration // the next retry delay
	connGone     chan *Conn

	// Raw ingest (ingest.go): nil relays reads every pane through control mode.
	relays      *relayListener
	relay       []string
	pipes       map[int]*panePipe // panes read raw
	switching   map[int]*handover // panes being handed over to a pipe
	unpiped     map[int]bool      // panes that stay on %output
	relayBroken bool              // a relay did not connect: no more tries
	pipeSlots   chan struct{}     // hand-overs at a time

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// StartFleet attaches a control client to every session of the server and
// lists its panes before returning.
func StartFleet(ctx context.Context, target Target, ev Events, log *slog.Logger) (*Fleet, error) {
	return StartFleetWith(ctx, target, ev, log, Options{})
}

// StartFleetWith is StartFleet with options (raw ingest: Options.Relay).
func StartFleetWith(ctx context.Context, target Target, ev Events, log *slog.Logger, opts Options) (*Fleet, error) {
	fctx, cancel := context.WithCancel(context.Background())
	f := &Fleet{
		target: target, ev: ev, log: log,
		conns: map[string]*Conn{}, owner: map[int]*Conn{}, owned: map[int]bool{},
		kickPanes: make(chan struct{}, 1), kickSessions: make(chan struct{}, 1),
		connGone: make(chan *Conn, 16), ctx: fctx, cancel: cancel,
		pipes: map[int]*panePipe{}, switching: map[int]*handover{}, unpiped: map[int]bool{},
		pipeSlots: make(chan struct{}, 4),
	}
	f.openRelays(opts)
	if err := f.syncSessions(ctx); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.listPanes(ctx); err != nil {
		f.Close()
		return nil, err
	}
	f.wg.Add(1)
	go f.loop()
	return f, nil
}

// Target returns the server this fleet watches.
func (f *Fleet) Target() Target { return f.target }

// Close detaches every control client and stops the fleet.
func (f *Fleet) Close() {
	f.cancel()
	f.wg.Wait()
	f.closePipes()
	f.closeConns()
}

func (f *Fleet) closeConns() {
	f.mu.Lock()
	conns := make([]*Conn, 0, len(f.conns))
	for _, c := range f.conns {
		conns = append(conns, c)
	}
	f.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() { defer wg.Done(); c.Close() }()
	}
	wg.Wait()
}

// Err returns why the fleet has no connection, or nil while it has one.
func (f *Fleet) Err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.conns) > 0 && f.lostErr == nil {
		return nil
	}
	if f.lostErr != nil {
		return f.lostErr
	}
	return fmt.Errorf("not connected to %s", f.target)
}

// Exec runs a command on any live control connection.
func (f *Fleet) Exec(ctx context.Context, args ...string) ([]string, error) {
	c, err := f.anyConn()
	if err != nil {
		return nil, err
	}
	return c.Exec(ctx, args...)
}

// ExecBatch runs commands on one line of any live connection (see Conn.ExecBatch).
func (f *Fleet) ExecBatch(ctx context.Context, cmds ...[]string) ([][]string, error) {
	c, err := f.anyConn()
	if err != nil {
		return nil, err
	}
	return c.ExecBatch(ctx, cmds...)
}

// ExecPane runs a command on the connection that delivers pane's output, and
// runs mark on its reader goroutine when the reply ends (see Conn.ExecMark).
// mark sees every byte of the pane that tmux had processed before the
// command: through %output the bytes come before the reply on the same
// pipe; a raw pane's pipe is drained after a second round trip
// (ExecBatchPane).
func (f *Fleet) ExecPane(ctx context.Context, pane int, mark func(), args ...string) ([]string, error) {
	out, err := f.ExecBatchPane(ctx, pane, mark, args)
	if len(out) == 0 {
		return nil, err
	}
	return out[0], err
}

// ExecBatchPane is ExecPane for several commands on one line (see
// Conn.ExecBatch), mark running when the last reply ends.
func (f *Fleet) ExecBatchPane(ctx context.Context, pane int, mark func(), cmds ...[]string) ([][]string, error) {
	pp, err := f.barrier(ctx, pane)
	if err != nil {
		return nil, err
	}
	c, err := f.paneConn(pane)
	if err != nil {
		return nil, err
	}
	if pp == nil {
		return c.ExecBatchMark(ctx, mark, cmds...)
	}
	out, err := c.ExecBatchMark(ctx, nil, cmds...)
	if err != nil {
		return out, err
	}
	// tmux writes a pipe in the loop pass after the one that read the
	// bytes, the same pass that writes the reply: the reply can come
	// first. A second command runs in a later pass, so by its reply the
	// pipe has every byte tmux read before the first.
	_, err = c.ExecMark(ctx, func() {
		pp.drain()
		if mark != nil {
			mark()
		}
	}, "display-message", "-p", "")
	return out, err
}

// paneConn is the connection that delivers pane's %output (any, if none
// has yet).
func (f *Fleet) paneConn(pane int) (*Conn, error) {
	f.mu.Lock()
	c := f.owner[pane]
	f.mu.Unlock()
	if c != nil {
		return c, nil
	}
	return f.anyConn()
}

func (f *Fleet) anyConn() (*Conn, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ids := make([]string, 0, len(f.conns))
	for id := range f.conns {
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		if f.lostErr != nil {
			return nil, f.lostErr
		}
		return nil, fmt.Errorf("not connected to %s", f.target)
	}
	sort.Strings(ids)
	return f.conns[ids[0]], nil
}

// RefreshPanes asks for a new pane listing soon (coalesced).
func (f *Fleet) RefreshPanes() {
	select {
	case f.kickPanes <- struct{}{}:
	default:
	}
}

// Pane describes one pane now, by number: the one place a pane's state is
// read (ErrNoPane when tmux has no such pane).
func (f *Fleet) Pane(ctx context.Context, pane int) (PaneInfo, error) {
	// On the pane's own connection, its pipe drained at the reply: one
	// round trip (PaneScreen and marks take two, to be exact).
	pp, err := f.barrier(ctx, pane)
	if err != nil {
		return PaneInfo{}, err
	}
	c, err := f.paneConn(pane)
	if err != nil {
		return PaneInfo{}, err
	}
	var drain func()
	if pp != nil {
		drain = func() { pp.drain() }
	}
	lines, err := c.ExecMark(ctx, drain, "list-panes", "-t", PaneName(pane), "-F", PaneFormat)
	return findPane(pane, lines, err)
}

// PaneMarked is Pane read on the connection that delivers the pane's
// output, running mark on its reader goroutine when the reply ends (see
// ExecPane): mark sees every byte of the pane that tmux had processed
// before the description.
func (f *Fleet) PaneMarked(ctx context.Context, pane int, mark func()) (PaneInfo, error) {
	lines, err := f.ExecPane(ctx, pane, mark, "list-panes", "-t", PaneName(pane), "-F", PaneFormat)
	return findPane(pane, lines, err)
}

// PaneScreen describes one pane and returns the rows its screen shows, read
// together: tmux runs both in one pass, so the cursor position and the rows
// agree.
func (f *Fleet) PaneScreen(ctx context.Context, pane int) (PaneInfo, []string, error) {
	id := PaneName(pane)
	// On the pane's own connection, after its pipe is drained: the rows
	// it shows are never ahead of what its recording has.
	out, err := f.ExecBatchPane(ctx, pane, nil, []string{"list-panes", "-t", id, "-F", PaneFormat}, []string{"capture-pane", "-p", "-t", id})
	var lines []string
	if len(out) > 0 {
		lines = out[0]
	}
	p, err := findPane(pane, lines, err)
	if err != nil || len(out) != 2 {
		return PaneInfo{}, nil, cmp.Or(err, fmt.Errorf("%s: %w", id, ErrNoPane))
	}
	return p, out[1], nil
}

// findPane picks pane out of a list-panes reply (list-panes -t lists the
// pane's whole window; display-message would fall back to the current
// pane for a missing one).
func findPane(pane int, lines []string, err error) (PaneInfo, error) {
	id := PaneName(pane)
	if err != nil {
		var ce *CommandError
		if errors.As(err, &ce) && strings.Contains(ce.Message, "can't find pane") {
			return PaneInfo{}, fmt.Errorf("%s: %w", id, ErrNoPane)
		}
		return PaneInfo{}, err
	}
	for _, l := range paneRecords(lines) {
		if p, err := ParsePane(l); err == nil && p.ID == pane {
			return p, nil
		}
	}
	return PaneInfo{}, fmt.Errorf("%s: %w", id, ErrNoPane)
}

// ErrNoPane reports that tmux has no pane of that id.
var ErrNoPane = errors.New("no such pane")

// ListPanes lists the server's panes now and delivers them to Events too.
func (f *Fleet) ListPanes(ctx context.Context) ([]PaneInfo, error) {
	listedAt := time.Now()
	lines, err := f.Exec(ctx, "list-panes", "-a", "-F", PaneFormat)
	if err != nil {
		return nil, err
	}
	panes := make([]PaneInfo, 0, len(lines))
	seen := map[int]bool{}
	for _, l := range paneRecords(lines) {
		p, err := ParsePane(l)
		if err != nil {
			f.log.Warn("unparsable list-panes line", "err", err)
			continue
		}
		if seen[p.ID] { // a window linked into several sessions
			continue
		}
		seen[p.ID] = true
		panes = append(panes, p)
	}
	f.drainPipes() // a pane's last bytes before the listing that says it died
	f.ev.PanesListed(panes, listedAt)
	f.pipeNew(panes)
	return panes, nil
}

func (f *Fleet) listPanes(ctx context.Context) error {
	panes, err := f.ListPanes(ctx)
	if err != nil {
		return err
	}
	for _, p := range panes {
		if p.Dead && p.DeadStatus == nil && p.DeadSignal == nil {
			// tmux < 3.6 with libutempter can miss the SIGCHLD: a short
			// background job makes the server reap every exited child.
			_, _ = f.Exec(ctx, "run-shell", "-b", "true")
			time.AfterFunc(200*time.Millisecond, f.RefreshPanes)
			break
		}
	}
	return nil
}

// syncSessions attaches a control client to each session that has none.
// It runs one at a time (the fleet's loop and a tool's reconnect may both
// call it), so a session never gets two clients.
func (f *Fleet) syncSessions(ctx context.Context) error {
	f.syncMu.Lock()
	defer f.syncMu.Unlock()
	if f.ctx.Err() != nil {
		return errors.New("tmux fleet closed")
	}
	out, err := f.target.Run(ctx, "list-sessions", "-F", "#{session_id}")
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNoServer, err)
	}
	for _, id := range strings.Fields(out) {
		f.mu.Lock()
		_, have := f.conns[id]
		f.mu.Unlock()
		if have {
			continue
		}
		c, err := dial(ctx, f.target, id, fleetSink{f}, f.log)
		if err != nil {
			f.log.Warn("cannot attach control client", "session", id, "err", err)
			continue
		}
		f.mu.Lock()
		f.conns[id] = c
		f.mu.Unlock()
		// pause-after: tmux drops (and tells us) instead of buffering without
		// bound when we fall behind. The subscription reports pane deaths,
		// for which tmux has no notification, and a person taking a pane
		// or giving it back (PersonOption).
		if _, err := c.Exec(ctx, "refresh-client", "-f", "pause-after=5"); err != nil {
			f.log.Warn("refresh-client -f pause-after", "err", err)
		}
		if _, err := c.Exec(ctx, "refresh-client", "-B", "tmuxmcp-dead:%*:#{pane_dead}/#{pane_dead_status}/#{pane_dead_signal}/#{"+PersonOption+"}"); err != nil {
			f.log.Warn("refresh-client -B", "err", err)
		}
		go func() {
			<-c.Done()
			select {
			case f.connGone <- c:
			case <-f.ctx.Done():
			}
		}()
	}
	f.mu.Lock()
	n := len(f.conns)
	f.mu.Unlock()
	if n == 0 {
		return fmt.Errorf("%w: no session could be attached on %s", ErrNoServer, f.target)
	}
	return nil
}

func (f *Fleet) loop() {
	defer f.wg.Done()
	for {
		select {
		case <-f.ctx.Done():
			return
		case <-f.kickSessions:
			ctx, cancel := context.WithTimeout(f.ctx, 10*time.Second)
			if err := f.syncSessions(ctx); err != nil && !errors.Is(err, context.Canceled) {
				f.log.Debug("sync sessions", "err", err)
			}
			_ = f.listPanes(ctx)
			cancel()
		case <-f.kickPanes:
			ctx, cancel := context.WithTimeout(f.ctx, 10*time.Second)
			if err := f.listPanes(ctx); err != nil {
				f.log.Debug("list panes", "err", err)
			}
			cancel()
		case c := <-f.connGone:
			f.dropConn(c)
		case <-f.retryC():
			ctx, cancel := context.WithTimeout(f.ctx, 10*time.Second)
			if err := f.Reconnect(ctx); err != nil {
				f.scheduleRetry()
			}
			cancel()
		}
	}
}

// Backoff of reconnect attempts: no busy loop while tmux is down.
const (
	firstRetry = 250 * time.Millisecond
	maxRetry   = 5 * time.Second
)

func (f *Fleet) retryC() <-chan time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.retry == nil {
		return nil
	}
	return f.retry.C
}

// scheduleRetry arms the next reconnect attempt, doubling the delay.
func (f *Fleet) scheduleRetry() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.backoff == 0 {
		f.backoff = firstRetry
	}
	if f.retry == nil {
		f.retry = time.NewTimer(f.backoff)
	} else {
		f.retry.Reset(f.backoff)
	}
	f.backoff = min(2*f.backoff, maxRetry)
}

// Reconnect attaches to the server again after the fleet lost it. It is
// also tried on a schedule by the fleet itself.
func (f *Fleet) Reconnect(ctx context.Context) error {
	f.reconnectMu.Lock()
	defer f.reconnectMu.Unlock()
	f.mu.Lock()
	lost := f.lostErr != nil
	f.mu.Unlock()
	if !lost {
		return nil
	}
	if _, err := f.target.Run(ctx, "list-sessions", "-F", "#{session_id}"); err != nil {
		return fmt.Errorf("%w: %v", ErrNoServer, err)
	}
	// Recording restarts before the first byte of the new server arrives.
	f.mu.Lock()
	f.owner, f.owned = map[int]*Conn{}, map[int]bool{} // pane ids start over on a new server
	old := f.pipes
	f.pipes, f.unpiped = map[int]*panePipe{}, map[int]bool{}
	f.mu.Unlock()
	for _, pp := range old {
		pp.close()
	}
	f.ev.Reconnected()
	if err := f.syncSessions(ctx); err != nil {
		return err
	}
	f.mu.Lock()
	f.lostErr = nil
	f.backoff = 0
	if f.retry != nil {
		f.retry.Stop()
		f.retry = nil
	}
	f.mu.Unlock()
	f.log.Info("tmux server reachable again", "target", f.target.String())
	return f.listPanes(ctx)
}

func (f *Fleet) dropConn(c *Conn) {
	f.mu.Lock()
	for id, cc := range f.conns {
		if cc == c {
			delete(f.conns, id)
		}
	}
	for p, cc := range f.owner {
		if cc == c {
			delete(f.owner, p)
		}
	}
	left := len(f.conns)
	f.mu.Unlock()
	droppedAt := time.Now()
	f.log.Info("control client ended", "session", c.Session(), "reason", c.ExitReason())
	if left > 0 {
		f.RefreshPanes()
		return
	}
	reason := c.ExitReason()
	if f.target.Via != nil && reason == "" {
		// Every connection to another machine ended at once: the link
		// dropped. Whatever the panes printed meanwhile is lost, so the
		// recordings end (connection_lost) and start again on reconnect,
		// while the server and its commands go on over there.
		reason = "the connection to " + f.target.Via.String() + " dropped"
	} else {
		// Was that the whole server, or just our sessions?
		ctx, cancel := context.WithTimeout(f.ctx, 5*time.Second)
		err := f.syncSessions(ctx)
		if err == nil {
			_ = f.listPanes(ctx)
		}
		cancel()
		if err == nil {
			return
		}
	}
	if reason == "" {
		reason = "the server or every session was killed"
	}
	err := &LostError{Target: f.target.String(), Reason: reason, At: droppedAt}
	// Recording ends before anyone can see the loss and reconnect, so a
	// reconnect never runs between the two.
	f.reconnectMu.Lock()
	f.ev.Disconnected(err)
	f.mu.Lock()
	f.lostErr = err
	f.mu.Unlock()
	f.reconnectMu.Unlock()
	f.log.Warn("tmux connection lost", "err", err)
	f.scheduleRetry()
}

// LostError is why the fleet lost its server: At is when its last
// connection ended, before the fleet asked tmux whether the whole server
// went (which can take seconds on a loaded machine).
type LostError struct {
	Target, Reason string
	At             time.Time
}

func (e *LostError) Error() string {
	return fmt.Sprintf("lost the tmux server %s: %s", e.Target, e.Reason)
}

// fleetSink adapts a Fleet to the connSink a Conn feeds.
type fleetSink struct{ f *Fleet }

func (s fleetSink) output(c *Conn, pane int, data []byte) {
	f := s.f
	f.mu.Lock()
	if f.pipes[pane] != nil {
		f.mu.Unlock()
		return // read raw: this is a copy
	}
	if h := f.switching[pane]; h != nil && h.replied {
		if len(h.held)+len(data) > maxHeld {
			h.lost = true
		} else {
			h.held = append(h.held, data...)
		}
		f.mu.Unlock()
		return
	}
	owner := f.owner[pane]
	restarted := false
	if owner == nil {
		f.owner[pane] = c
		owner = c
		restarted = f.owned[pane]
		f.owned[pane] = true
	}
	f.mu.Unlock()
	if owner != c {
		return // the same pane seen through a window linked into another session
	}
	if restarted {
		f.ev.PaneRestarted(pane)
	}
	f.ev.PaneOutput(pane, data)
}

func (s fleetSink) notify(c *Conn, n Notification) {
	f := s.f
	switch n.Name {
	case "pause":
		if p, ok := n.PaneArg(); ok {
			f.mu.Lock()
			mine := f.owner[p] == c || f.owner[p] == nil
			piped := f.pipes[p] != nil
			f.mu.Unlock()
			if piped {
				return // our own pause: the pane is read raw
			}
			if mine {
				f.ev.PaneOutputDropped(p)
			}
			// Resume from "now"; never from the reader goroutine itself.
			go func() {
				ctx, cancel := context.WithTimeout(f.ctx, 10*time.Second)
				defer cancel()
				if _, err := c.Exec(ctx, "refresh-client", "-A", fmt.Sprintf("%%%d:continue", p)); err != nil {
					f.log.Debug("refresh-client -A continue", "pane", p, "err", err)
				}
			}()
		}
	case "sessions-changed":
		select {
		case f.kickSessions <- struct{}{}:
		default:
		}
	case "layout-change", "window-add", "window-close", "unlinked-window-add", "unlinked-window-close",
		"window-pane-changed", "subscription-changed", "window-renamed", "pane-mode-changed", "session-changed":
		f.RefreshPanes()
	}
}

// PaneName is tmux's name of pane n: "%n".
func PaneName(n int) string { return "%" + strconv.Itoa(n) }
