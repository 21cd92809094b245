package machine

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Attack finding (issue 25, h-attack): a job's status file (<id>.rc) in a
// sandboxed pane's job directory is writable from inside, and the runner
// reads it with os.ReadFile, which follows links and reads without bound.
// A command that replaced its own .rc with a link to /dev/zero and killed
// its shell made tmuxmcp read until "fatal error: out of memory"; a FIFO
// there left the job running forever, its timeout ignored.
func TestReadFileNeitherFollowsALinkNorWaitsOnAFifoNorReadsWithoutBound(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.rc")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, err := (Local{}).ReadFile(t.Context(), link); err == nil {
		t.Error("a status file that is a link was read through it")
	}
	fifo := filepath.Join(dir, "fifo.rc")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := (Local{}).ReadFile(context.Background(), fifo)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Error("a FIFO was read as a status file")
		}
	case <-time.After(5 * time.Second):
		t.Error("ReadFile waits on a FIFO")
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil { // release the reader
			f.Close()
		}
		<-done
	}
}
