package shell

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Probe is what the kernel says about a pane's terminal: which process
// group owns it and whether its line discipline is in canonical mode.
type Probe struct {
	// ForegroundPgrp is the process group that owns the terminal.
	ForegroundPgrp int
	// Leader names the group's leader, e.g. "bash" at a prompt or "sleep".
	Leader string
	// Others names the group's other processes: a shell without job
	// control runs its commands in its own group.
	Others []string
	// OtherPIDs are the process ids of Others.
	OtherPIDs []int
	// Canonical is true when the terminal is in canonical (cooked) mode:
	// a line editor (readline, zle) turns it off while it reads a command.
	Canonical bool
	// Echo is true when the terminal echoes what is typed. A line editor
	// turns both it and canonical mode off (it draws the line itself); a
	// password prompt (read -s, sudo, ssh) turns only echo off.
	Echo bool
	// Signals is true when the terminal turns C-c into SIGINT for its
	// foreground group (ISIG); a program in raw mode reads C-c as a key.
	Signals bool
	// First names the pane's first process (usually its shell), and
	// FirstArgs is its command line.
	First     string
	FirstArgs []string
	// ShellGroup is true when the foreground group is the pane's first
	// process's own: the pane's shell, not a shell it started.
	ShellGroup bool
	// Age is how long the pane's first process has run.
	Age time.Duration
	// Reader names the process of the foreground group that is blocked
	// reading the terminal — a prompt ([y/N], Password:), a pager, a REPL,
	// an editor — or is "" when none is (or the kernel does not say).
	Reader string
	// LeaderReads says the foreground group's leader sleeps reading the
	// terminal now (a shell at its prompt, in its line editor or reading a
	// line), when LeaderReadKnown: the kernel told (its system call, or a
	// terminal read as its wchan). A shell still running its startup files
	// between their commands, waiting for one, or exiting does not read.
	LeaderReads, LeaderReadKnown bool

	// proc is where the probe was read; Running, RunsProgram and
	// CatchesInterrupt read there again. nil is this machine's /proc.
	proc Proc
}

// Secret reports whether the terminal reads a line without echoing it: a
// password prompt. What is typed there must not be recorded anywhere.
func (p Probe) Secret() bool { return p.Canonical && !p.Echo }

// AtShellPrompt reports whether the terminal belongs to a shell, not to a
// program it runs — the shell is between commands. Other processes in the
// shell's own group count as a program it runs (a shell without job
// control runs its commands there), unless the shell's line editor is
// reading: then they are its background work (fish updating completions,
// a prompt's asynchronous job).
func (p Probe) AtShellPrompt() bool {
	if !isShell(p.Leader) {
		return false
	}
	if len(p.Others) == 0 {
		return true
	}
	k, _ := KindOf(p.Leader)
	return k.LineEditor() && !p.Canonical
}

// LeaderIsShell reports whether the foreground group is led by a shell:
// its own group, which must never be signalled as a whole.
func (p Probe) LeaderIsShell() bool { return isShell(p.Leader) }

// ReadingCommand reports whether the terminal belongs to a lone shell that
// is reading a command line now: a shell with a line editor turns
// canonical mode off for that; a POSIX shell without one reads in
// canonical mode, so for it this is AtShellPrompt.
func (p Probe) ReadingCommand() bool {
	if !p.AtShellPrompt() {
		return false
	}
	k, _ := KindOf(p.Leader)
	return !k.LineEditor() || !p.Canonical
}

// Busy names the program that owns the terminal when it is not a shell
// waiting for input, or "".
func (p Probe) Busy() string {
	switch {
	case p.AtShellPrompt():
		return ""
	case len(p.Others) > 0:
		return p.Others[0]
	case !isShell(p.Leader):
		return p.Leader
	}
	return ""
}

func isShell(comm string) bool {
	_, ok := KindOf(comm)
	return ok
}

// source is where the probe reads: where it was made, or this machine's
// /proc for a Probe built by hand.
func (p Probe) source() Proc {
	if p.proc == nil {
		return localProc{}
	}
	return p.proc
}

// ProbePane inspects the terminal tty of the pane whose first process is pid.
func ProbePane(pid int, tty string) (Probe, error) {
	return ProbeWith(localProc{}, pid, tty)
}

