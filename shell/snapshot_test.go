package shell

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// testPane is a process on a terminal of its own, as tmux starts a pane's
// first process: a session leader whose controlling terminal is a pty.
type testPane struct {
	pid int
	tty string
}

// startPane runs sh -c script (with args) on a new pty.
func startPane(t testing.TB, script string, args ...string) testPane {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	t.Cleanup(func() { _ = master.Close() })
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock pty: %v", err)
	}
	n, err := unix.IoctlGetUint32(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("pty number: %v", err)
	}
	tty := fmt.Sprintf("/dev/pts/%d", n)
	term, err := os.OpenFile(tty, os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open %s: %v", tty, err)
	}
	defer term.Close()
	go func() { _, _ = io.Copy(io.Discard, master) }() // ends when the master closes
	c := exec.Command("sh", append([]string{"-c", script, "sh"}, args...)...)
	c.Stdin, c.Stdout, c.Stderr = term, term, term
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		_ = c.Process.Kill()
		_ = c.Wait()
	})
	return testPane{pid: c.Process.Pid, tty: tty}
}

// waitFor polls the local probe of pane until ok says it is what a test
// needs, and returns it.
func waitFor(t testing.TB, pane testPane, what string, ok func(Probe) bool) Probe {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		p, err := ProbePane(pane.pid, pane.tty)
		if err == nil && ok(p) {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("pane not %s: %+v, %v", what, p, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// snapshotOf runs SnapshotScript for pane here, as a remote host would.
func snapshotOf(t testing.TB, pid int, tty string) []byte {
	t.Helper()
	out, err := exec.Command("sh", "-c", SnapshotScript(pid, tty)).Output()
	if err != nil {
		t.Fatalf("snapshot script: %v", err)
	}
	return out
}

// probeBoth probes pane locally and through a snapshot; the two must agree
// in every field (Age to a second) and every method.
func probeBoth(t *testing.T, pane testPane) (local, remote Probe) {
	t.Helper()
	out := snapshotOf(t, pane.pid, pane.tty)
	proc, err := ParseSnapshot(out)
	if err != nil {
		t.Fatalf("parse snapshot: %v\n%q", err, out)
	}
	remote, err = ProbeWith(proc, pane.pid, pane.tty)
	if err != nil {
		t.Fatalf("probe snapshot: %v", err)
	}
	local, err = ProbePane(pane.pid, pane.tty)
	if err != nil {
		t.Fatalf("probe: %v", err)
	}
	if d := local.Age - remote.Age; d < -time.Second || d > time.Second {
		t.Errorf("age: local %v, snapshot %v", local.Age, remote.Age)
	}
	l, r := local, remote
	l.Age, r.Age, l.proc, r.proc = 0, 0, nil, nil
	if !reflect.DeepEqual(l, r) {
		t.Errorf("probes differ:\nlocal    %+v\nsnapshot %+v", l, r)
	}
	for _, m := range []struct {
		name string
		f    func(Probe) bool
	}{
		{"Running", Probe.Running}, {"RunsProgram", Probe.RunsProgram}, {"CatchesInterrupt", Probe.CatchesInterrupt},
		{"AtShellPrompt", Probe.AtShellPrompt}, {"ReadingCommand", Probe.ReadingCommand}, {"Secret", Probe.Secret},
	} {
		if m.f(local) != m.f(remote) {
			t.Errorf("%s: local %v, snapshot %v", m.name, m.f(local), m.f(remote))
		}
	}
	if local.Busy() != remote.Busy() {
		t.Errorf("Busy: local %q, snapshot %q", local.Busy(), remote.Busy())
	}
	t.Logf("%d-byte snapshot probes %+v", len(out), r)
	return local, remote
}

func TestASnapshotProbeAgreesWithTheLocalProbe(t *testing.T) {
	t.Run("a shell in front with cat reading the terminal", func(t *testing.T) {
		pane := startPane(t, "cat; :", "an argument\nover two lines", "with\x01control")
		waitFor(t, pane, "reading with cat", func(p Probe) bool { return p.Reader == "cat" })
		_, p := probeBoth(t, pane)
		if p.Leader != "sh" || !slices.Equal(p.Others, []string{"cat"}) || !p.Canonical || !p.Echo || !p.Signals || !p.Running() || !p.RunsProgram() {
			t.Errorf("snapshot: %+v, running %v, program %v", p, p.Running(), p.RunsProgram())
		}
		if want := []string{"sh", "-c", "cat; :", "sh", "an argument\nover two lines", "with\x01control"}; !reflect.DeepEqual(p.FirstArgs, want) {
			t.Errorf("first args %q, want %q", p.FirstArgs, want)
		}
	})
	t.Run("the shell in front reading its terminal", func(t *testing.T) {
		pane := startPane(t, "read -r line; :")
		waitFor(t, pane, "reading with the shell", func(p Probe) bool { return p.LeaderReads })
		if _, p := probeBoth(t, pane); !p.LeaderReads || !p.LeaderReadKnown || p.Reader != "sh" {
			t.Errorf("snapshot: %+v", p)
		}
	})
	t.Run("the shell in front running builtins", func(t *testing.T) {
		// As a shell's startup files run: in front, alone, not reading.
		pane := startPane(t, "while :; do :; done")
		waitFor(t, pane, "running builtins", func(p Probe) bool { return p.LeaderReadKnown && p.Leader == "sh" })
		if _, p := probeBoth(t, pane); p.LeaderReads || !p.LeaderReadKnown || p.Reader != "" || !p.AtShellPrompt() {
			t.Errorf("snapshot: %+v", p)
		}
	})
	t.Run("a terminal in raw mode", func(t *testing.T) {
		pane := startPane(t, "stty raw; cat; :")
		waitFor(t, pane, "raw with cat reading", func(p Probe) bool { return !p.Canonical && p.Reader == "cat" })
		if _, p := probeBoth(t, pane); p.Canonical || p.Signals || !p.Echo || p.Reader != "cat" {
			t.Errorf("snapshot: %+v", p)
		}
	})
	t.Run("a password prompt", func(t *testing.T) {
		pane := startPane(t, "stty -echo; cat; :")
		waitFor(t, pane, "reading without echo", func(p Probe) bool { return !p.Echo && p.Reader == "cat" })
		if _, p := probeBoth(t, pane); !p.Secret() {
			t.Errorf("snapshot: not secret: %+v", p)
		}
	})
	t.Run("a group that catches SIGINT", func(t *testing.T) {
		pane := startPane(t, `trap "exit 0" INT; cat; :`)
		waitFor(t, pane, "catching SIGINT", func(p Probe) bool { return p.Reader == "cat" && p.CatchesInterrupt() })
		if _, p := probeBoth(t, pane); !p.CatchesInterrupt() {
			t.Errorf("snapshot: does not catch SIGINT: %+v", p)
		}
	})
	t.Run("a group that does not catch SIGINT", func(t *testing.T) {
		pane := startPane(t, "set -m; sleep 30; :")
		waitFor(t, pane, "running sleep as a job", func(p Probe) bool { return p.Leader == "sleep" })
		if _, p := probeBoth(t, pane); p.CatchesInterrupt() || p.ShellGroup || !p.RunsProgram() {
			t.Errorf("snapshot: %+v, catches %v, program %v", p, p.CatchesInterrupt(), p.RunsProgram())
		}
	})
	t.Run("a foreground group that has exited", func(t *testing.T) {
		// The shell, stopped, cannot reap its job: the job's group owns
		// the terminal and holds nothing but a zombie.
		pane := startPane(t, "set -m; sleep 30; :")
		job := waitFor(t, pane, "running sleep as a job", func(p Probe) bool { return p.Leader == "sleep" })
		if err := syscall.Kill(pane.pid, syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Kill(job.ForegroundPgrp, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		waitFor(t, pane, "with its job exited", func(p Probe) bool { return !p.Running() })
		if _, p := probeBoth(t, pane); p.Running() || p.RunsProgram() || p.Reader != "" {
			t.Errorf("snapshot: %+v, running %v, program %v", p, p.Running(), p.RunsProgram())
		}
	})
	t.Run("a reader on another descriptor than its input", func(t *testing.T) {
		// Only the system call says so: the snapshot must bring the
		// machine's architecture along.
		pane := startPane(t, `cat "$(tty)" </dev/null; :`)
		waitFor(t, pane, "reading with cat", func(p Probe) bool { return p.Reader == "cat" })
		probeBoth(t, pane)
	})
	t.Run("a process named to confuse a parser", func(t *testing.T) {
		pane := startPane(t, `printf ') R 1 1\nf x' >/proc/$$/comm; cat; :`)
		waitFor(t, pane, "renamed", func(p Probe) bool { return strings.HasPrefix(p.Leader, ")") && p.Reader == "cat" })
		probeBoth(t, pane)
	})
}

// Where the kernel keeps no /proc/PID/task/TID/children, the probe looks
// at every process, and the snapshot holds them all.
func TestWithoutChildrenFilesTheSnapshotHoldsEveryProcess(t *testing.T) {
	pane := startPane(t, "cat; :")
	local := waitFor(t, pane, "reading with cat", func(p Probe) bool { return p.Reader == "cat" })
	script := SnapshotScript(pane.pid, pane.tty)
	const children = "/proc/$1/task/$t/children"
	if strings.Count(script, children) != 2 {
		t.Fatalf("the script reads children files otherwise: %s", script)
	}
	script = strings.ReplaceAll(script, children, "/proc/$1/task/$t/no-children")
	out, err := exec.Command("sh", "-c", script).Output()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte("\nd /proc ")) || !bytes.Contains(out, []byte(fmt.Sprintf("\nf /proc/%d/stat ", os.Getpid()))) {
		t.Fatalf("not every process: %q", out)
	}
	proc, err := ParseSnapshot(out)
	if err != nil {
		t.Fatal(err)
	}
	remote, err := ProbeWith(proc, pane.pid, pane.tty)
	if err != nil || remote.Reader != "cat" || !reflect.DeepEqual(remote.OtherPIDs, local.OtherPIDs) {
		t.Fatalf("%+v, %v; local %+v", remote, err, local)
	}
}

func TestASnapshotOfAMissingProcessReadsAsNoSuchFile(t *testing.T) {
	c := exec.Command("true")
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	gone := c.Process.Pid
	proc, err := ParseSnapshot(snapshotOf(t, gone, "/dev/pts/0"))
	if err != nil {
		t.Fatal(err)
	}
	_, local := ProbePane(gone, "/dev/pts/0")
	_, remote := ProbeWith(proc, gone, "/dev/pts/0")
	if !errors.Is(local, fs.ErrNotExist) || !errors.Is(remote, fs.ErrNotExist) {
		t.Fatalf("local %v, snapshot %v", local, remote)
	}
}

func TestAnUnknownArchitectureFallsBackToWhereTheProcessSleeps(t *testing.T) {
	unknown := func(out []byte) Proc {
		t.Helper()
		mips := regexp.MustCompile(`(?m)^m - \d+\n[^\n]*\n`).ReplaceAll(out, []byte("m - 4\nmips\n"))
		proc, err := ParseSnapshot(mips)
		if err != nil {
			t.Fatalf("%v: %q", err, mips)
		}
		if proc.Arch() != "" {
			t.Fatalf("arch %q", proc.Arch())
		}
		return proc
	}
	// cat sleeps in the terminal's read with the terminal as its input:
	// the kernel function it sleeps in says so.
	pane := startPane(t, "cat; :")
	waitFor(t, pane, "reading with cat", func(p Probe) bool { return p.Reader == "cat" })
	if p, err := ProbeWith(unknown(snapshotOf(t, pane.pid, pane.tty)), pane.pid, pane.tty); err != nil || p.Reader != "cat" {
		t.Fatalf("%+v, %v", p, err)
	}
	// Reading the terminal on another descriptor only the system call,
	// whose numbers are not known, says.
	other := startPane(t, `cat "$(tty)" </dev/null; :`)
	waitFor(t, other, "reading with cat", func(p Probe) bool { return p.Reader == "cat" })
	if p, err := ProbeWith(unknown(snapshotOf(t, other.pid, other.tty)), other.pid, other.tty); err != nil || p.Reader != "" {
		t.Fatalf("%+v, %v", p, err)
	}
}

func TestATerminalPathThatIsNotPlainIsLeftOut(t *testing.T) {
	for _, tty := range []string{"/dev/pts/0'; echo x", "/dev/pts/0\nend", "/tmp/x", "/dev/", "/dev/pts 0", "$(id)"} {
		out := snapshotOf(t, os.Getpid(), tty)
		proc, err := ParseSnapshot(out)
		if err != nil {
			t.Fatalf("%q: %v", tty, err)
		}
		if _, _, _, err := proc.Termios(tty); err == nil || bytes.Contains(out, []byte("\nt ")) {
			t.Fatalf("%q: terminal modes read: %q", tty, out)
		}
	}
}

func TestACutOrGarbledSnapshotIsAnError(t *testing.T) {
	pane := startPane(t, "cat; :")
	waitFor(t, pane, "reading with cat", func(p Probe) bool { return p.Reader == "cat" })
	out := snapshotOf(t, pane.pid, pane.tty)
	if _, err := ParseSnapshot(out); err != nil {
		t.Fatal(err)
	}
	for i := range len(out) {
		if _, err := ParseSnapshot(out[:i]); err == nil {
			t.Fatalf("cut after %d of %d bytes: no error", i, len(out))
		}
	}
	for _, garbled := range []string{
		"", "tmuxmcp-snapshot 2\nend\n", "tmuxmcp-snapshot 1\nend\nmore",
		"tmuxmcp-snapshot 1\nf /proc/1/stat 3\nabcd\nend\n", "tmuxmcp-snapshot 1\nf /proc/1/stat -1\n\nend\n",
		"tmuxmcp-snapshot 1\nx /proc/1/cmdline 4\n 6g1\nend\n", "tmuxmcp-snapshot 1\nq /proc/1 0\n\nend\n",
		"tmuxmcp-snapshot 1\nf  0\n\nend\n", "tmuxmcp-snapshot 1\nf /proc/1/stat 99999999999\n\nend\n",
	} {
		if _, err := ParseSnapshot([]byte(garbled)); err == nil {
			t.Errorf("%q: no error", garbled)
		}
	}
}

func FuzzParseSnapshot(f *testing.F) {
	f.Add([]byte("tmuxmcp-snapshot 1\nm - 6\nx86_64\nf /proc/stat 11\nbtime 1000\n\n" +
		"f /proc/7/stat 26\n7 (sh) S 1 7 7 0 7 0 0 0 0\n\nx /proc/7/cmdline 12\n 73 68 00 2d\n" +
		"f /proc/7/syscall 4\n0 0x\nd /proc/7/task 1\n7\nf /proc/7/task/7/children 2\n7 \n" +
		"l /proc/7/fd/0 10\n/dev/pts/0\nt /dev/pts/0 17\n-icanon echo isig\nend\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		proc, err := ParseSnapshot(b)
		if err != nil {
			return
		}
		if !bytes.HasSuffix(b, []byte("\nend\n")) {
			t.Fatalf("parsed without its end: %q", b)
		}
		s := proc.(*snapshot)
		tty := "/dev/pts/0"
		for name := range s.stty {
			tty = name
		}
		tried := 0
		for name := range s.files {
			var pid int
			if _, err := fmt.Sscanf(name, "/proc/%d/stat", &pid); err != nil || tried > 3 {
				continue
			}
			tried++
			p, _ := ProbeWith(proc, pid, tty)
			_, _, _ = p.Running(), p.RunsProgram(), p.CatchesInterrupt()
		}
	})
}

// BenchmarkSnapshotScript runs the script with sh for a pane of four
// processes: a shell, two sleeps in the background and cat reading.
func BenchmarkSnapshotScript(b *testing.B) {
	pane := startPane(b, "sleep 30 & sleep 30 & cat; :")
	waitFor(b, pane, "reading with cat", func(p Probe) bool { return p.Reader == "cat" && len(p.Others) == 3 })
	size := 0
	for b.Loop() {
		size = len(snapshotOf(b, pane.pid, pane.tty))
	}
	b.ReportMetric(float64(size), "bytes")
}
