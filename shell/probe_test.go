package shell

import (
	"os/exec"
	"testing"
	"time"
)

// What a stop asks of the foreground group before it sends SIGINT:
// whether a process of it is alive, runs a program rather than a shell,
// and catches SIGINT.
func TestTheForegroundGroupIsJudgedBeforeAnInterrupt(t *testing.T) {
	start := func(name string, args ...string) *exec.Cmd {
		t.Helper()
		c := exec.Command(name, args...)
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait() })
		return c
	}
	sleeper := start("sleep", "30")
	trapper := start("sh", "-c", `trap "exit 0" INT; while :; do sleep 1; done`)

	p := Probe{ForegroundPgrp: sleeper.Process.Pid, Leader: "sleep"}
	if !p.Running() || !p.RunsProgram() || p.CatchesInterrupt() {
		t.Fatalf("sleep: running %v, program %v, catches %v", p.Running(), p.RunsProgram(), p.CatchesInterrupt())
	}
	// The trap is set once sh has read its script: a moment after it starts.
	q := Probe{ForegroundPgrp: trapper.Process.Pid, Leader: "sh"}
	for deadline := time.Now().Add(10 * time.Second); !q.CatchesInterrupt(); {
		if time.Now().After(deadline) {
			t.Fatal("sh with a SIGINT trap: not seen catching it")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !q.Running() || q.RunsProgram() {
		t.Fatalf("a lone shell: running %v, program %v", q.Running(), q.RunsProgram())
	}
	// A zombie has ended: nothing of the group runs.
	if err := sleeper.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); p.Running(); {
		if time.Now().After(deadline) {
			t.Fatal("a killed sleep (a zombie until reaped) still counts as running")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if p.RunsProgram() {
		t.Fatal("a killed sleep still runs a program")
	}
}
