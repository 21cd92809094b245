package shell

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// WaitsForCommand reports whether the shell leading the foreground group
// sleeps waiting for a command it started: in wait4 or waitid (bash,
// dash) or rt_sigsuspend (zsh); fish waits in futex, as it does for its
// own threads between commands, so it is not told. A shell whose group has the
// terminal while it waits was handed it by another process: the command
// still runs. It is false when the kernel does not say (another
// architecture, /proc/PID/syscall unreadable).
func (p Probe) WaitsForCommand() bool {
	if !p.LeaderIsShell() || p.ForegroundPgrp <= 1 {
		return false
	}
	proc := p.source()
	st, err := proc.ReadFile(fmt.Sprintf("/proc/%d/stat", p.ForegroundPgrp))
	if i := bytes.LastIndexByte(st, ')'); err != nil || i < 0 || i+2 >= len(st) || st[i+2] != 'S' {
		return false // not asleep
	}
	b, err := proc.ReadFile(fmt.Sprintf("/proc/%d/syscall", p.ForegroundPgrp))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return false
	}
	nr, err := strconv.Atoi(f[0])
	if err != nil {
		return false // "running"
	}
	var waits []int
	switch proc.Arch() {
	case "amd64":
		waits = []int{61, 247, 130} // wait4 waitid rt_sigsuspend
	case "arm64", "riscv64", "loong64":
		waits = []int{260, 95, 133}
	}
	return slices.Contains(waits, nr)
}
