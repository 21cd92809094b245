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

// readingProcs is procs where process reader sleeps in read(2) on
// descriptor 3, which names link.
type readingProcs struct {
	procs
	reader int
	link   string
}

func (f readingProcs) ReadFile(name string) ([]byte, error) {
	if name == fmt.Sprintf("/proc/%d/syscall", f.reader) {
		return []byte("0 0x3 0x7ffd 0x1 0x24 0x5606 0x7ffd 0x7ffd 0x7f0d\n"), nil
	}
	return f.procs.ReadFile(name)
}

func (f readingProcs) Readlink(name string) (string, error) {
	if name == fmt.Sprintf("/proc/%d/fd/3", f.reader) {
		return f.link, nil
	}
	return "", fs.ErrNotExist
}

func (readingProcs) Arch() string { return "amd64" }

// In a sandbox bwrap binds the pane's terminal at /dev/console: a pager
// or an editor that opened /dev/tty there holds it under that name, and
// is seen waiting for a key (waitingForInput) as it is outside.
func TestAPagerInASandboxIsSeenReadingTheTerminal(t *testing.T) {
	bash, less := fakeProcess{102, 101, 102, "bash"}, fakeProcess{103, 102, 103, "less"}
	sandboxed := []fakeProcess{{100, 1, 100, "bwrap"}, {101, 100, 100, "bwrap"}, bash, less}
	p, err := ProbeWith(readingProcs{procs{tpgid: 103, ps: sandboxed}, 103, "/dev/console"}, 100, "/dev/pts/9")
	if err != nil || p.Reader != "less" {
		t.Errorf("less in a sandbox: reader %q, %v", p.Reader, err)
	}
	// Outside a sandbox /dev/console is the machine's console, not the pane.
	plain := []fakeProcess{{102, 1, 102, "bash"}, less}
	p, err = ProbeWith(readingProcs{procs{tpgid: 103, ps: plain}, 103, "/dev/console"}, 102, "/dev/pts/9")
	if err != nil || p.Reader != "" {
		t.Errorf("a process reading the console outside a sandbox: reader %q, %v", p.Reader, err)
	}
	p, err = ProbeWith(readingProcs{procs{tpgid: 103, ps: plain}, 103, "/dev/pts/9"}, 102, "/dev/pts/9")
	if err != nil || p.Reader != "less" {
		t.Errorf("less outside a sandbox: reader %q, %v", p.Reader, err)
	}
}
