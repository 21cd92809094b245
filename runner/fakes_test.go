package runner

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/machine"
	"github.com/tmuxmcp/tmuxmcp/shell"
	"github.com/tmuxmcp/tmuxmcp/stream"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// The watcher's tests run without tmux: a hub fed by hand is the pane's
// output, fakeTmux answers for the pane, and fakeMachine for its processes
// (a /proc of its own, read by the real probe).

// testPane is the pane the tests' jobs run in.
const testPane = 7

// fakeTmux stands in for the tmux server: one pane, and a log of what was
// sent to it. A call the tests do not expect panics (the nil paneServer).
type fakeTmux struct {
	paneServer
	mu      sync.Mutex
	info    tmux.PaneInfo
	screen  []string
	sent    []string          // every command sent, in order
	options map[string]string // the pane's options
	keys    chan string       // every key sent, in order
	// onPane runs in each Pane call (the stop's look at the pane, before
	// its probe), before it answers.
	onPane  func()
	screens int // PaneScreen calls: looks at the pane's screen
	// onMark runs once, in the next MarkPane, before its mark; afterMark
	// once, after it: output the pane wrote after the round trip.
	onMark, afterMark func()
	// onType runs as TypeText types a line.
	onType func(text string)
}

func newFakeTmux() *fakeTmux {
	return &fakeTmux{info: tmux.PaneInfo{ID: testPane, PID: shellPID, TTY: "/dev/pts/9"}, options: map[string]string{}, keys: make(chan string, 16)}
}

func (f *fakeTmux) Pane(_ context.Context, pane int) (tmux.PaneInfo, error) {
	f.mu.Lock()
	hook := f.onPane
	f.mu.Unlock()
	if hook != nil {
		hook()
	}
	return f.pane(pane)
}

func (f *fakeTmux) pane(pane int) (tmux.PaneInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if pane != f.info.ID {
		return tmux.PaneInfo{}, fmt.Errorf("%s: %w", paneName(pane), tmux.ErrNoPane)
	}
	return f.info, nil
}

func (f *fakeTmux) PaneScreen(_ context.Context, pane int) (tmux.PaneInfo, []string, error) {
	p, err := f.pane(pane)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.screens++
	return p, append([]string(nil), f.screen...), err
}

func (f *fakeTmux) setOnPane(hook func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.onPane = hook
}

func (f *fakeTmux) log(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent = append(f.sent, fmt.Sprintf(format, args...))
}

func (f *fakeTmux) SendKeys(_ context.Context, pane int, keys ...string) error {
	f.log("press %s %s", paneName(pane), strings.Join(keys, " "))
	for _, k := range keys {
		select {
		case f.keys <- k:
		default:
		}
	}
	return nil
}

func (f *fakeTmux) TypeText(_ context.Context, pane int, text, _ string, submit bool) error {
	f.log("type %s %q %v", paneName(pane), text, submit)
	f.mu.Lock()
	hook := f.onType
	f.mu.Unlock()
	if hook != nil {
		hook(text)
	}
	return nil
}

func (f *fakeTmux) SetPaneOption(_ context.Context, pane int, name, value string) error {
	f.log("option %s %s %q", paneName(pane), name, value)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.options[name] = value
	return nil
}

func (f *fakeTmux) SetPaneTitle(_ context.Context, pane int, title string) error {
	f.log("title %s %q", paneName(pane), title)
	return nil
}

func (f *fakeTmux) KeepDeadPane(_ context.Context, pane int) (tmux.KeptDead, error) {
	f.log("keep dead %s", paneName(pane))
	return tmux.KeptDead{Closes: true}, nil
}

func (f *fakeTmux) RestoreDeadPane(_ context.Context, pane int, kd tmux.KeptDead) error {
	f.log("restore dead %s %q", paneName(pane), kd.Restore)
	return nil
}

func (f *fakeTmux) FinishPane(_ context.Context, pane int, fin tmux.Finished) error {
	f.log("finish %s %q", paneName(pane), fin.Mark)
	return nil
}

func (f *fakeTmux) CloseFinished(_ context.Context, pane int, _ time.Time) error {
	f.log("close finished %s", paneName(pane))
	return nil
}

func (f *fakeTmux) KillPane(_ context.Context, pane int) error {
	f.log("kill %s", paneName(pane))
	return nil
}

// commands returns what was sent to the pane so far.
func (f *fakeTmux) commands() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.sent...)
}

func (f *fakeTmux) option(name string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.options[name]
}

// The pane's processes: its shell, and the program a command runs in a
// process group of its own, with the programs that group started.
const (
	shellPID   = 100
	programPID = 200
)

// paneProcs says what runs in the test pane.
type paneProcs struct {
	shell string // the pane's shell, e.g. "bash"
	// program is the command's program in front of the terminal, in its
	// own group; "" while the shell reads its command line.
	program string
	others  []string // more processes of the program's group
	catches bool     // the program catches SIGINT
}

