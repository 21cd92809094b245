package jobs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestCreateDedupesRequestIDsConcurrently(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	ids := make(chan string, 20)
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			j, err := s.Create(&Job{RequestID: "0123456789abcdef0123456789abcdef", Command: "echo x", Status: Running})
			if err != nil && err != ErrDuplicate {
				t.Error(err)
			}
			ids <- j.ID
		}()
	}
	wg.Wait()
	close(ids)
	first := ""
	for id := range ids {
		if first == "" {
			first = id
		}
		if id != first {
			t.Fatalf("two jobs for one request id: %s and %s", first, id)
		}
	}
	if n := len(s.List()); n != 1 {
		t.Fatalf("%d jobs recorded", n)
	}
}

func TestRecordsSurviveReopen(t *testing.T) {
	dir := t.TempDir()
	s, _ := Open(dir)
	j, err := s.Create(&Job{RequestID: "ffffffffffffffffffffffffffffffff", Command: "sleep 3", Status: Running})
	if err != nil {
		t.Fatal(err)
	}
	code := 0
	if _, err := s.Update(j.ID, func(x *Job) { x.Status, x.ExitCode, x.Output = Completed, &code, "done\n" }); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := s2.Get(j.ID)
	if !ok || got.Status != Completed || got.ExitCode == nil || *got.ExitCode != 0 || got.Output != "done\n" {
		t.Fatalf("after reopen: %+v", got)
	}
	if _, err := s2.Create(&Job{RequestID: j.RequestID}); err != ErrDuplicate {
		t.Fatalf("request id forgotten after reopen: %v", err)
	}
}

// A record that cannot be saved leaves no ghost: the job is unknown, its
// requestId free, and the retry once the disk is fixed creates it once.
func TestAJobWhoseRecordCannotBeSavedLeavesNoGhost(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "jobs")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	// The directory turns into a file: every write fails.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	j, err := s.Create(&Job{RequestID: "r1", Command: "echo once"})
	if err == nil || j != nil || !strings.Contains(err.Error(), dir) {
		t.Fatalf("create on a broken disk: %v, %v", j, err)
	}
	if _, ok := s.ByRequest("r1"); ok {
		t.Fatal("the failed job is bound to its requestId")
	}
	if len(s.List()) != 0 {
		t.Fatalf("ghost jobs: %v", s.List())
	}
	_ = os.Remove(dir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	j, err = s.Create(&Job{RequestID: "r1", Command: "echo once"})
	if err != nil || j == nil {
		t.Fatalf("the retry: %v, %v", j, err)
	}
	if _, err := s.Create(&Job{RequestID: "r1", Command: "echo once"}); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("a second retry: %v", err)
	}
}
