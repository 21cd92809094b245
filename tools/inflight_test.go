package tools

import (
	"testing"
	"time"
)

// A call may begin while the drain waits for calls to end (stdin ended
// just as a request arrived): it is waited for too, and nothing panics.
func TestACallMayBeginWhileTheDrainWaitsForCalls(t *testing.T) {
	var f inFlight
	f.idle() // nothing in flight: returns at once
	f.begin()
	done := make(chan struct{})
	go func() { f.idle(); close(done) }()
	f.begin() // arrives while idle waits
	f.end()
	select {
	case <-done:
		t.Fatal("idle returned with a call still in progress")
	case <-time.After(50 * time.Millisecond):
	}
	f.end()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("idle did not return once every call ended")
	}
}