// ProbeWith inspects the terminal tty of the pane whose first process is
// pid as proc shows them: this machine's (ProbePane) or a snapshot of
// another's (ParseSnapshot). The Probe keeps proc for its methods.
func ProbeWith(proc Proc, pid int, tty string) (Probe, error) {
	st, err := readStat(proc, pid)
	if err != nil {
		return Probe{proc: proc}, fmt.Errorf("read pane process %d: %w", pid, err)
	}
	tpgid := st.tpgid
	// A sandboxed pane's first process is bwrap, its shell below it (bwrap,
	// then bwrap as the sandbox's init): the probe sees through them to it.
	first, sandbox := pid, sandboxChain(proc, pid)
	if len(sandbox) > 0 {
		if in := insideSandbox(proc, sandbox); in > 0 {
			if ist, err := readStat(proc, in); err == nil {
				first, st = in, ist
			}
		}
	}
	p := Probe{ForegroundPgrp: tpgid, Age: age(proc, st.start), First: comm(proc, first), FirstArgs: cmdline(proc, first), proc: proc}
	if p.ForegroundPgrp <= 0 {
		return p, fmt.Errorf("pane process %d has no terminal", pid)
	}
	leader := p.ForegroundPgrp
	if slices.Contains(sandbox, leader) {
		// The sandbox's own group, which the launcher (and a shell without
		// job control) runs in: it is led by what bwrap started.
		leader = first
	}
	p.Leader = comm(proc, leader)
	p.ShellGroup = st.pgrp == p.ForegroundPgrp
	for _, n := range candidates(proc, pid) {
		if n == leader || n == p.ForegroundPgrp || slices.Contains(sandbox, n) {
			continue
		}
		if s, err := readStat(proc, n); err == nil && s.pgrp == p.ForegroundPgrp {
			p.Others = append(p.Others, comm(proc, n))
			p.OtherPIDs = append(p.OtherPIDs, n)
		}
	}
	if p.Canonical, p.Echo, p.Signals, err = proc.Termios(tty); err != nil {
		return p, err
	}
	term := terminal{tty: tty, console: len(sandbox) > 0}
	for _, pid := range append([]int{p.ForegroundPgrp}, p.OtherPIDs...) {
		if reads, _ := readsTerminal(proc, pid, term, p.Canonical); reads {
			p.Reader = comm(proc, pid)
			break
		}
	}
	p.LeaderReads, p.LeaderReadKnown = readsTerminal(proc, leader, term, p.Canonical)
	return p, nil
}

// sandboxChain is the sandbox processes at the top of a pane whose first
// process is pid: pid and the bwrap processes below it, each the only
// child of the one above; none when pid is not bwrap.
func sandboxChain(proc Proc, pid int) []int {
	var chain []int
	for n := pid; len(chain) < 4 && comm(proc, n) == SandboxProgram; {
		chain = append(chain, n)
		kids := children(proc, n)
		if len(kids) != 1 {
			break
		}
		n = kids[0]
	}
	return chain
}

// insideSandbox is the first process below the sandbox chain (the
// launcher, or the shell it became), or 0 before bwrap has started it.
func insideSandbox(proc Proc, chain []int) int {
	for _, c := range children(proc, chain[len(chain)-1]) {
		if !slices.Contains(chain, c) {
			return c
		}
	}
	return 0
}

// children are process pid's children (its main thread's).
func children(proc Proc, pid int) []int {
	b, err := proc.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if err != nil {
		return nil
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if c, err := strconv.Atoi(f); err == nil {
			out = append(out, c)
		}
	}
	return out
}