// atPrompt: the shell reads a command with its line editor.
func atPrompt(sh string) paneProcs { return paneProcs{shell: sh} }

// running: program runs in front of the shell.
func running(sh, program string, catches bool, others ...string) paneProcs {
	return paneProcs{shell: sh, program: program, catches: catches, others: others}
}

// proc is a /proc (and terminal) that shows pp, for shell.ProbeWith.
func (pp paneProcs) proc() procFiles {
	fg := shellPID
	if pp.program != "" {
		fg = programPID
	}
	p := procFiles{files: map[string]string{}, dirs: map[string][]string{}, canonical: pp.program != "", isig: true, echo: true}
	p.files["/proc/stat"] = fmt.Sprintf("cpu 0 0 0 0\nbtime %d\n", time.Now().Add(-time.Hour).Unix())
	p.add(shellPID, pp.shell, 1, shellPID, fg, true)
	if pp.program == "" {
		p.files[fmt.Sprintf("/proc/%d/task/%d/children", shellPID, shellPID)] = ""
		return p
	}
	children := []string{fmt.Sprint(programPID)}
	p.add(programPID, pp.program, shellPID, programPID, fg, pp.catches)
	for i, o := range pp.others {
		pid := programPID + 1 + i
		p.add(pid, o, programPID, programPID, fg, false)
		children = append(children, fmt.Sprint(pid))
	}
	p.files[fmt.Sprintf("/proc/%d/task/%d/children", shellPID, shellPID)] = strings.Join(children, " ")
	return p
}

// procFiles is a fake /proc: files, directories, and the terminal's mode.
type procFiles struct {
	files                 map[string]string
	dirs                  map[string][]string
	canonical, echo, isig bool
}

// add adds process pid named comm to p, started a second after boot.
func (p procFiles) add(pid int, comm string, ppid, pgrp, fg int, catchesInt bool) {
	dir := fmt.Sprintf("/proc/%d", pid)
	p.files[dir+"/stat"] = fmt.Sprintf("%d (%s) S %d %d %d 34825 %d 4194560 0 0 0 0 0 0 0 0 20 0 1 0 100 0 0", pid, comm, ppid, pgrp, shellPID, fg)
	p.files[dir+"/comm"] = comm + "\n"
	p.files[dir+"/cmdline"] = comm + "\x00"
	mask := 0
	if catchesInt {
		mask = 1 << (syscall.SIGINT - 1)
	}
	p.files[dir+"/status"] = fmt.Sprintf("Name:\t%s\nSigCgt:\t%016x\n", comm, mask)
	p.dirs[dir+"/task"] = []string{fmt.Sprint(pid)}
	if _, ok := p.files[fmt.Sprintf("%s/task/%d/children", dir, pid)]; !ok {
		p.files[fmt.Sprintf("%s/task/%d/children", dir, pid)] = ""
	}
}

func (p procFiles) ReadFile(name string) ([]byte, error) {
	if s, ok := p.files[name]; ok {
		return []byte(s), nil
	}
	return nil, fs.ErrNotExist
}

func (p procFiles) Readlink(string) (string, error) { return "", fs.ErrNotExist }

func (p procFiles) ReadDir(name string) ([]string, error) {
	if d, ok := p.dirs[name]; ok {
		return d, nil
	}
	return nil, fs.ErrNotExist
}

func (p procFiles) Termios(string) (bool, bool, bool, error) { return p.canonical, p.echo, p.isig, nil }

func (procFiles) Arch() string { return "" }

// fakeMachine is the pane's machine: job scripts in a directory of the
// test's, processes as procs says, signals logged (none is sent).
type fakeMachine struct {
	machine.Local
	mu    sync.Mutex
	procs paneProcs
	sigs  []string
	// signalled gets every signal sent, in order.
	signalled chan string
	// onSignal, when set, runs as each signal is sent (before the runner
	// looks again).
	onSignal func()
	// onProbe, when set, runs once as the next probe returns: what the
	// pane did while a slow probe looked.
	onProbe func()
}

func (m *fakeMachine) set(pp paneProcs) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.procs = pp
}

func (m *fakeMachine) Probe(pid int, tty string) (shell.Probe, error) {
	m.mu.Lock()
	pp := m.procs
	hook := m.onProbe
	m.onProbe = nil
	m.mu.Unlock()
	p, err := shell.ProbeWith(pp.proc(), pid, tty)
	if hook != nil {
		hook()
	}
	return p, err
}

func (m *fakeMachine) Signal(pid int, sig syscall.Signal) error {
	name := fmt.Sprintf("%s to %d", shell.SignalName(128+int(sig)), pid)
	m.mu.Lock()
	m.sigs = append(m.sigs, name)
	hook := m.onSignal
	m.mu.Unlock()
	if hook != nil {
		hook()
	}
	select {
	case m.signalled <- name:
	default:
	}
	return nil
}

