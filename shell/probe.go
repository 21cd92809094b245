// Package shell knows how to run commands in a pane's own shell: whether the
// shell is ready for input (foreground, line editor active), the shell
// integration tmuxmcp installs in panes it creates (OSC 133 marks carrying
// the exit status), the inline wrapper for shells without it, and how to
// find a command's marks in the plain view of its output. It knows nothing
// of MCP or tmux's protocol.
package shell

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
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
}

// AtShellPrompt reports whether the terminal belongs to a lone POSIX shell
// (not to a program it runs) — the shell is waiting for a command.
func (p Probe) AtShellPrompt() bool { return posixShell(p.Leader) && len(p.Others) == 0 }

// LeaderIsShell reports whether the foreground group is led by a POSIX
// shell: its own group, which must never be signalled as a whole.
func (p Probe) LeaderIsShell() bool { return posixShell(p.Leader) }

// Busy names the program that owns the terminal when it is not a shell
// waiting for input, or "".
func (p Probe) Busy() string {
	switch {
	case len(p.Others) > 0:
		return p.Others[0]
	case !posixShell(p.Leader):
		return p.Leader
	}
	return ""
}

func posixShell(comm string) bool {
	switch comm {
	case "bash", "zsh", "sh", "dash", "ksh", "mksh", "ash", "yash", "posh":
		return true
	}
	return false
}

// ProbePane inspects the terminal tty of the pane whose first process is pid.
func ProbePane(pid int, tty string) (Probe, error) {
	st, err := readStat(pid)
	if err != nil {
		return Probe{}, fmt.Errorf("read pane process %d: %w", pid, err)
	}
	p := Probe{ForegroundPgrp: st.tpgid}
	if p.ForegroundPgrp <= 0 {
		return p, fmt.Errorf("pane process %d has no terminal", pid)
	}
	p.Leader = comm(p.ForegroundPgrp)
	if dirs, err := os.ReadDir("/proc"); err == nil {
		for _, d := range dirs {
			n, err := strconv.Atoi(d.Name())
			if err != nil || n == p.ForegroundPgrp {
				continue
			}
			if s, err := readStat(n); err == nil && s.pgrp == p.ForegroundPgrp {
				p.Others = append(p.Others, comm(n))
				p.OtherPIDs = append(p.OtherPIDs, n)
			}
		}
	}
	fd, err := syscall.Open(tty, syscall.O_RDONLY|syscall.O_NOCTTY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return p, fmt.Errorf("open terminal %s: %w", tty, err)
	}
	defer syscall.Close(fd)
	var t syscall.Termios
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TCGETS, uintptr(unsafe.Pointer(&t))); e != 0 {
		return p, fmt.Errorf("read terminal mode of %s: %w", tty, e)
	}
	p.Canonical = t.Lflag&syscall.ICANON != 0
	return p, nil
}

type procStat struct{ pgrp, tpgid int }

func readStat(pid int) (procStat, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
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
	return procStat{pgrp: pgrp, tpgid: tpgid}, nil
}

func comm(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	return strings.TrimSpace(string(b))
}