// readsTerminal says process pid sleeps in a system call reading the
// terminal tty: read(2) on a descriptor that is the terminal, or — with
// the terminal in raw mode, as full-screen programs and line editors set
// it — poll/select with the terminal as its standard input. Where
// /proc/PID/syscall cannot be read, the kernel function it sleeps in
// (wchan) must be the terminal's read and its standard input the terminal.
// known says the kernel told: false when neither file says what a
// sleeping process waits for.
func readsTerminal(proc Proc, pid int, tty terminal, canonical bool) (reads, known bool) {
	st, err := proc.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if i := bytes.LastIndexByte(st, ')'); err != nil || i < 0 || i+2 >= len(st) || st[i+2] != 'S' {
		return false, true // not asleep (running, stopped, gone)
	}
	if b, err := proc.ReadFile(fmt.Sprintf("/proc/%d/syscall", pid)); err == nil {
		if f := strings.Fields(string(b)); len(f) >= 2 {
			nr, err := strconv.Atoi(f[0]) // "running" while it runs
			if err != nil {
				return false, true
			}
			switch syscallKind(proc.Arch(), nr) {
			case readCall:
				fd, err := strconv.ParseInt(strings.TrimPrefix(f[1], "0x"), 16, 32)
				return err == nil && isTerminal(proc, pid, int(fd), tty), true
			case pollCall:
				return !canonical && isTerminal(proc, pid, 0, tty), true
			case otherCall:
				return false, true
			}
		}
	}
	w, _ := proc.ReadFile(fmt.Sprintf("/proc/%d/wchan", pid))
	switch strings.TrimSpace(string(w)) {
	case "n_tty_read", "wait_woken":
		return isTerminal(proc, pid, 0, tty), true
	}
	return false, false
}

type callKind int

const (
	unknownCall callKind = iota // this architecture's numbers are not known here
	readCall
	pollCall
	otherCall
)

// syscallKind sorts a system call number of architecture arch (a GOARCH).
func syscallKind(arch string, nr int) callKind {
	var reads, polls []int
	switch arch {
	case "amd64":
		reads, polls = []int{0, 17, 19}, []int{7, 23, 232, 270, 271, 281, 441} // read pread64 readv; poll select epoll_wait pselect6 ppoll epoll_pwait epoll_pwait2
	case "arm64", "riscv64", "loong64":
		reads, polls = []int{63, 65, 67}, []int{22, 72, 73, 441} // read readv pread64; epoll_pwait pselect6 ppoll epoll_pwait2
	default:
		return unknownCall
	}
	switch {
	case slices.Contains(reads, nr):
		return readCall
	case slices.Contains(polls, nr):
		return pollCall
	}
	return otherCall
}

// terminal is a pane's terminal as its processes' descriptors name it:
// its device (tty), /dev/tty, and in a sandbox /dev/console, where bwrap
// binds it (a pager or an editor that opens /dev/tty there holds it
// under that name).
type terminal struct {
	tty     string
	console bool
}

// isTerminal says descriptor fd of process pid is the terminal tty.
func isTerminal(proc Proc, pid, fd int, tty terminal) bool {
	link, err := proc.Readlink(fmt.Sprintf("/proc/%d/fd/%d", pid, fd))
	return err == nil && (link == tty.tty || link == "/dev/tty" || tty.console && link == "/dev/console")
}

// candidates lists the processes that may be in a pane's foreground group:
// every descendant of its first process (the session leader), found
// through /proc/PID/task/TID/children; where the kernel has no such file,
// every process.
func candidates(proc Proc, pid int) []int {
	var out []int
	queue := []int{pid}
	for len(queue) > 0 && len(out) < 10000 {
		n := queue[0]
		queue = queue[1:]
		tasks, err := proc.ReadDir(fmt.Sprintf("/proc/%d/task", n))
		if err != nil {
			continue
		}
		for _, t := range tasks {
			b, err := proc.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", n, t))
			if err != nil {
				if n == pid {
					return allProcesses(proc)
				}
				continue
			}
			for _, f := range strings.Fields(string(b)) {
				if c, err := strconv.Atoi(f); err == nil {
					out = append(out, c)
					queue = append(queue, c)
				}
			}
		}
	}
	return out
}

func allProcesses(proc Proc) []int {
	names, err := proc.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, d := range names {
		if n, err := strconv.Atoi(d); err == nil {
			out = append(out, n)
		}
	}
	return out
}

type procStat struct {
	pgrp, tpgid int
	start       int64 // clock ticks after boot
}

func readStat(proc Proc, pid int) (procStat, error) {
	stat, err := proc.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, err
	}
	// Fields after the command name in parentheses: state ppid pgrp session tty_nr tpgid.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return procStat{}, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 6 {
		return procStat{}, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	pgrp, _ := strconv.Atoi(f[2])
	tpgid, _ := strconv.Atoi(f[5])
	var start int64
	if len(f) > 19 {
		start, _ = strconv.ParseInt(f[19], 10, 64)
	}
	return procStat{pgrp: pgrp, tpgid: tpgid, start: start}, nil
}