func (m *fakeMachine) signals() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.sigs...)
}

// bench is a runner whose pane is fed by hand.
type bench struct {
	t       *testing.T
	r       *Runner
	hub     *stream.Hub
	s       *stream.PaneStream
	tmux    *fakeTmux
	machine *fakeMachine
}

// newBench returns a runner on a hub that retains retain bytes a pane (0:
// the default), with the shell sh at its prompt in the test pane.
func newBench(t *testing.T, retain int, sh string, remote bool) *bench {
	t.Helper()
	store, err := jobs.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	hub := stream.NewHub(retain)
	m := &fakeMachine{Local: machine.Local{Dir: t.TempDir()}, procs: atPrompt(sh), signalled: make(chan string, 16)}
	r := New(Config{Hub: hub, Jobs: store, Machine: m, Remote: remote})
	ft := newFakeTmux()
	r.fleet = ft
	t.Cleanup(func() {
		r.Close()
		hub.Close()
	})
	return &bench{t: t, r: r, hub: hub, s: hub.Adopt(testPane), tmux: ft, machine: m}
}

// watch records job j as typed into the test pane at stream offset from,
// and watches it.
func (b *bench) watch(j *jobs.Job, from int64) (*jobs.Job, *Run) {
	b.t.Helper()
	j.Status, j.PaneID, j.Stream, j.StartOffset = jobs.Running, paneName(testPane), b.s.ID().String(), from
	if j.OutputLimit == 0 {
		j.OutputLimit = 8192
	}
	if j.Started.IsZero() {
		j.Started = time.Now()
	}
	j, err := b.r.jobs.Create(j)
	if err != nil {
		b.t.Fatal(err)
	}
	b.r.Spawn(&Started{Job: j, Stream: b.s, From: from})
	b.r.mu.Lock()
	run := b.r.runs[j.ID] // before any output: a watcher that is done leaves runs
	b.r.mu.Unlock()
	return j, run
}

func (b *bench) feed(data string) { b.hub.Output(testPane, []byte(data)) }

// ended waits for run's watcher to end and returns the job's record.
func (b *bench) ended(run *Run) *jobs.Job {
	b.t.Helper()
	select {
	case <-run.done:
	case <-time.After(30 * time.Second):
		b.t.Fatal("the job's watcher did not end")
	}
	j, _ := b.r.jobs.Get(run.ID)
	return j
}

// begun waits until run's command has begun (its start mark was read).
func (b *bench) begun(run *Run) {
	b.t.Helper()
	select {
	case <-run.begun:
	case <-time.After(30 * time.Second):
		b.t.Fatal("the job's start mark was never read")
	}
}

// key waits for the next key the runner presses in the pane.
func (b *bench) key() string {
	b.t.Helper()
	select {
	case k := <-b.tmux.keys:
		return k
	case <-time.After(30 * time.Second):
		b.t.Fatal("no key was sent")
		return ""
	}
}

// signal waits for the next signal the runner sends.
func (b *bench) signal() string {
	b.t.Helper()
	select {
	case s := <-b.machine.signalled:
		return s
	case <-time.After(30 * time.Second):
		b.t.Fatal("no signal was sent")
		return ""
	}
}

// MarkPane runs mark at once: every byte a test fed is in the hub already,
// and what onMark (run once, before the mark) feeds: output the pane wrote
// before the round trip that the recording had not had yet.
func (f *fakeTmux) MarkPane(_ context.Context, _ int, mark func()) error {
	f.mu.Lock()
	hook, after := f.onMark, f.afterMark
	f.onMark, f.afterMark = nil, nil
	f.mu.Unlock()
	if hook != nil {
		hook()
	}
	mark()
	if after != nil {
		after()
	}
	return nil
}

// probed runs act (output the pane writes) and waits until the watcher
// has probed the pane once after it.
func (b *bench) probed(act func()) {
	b.t.Helper()
	done := make(chan struct{})
	b.machine.mu.Lock()
	b.machine.onProbe = func() { close(done) }
	b.machine.mu.Unlock()
	act()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		b.t.Fatal("the pane was never probed")
	}
}

// sandboxed makes the bench's runner one whose panes run in a sandbox
// (their job scripts stay in the machine's directory).
func (b *bench) sandboxed() { b.r.cfg.Sandbox = fakeSandbox{} }

// fakeSandbox is a sandbox that gives panes no job directory of their own.
type fakeSandbox struct{}

func (fakeSandbox) Wrap(argv []string, _ string) ([]string, error) { return argv, nil }
func (fakeSandbox) JobDir(string) (string, string)                 { return "", "" }
func (fakeSandbox) Mode() string                                   { return "workspace" }

// Clients: no person's client is attached to the fake server.
func (f *fakeTmux) Clients(context.Context) ([]tmux.Client, error) { return nil, nil }
