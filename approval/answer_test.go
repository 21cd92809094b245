package approval

import (
	"testing"

	"github.com/tmuxmcp/tmuxmcp/policy"
)

// Only y, a and n (in either case) answer a review; a popup closed with
// anything else, or with nothing, leaves the others to answer.
func TestOnlyYAOrNAnswersAReview(t *testing.T) {
	for _, tc := range []struct {
		key  string
		want Answer
		ok   bool
	}{
		{"y", Answer{Decision: Approved, By: "tmux:c"}, true},
		{"Y", Answer{Decision: Approved, By: "tmux:c"}, true},
		{"a", Answer{Decision: Approved, By: "tmux:c", AllowAll: true}, true},
		{"A", Answer{Decision: Approved, By: "tmux:c", AllowAll: true}, true},
		{"n", Answer{Decision: Denied, By: "tmux:c"}, true},
		{"N", Answer{Decision: Denied, By: "tmux:c"}, true},
		{"", Answer{}, false},
		{"q", Answer{}, false},
		{"yes", Answer{}, false},
	} {
		got, ok := askResult{by: "tmux:c", answer: tc.key}.answered()
		if got != tc.want || ok != tc.ok {
			t.Errorf("key %q: answered = %+v, %v; want %+v, %v", tc.key, got, ok, tc.want, tc.ok)
		}
	}
}

// A review every asker left without an answer is denied as an error when
// they all failed, and as a timeout when the approver program was silent;
// an answer given, or a wait cut short, stands.
func TestAReviewEveryAskerLeftIsDeniedAsAnErrorOrATimeout(t *testing.T) {
	nobody := Answer{Decision: Denied, By: "tmux"}
	for _, tc := range []struct {
		name   string
		t      unanswered
		askers int
		ans    Answer
		want   Decision
	}{
		{"no askers at all", unanswered{}, 0, nobody, DeniedError},
		{"every asker failed", unanswered{closed: 2, failed: 2}, 2, nobody, DeniedError},
		{"one failed, the program silent", unanswered{closed: 2, failed: 1, silent: 1}, 2, nobody, DeniedTimeout},
		{"closed without failing or answering", unanswered{closed: 2}, 2, nobody, Denied},
		{"an answer after a silent program", unanswered{closed: 2, silent: 1}, 2, Answer{Decision: Approved, By: "tmux:c"}, Approved},
		{"timed out before all closed", unanswered{closed: 1, failed: 1}, 2, Answer{Decision: DeniedTimeout, By: "tmux"}, DeniedTimeout},
		{"withdrawn before all closed", unanswered{closed: 1, silent: 1}, 2, Answer{Decision: DeniedError, By: "tmux"}, DeniedError},
	} {
		if got := tc.t.settle(tc.ans, tc.askers); got.Decision != tc.want {
			t.Errorf("%s: settle = %s, want %s", tc.name, got.Decision, tc.want)
		}
	}
}

// Ask fills in a missing request id, shown command and host, and keeps
// the ones it is given.
func TestAskFillsInTheRequestIDShownCommandAndHost(t *testing.T) {
	got := withDefaults(Request{Command: "echo\x07hi"})
	if got.RequestID == "" {
		t.Errorf("no request id filled in")
	}
	if got.Shown != Visible("echo\x07hi") {
		t.Errorf("shown %q, want %q", got.Shown, Visible("echo\x07hi"))
	}
	if got.Host != policy.LocalHost {
		t.Errorf("host %q, want %q", got.Host, policy.LocalHost)
	}
	given := Request{RequestID: "r1", Command: "ls", Shown: "shown", Host: "box"}
	if got := withDefaults(given); got.RequestID != "r1" || got.Shown != "shown" || got.Host != "box" {
		t.Errorf("withDefaults(%+v) = %+v, want it unchanged", given, got)
	}
}