// Running reports whether any of the foreground group's processes (its
// leader, when it is alive, and OtherPIDs) has not exited: a group whose
// processes are all gone or zombies has ended, whatever still owns the
// terminal.
func (p Probe) Running() bool {
	for _, pid := range append([]int{p.ForegroundPgrp}, p.OtherPIDs...) {
		if alive(p.source(), pid) {
			return true
		}
	}
	return false
}

// alive reports whether process pid exists and has not exited (is not a
// zombie).
func alive(proc Proc, pid int) bool {
	if pid <= 1 {
		return false
	}
	st, err := proc.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	i := bytes.LastIndexByte(st, ')')
	return err == nil && i >= 0 && i+2 < len(st) && st[i+2] != 'Z' && st[i+2] != 'X'
}

// RunsProgram reports whether the foreground group has a live process that
// is not a shell (a shell running its builtins, or between its programs,
// has none).
func (p Probe) RunsProgram() bool {
	proc := p.source()
	if !isShell(p.Leader) && alive(proc, p.ForegroundPgrp) {
		return true
	}
	for i, pid := range p.OtherPIDs {
		if i < len(p.Others) && !isShell(p.Others[i]) && alive(proc, pid) {
			return true
		}
	}
	return false
}

// CatchesInterrupt reports whether a process of the foreground group has
// a handler for SIGINT (a trap, a runtime that turns it into an
// exception): such a group may end after SIGINT with an exit status of its
// own choosing. A group that does not catch it dies of it, unless it was
// already exiting.
func (p Probe) CatchesInterrupt() bool {
	for _, pid := range append([]int{p.ForegroundPgrp}, p.OtherPIDs...) {
		if pid > 1 && catches(p.source(), pid, syscall.SIGINT) {
			return true
		}
	}
	return false
}

// OthersCatchInterrupt reports whether a process of the foreground group
// other than its leader (a shell's own group: the programs it runs there)
// has a handler for SIGINT.
func (p Probe) OthersCatchInterrupt() bool {
	for _, pid := range p.OtherPIDs {
		if pid > 1 && catches(p.source(), pid, syscall.SIGINT) {
			return true
		}
	}
	return false
}

// catches reports whether process pid has a handler for sig (SigCgt in
// /proc/PID/status).
func catches(proc Proc, pid int, sig syscall.Signal) bool {
	b, err := proc.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return false
	}
	for line := range strings.Lines(string(b)) {
		if hex, ok := strings.CutPrefix(line, "SigCgt:"); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
			return err == nil && mask&(1<<(uint(sig)-1)) != 0
		}
	}
	return false
}

func cmdline(proc Proc, pid int) []string {
	b, _ := proc.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
}

func comm(proc Proc, pid int) string {
	b, _ := proc.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	return strings.TrimSpace(string(b))
}

// age turns a process start time (clock ticks after boot, USER_HZ = 100 on
// Linux) into how long ago that was.
func age(proc Proc, start int64) time.Duration {
	boot := bootTime(proc)
	if boot.IsZero() || start <= 0 {
		return 0
	}
	return max(0, time.Since(boot.Add(time.Duration(start)*10*time.Millisecond)))
}

// bootTime is when the machine proc shows booted (btime in /proc/stat, to
// the second); this machine's is read once.
func bootTime(proc Proc) time.Time {
	if _, ok := proc.(localProc); ok {
		return localBootTime()
	}
	return parseBootTime(proc.ReadFile("/proc/stat"))
}

// localBootTime is when this machine booted.
var localBootTime = sync.OnceValue(func() time.Time { return parseBootTime(os.ReadFile("/proc/stat")) })

// parseBootTime reads the btime line of /proc/stat; the zero time when
// there is none.
func parseBootTime(b []byte, err error) time.Time {
	if err != nil {
		return time.Time{}
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "btime "); ok {
			if boot, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
				return time.Unix(boot, 0)
			}
		}
	}
	return time.Time{}
}
