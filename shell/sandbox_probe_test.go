package shell

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"
)

// procs is a /proc made by hand: each process's comm, parent and group,
// and the terminal's foreground group.
type procs struct {
	tpgid int
	ps    []fakeProcess
}

type fakeProcess struct {
	pid, ppid, pgrp int
	comm            string
}

func (f procs) ReadFile(name string) ([]byte, error) {
	var pid, child int
	var file string
	if n, _ := fmt.Sscanf(name, "/proc/%d/task/%d/children", &pid, &child); n == 2 {
		var kids []string
		for _, p := range f.ps {
			if p.ppid == pid {
				kids = append(kids, fmt.Sprint(p.pid))
			}
		}
		return []byte(strings.Join(kids, " ")), nil
	}
	if n, _ := fmt.Sscanf(name, "/proc/%d/%s", &pid, &file); n != 2 {
		return nil, fs.ErrNotExist
	}
	i := slices.IndexFunc(f.ps, func(p fakeProcess) bool { return p.pid == pid })
	if i < 0 {
		return nil, fs.ErrNotExist
	}
	p := f.ps[i]
	switch file {
	case "comm":
		return []byte(p.comm + "\n"), nil
	case "cmdline":
		return []byte(p.comm + "\x00"), nil
	case "stat":
		return fmt.Appendf(nil, "%d (%s) S %d %d %d 34816 %d 0 0 0 0 0 0 0 0 0 20 0 1 0 100 0", p.pid, p.comm, p.ppid, p.pgrp, f.ps[0].pid, f.tpgid), nil
	}
	return nil, fs.ErrNotExist
}

func (f procs) Readlink(string) (string, error) { return "", fs.ErrNotExist }

func (f procs) ReadDir(name string) ([]string, error) {
	var pid int
	if n, _ := fmt.Sscanf(name, "/proc/%d/task", &pid); n == 1 {
		return []string{fmt.Sprint(pid)}, nil
	}
	return nil, fs.ErrNotExist
}

func (procs) Termios(string) (bool, bool, bool, error) { return false, false, true, nil }
func (procs) Arch() string                             { return "" }

// A sandboxed pane's first process is bwrap, with bwrap (the sandbox's
// init) below it and the launcher or the shell below that: readiness and
// interrupts judge the shell, as in a pane without a sandbox.
func TestTheProbeSeesThroughTheSandboxToTheShell(t *testing.T) {
	sandbox := []fakeProcess{{100, 1, 100, "bwrap"}, {101, 100, 100, "bwrap"}}
	cases := []struct {
		name                 string
		tpgid                int
		ps                   []fakeProcess
		first, leader, busy  string
		shellGroup, atPrompt bool
	}{
		{"the launcher", 100, []fakeProcess{{102, 101, 100, "sh"}}, "sh", "sh", "", true, true},
		{"the shell at its prompt", 102, []fakeProcess{{102, 101, 102, "bash"}}, "bash", "bash", "", true, true},
		{"a command in front", 103, []fakeProcess{{102, 101, 102, "bash"}, {103, 102, 103, "sleep"}}, "bash", "sleep", "sleep", false, false},
		{"a shell without job control running a command", 100, []fakeProcess{{102, 101, 100, "dash"}, {103, 102, 100, "sleep"}}, "dash", "dash", "sleep", true, false},
	}
	for _, c := range cases {
		p, err := ProbeWith(procs{tpgid: c.tpgid, ps: append(slices.Clone(sandbox), c.ps...)}, 100, "/dev/pts/9")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if p.First != c.first || p.Leader != c.leader || p.Busy() != c.busy || p.ShellGroup != c.shellGroup || p.AtShellPrompt() != c.atPrompt || slices.Contains(p.Others, "bwrap") {
			t.Errorf("%s: first %q leader %q busy %q shellGroup %v atPrompt %v others %v", c.name, p.First, p.Leader, p.Busy(), p.ShellGroup, p.AtShellPrompt(), p.Others)
		}
	}
	// Before bwrap has started anything, the pane is the launcher's start.
	p, err := ProbeWith(procs{tpgid: 100, ps: sandbox}, 100, "/dev/pts/9")
	in := &Integration{dir: "/state/shell"}
	if err != nil || p.First != "bwrap" || !in.Launching(p.FirstArgs) {
		t.Errorf("bwrap alone: %+v %v", p, err)
	}
}
