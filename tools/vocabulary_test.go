package tools

import (
	"testing"

	"github.com/tmuxmcp/tmuxmcp/approval"
	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/stream"
)

// describedExactly reports the values without a meaning and the meanings
// of no value.
func describedExactly[T ~string](t *testing.T, what string, values []T, means map[T]string) {
	t.Helper()
	seen := map[T]bool{}
	for _, v := range values {
		if _, ok := means[v]; !ok {
			t.Errorf("%s %q has no meaning in tools/vocabulary.go", what, v)
		}
		seen[v] = true
	}
	for v := range means {
		if !seen[v] {
			t.Errorf("%s %q is described but not a value its package lists", what, v)
		}
	}
}

// Every value of every result vocabulary is described once, and the
// schemas enumerate exactly the owning package's values.
func TestEveryVocabularyValueIsDescribed(t *testing.T) {
	describedExactly(t, "job status", jobs.Statuses(), statusMeans())
	describedExactly(t, "decision", approval.Reported(), decisionMeans())
	describedExactly(t, "outcome", stream.Outcomes(), outcomeMeans())
	describedExactly(t, "stream failure", stream.Failures(), failureMeans())
	s := terms("Lead", stream.Outcomes(), outcomeMeans(), "Tail.")
	if len(s.Enum) != len(stream.Outcomes()) || s.Description[:6] != "Lead: " {
		t.Fatalf("terms: %v %q", s.Enum, s.Description)
	}
}
