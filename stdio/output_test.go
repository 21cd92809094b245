package stdio

import (
	"errors"
	"os"
	"sync/atomic"
	"testing"
	"time"
)

// A write blocked on a pipe nobody reads fails once GiveUp's time is up,
// so the process can exit; Quiet returns when nothing more is written.
func TestOutputGivesUpOnAPipeNobodyReads(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	o := NewOutput(w)
	defer o.Close()
	var writes atomic.Int32
	o.Written = func() { writes.Add(1) }
	done := make(chan error, 1)
	go func() {
		chunk := make([]byte, 64<<10)
		for {
			if _, err := o.Write(chunk); err != nil {
				done <- err
				return
			}
		}
	}()
	time.Sleep(100 * time.Millisecond) // the pipe fills up
	select {
	case err := <-done:
		t.Fatalf("a write failed before GiveUp: %v", err)
	default:
	}
	start := time.Now()
	o.GiveUp(200 * time.Millisecond)
	o.GiveUp(time.Hour) // a later GiveUp does not postpone the earliest
	select {
	case err := <-done:
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("the blocked write failed with %v", err)
		}
		if took := time.Since(start); took < 150*time.Millisecond {
			t.Errorf("given up after %v, before its time", took)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a write blocked on a full pipe was not given up")
	}
	if writes.Load() == 0 {
		t.Error("Written was not called")
	}
	start = time.Now()
	o.Quiet(50*time.Millisecond, 5*time.Second)
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("Quiet took %v with nothing written", took)
	}
}
