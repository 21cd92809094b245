package replay

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The command gets a pane's recording from the tmuxmcp that records the
// tmux server it names, skips the ones that record another, removes the
// socket of a tmuxmcp that ended without removing it, and passes on why a
// pane has no recording.
func TestFetchFindsTheTmuxmcpThatRecordsTheServer(t *testing.T) {
	state := t.TempDir()
	rec := func(cast string) Record {
		return func(_ context.Context, pane string, w io.Writer) error {
			if pane != "%3" {
				return errors.New("paneId " + pane + ": no such pane")
			}
			_, err := io.WriteString(w, cast)
			return err
		}
	}
	stop, err := Serve(state, "-L work", rec("cast of %3"), slog.Default())
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	// A socket nobody listens on: its tmuxmcp was killed.
	stale := filepath.Join(Dir(state), "1.sock")
	l, err := net.Listen("unix", stale)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	_ = l.Close()
	got, err := Fetch(t.Context(), state, "-L work", "%3")
	if err != nil || string(got) != "cast of %3" {
		t.Fatalf("Fetch: %q %v", got, err)
	}
	if _, err := os.Lstat(stale); !os.IsNotExist(err) {
		t.Fatalf("the stale socket is still there: %v", err)
	}
	if _, err := Fetch(t.Context(), state, "-L other", "%3"); !errors.Is(err, ErrNoRecorder) {
		t.Fatalf("Fetch for another server: %v", err)
	}
	if _, err := Fetch(t.Context(), state, "-L work", "%4"); err == nil || !strings.Contains(err.Error(), "no such pane") {
		t.Fatalf("Fetch of an unknown pane: %v", err)
	}
	if _, err := Fetch(t.Context(), state, "-L work", "3"); err == nil || !strings.Contains(err.Error(), "such as %3") {
		t.Fatalf("Fetch of a malformed pane id: %v", err)
	}
	fi, err := os.Stat(Dir(state))
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the socket directory: %v %v", fi, err)
	}
}
