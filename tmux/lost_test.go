package tmux

import (
	"errors"
	"fmt"
	"testing"
)

// What tmux says when its server is gone is read here, so the engine can
// tell a server that never answered, or crashed, from one that closed.
func TestAServerThatIsGoneOrCrashedIsToldFromItsErrors(t *testing.T) {
	for _, c := range []struct {
		err               error
		noServer, crashed bool
	}{
		{nil, false, false},
		{fmt.Errorf("reconnect: %w: exit 1", ErrNoServer), true, false},
		{errors.New("tmux new-session: no server running on /tmp/tmux-0/x"), true, false},
		{errors.New("tmux list-sessions: server exited unexpectedly"), true, true},
		{&LostError{Target: "-L x", Reason: "server exited unexpectedly"}, true, true},
		{&LostError{Target: "-L x", Reason: "%exit"}, false, false},
		{errors.New("context deadline exceeded"), false, false},
	} {
		if got := NoServer(c.err); got != c.noServer {
			t.Errorf("NoServer(%v) = %v, want %v", c.err, got, c.noServer)
		}
		if got := Crashed(c.err); got != c.crashed {
			t.Errorf("Crashed(%v) = %v, want %v", c.err, got, c.crashed)
		}
	}
}
