package jobs

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
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

func TestARecordThatIsNotTheUsersPrivateFileIsIgnoredWithTheReason(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "jobs")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	mine, err := s.Create(&Job{Command: "echo mine", RequestID: "r-mine"})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(s.Path(mine.ID, ".json")); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("a record's mode: %v %v, want 0600", st.Mode(), err)
	}
	plant := func(id string, mode os.FileMode, owner int) string {
		p := filepath.Join(dir, id+".json")
		if err := os.WriteFile(p, []byte(`{"id":"`+id+`","requestId":"r-`+id+`","command":"planted","status":"completed"}`), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		if owner >= 0 {
			if err := os.Chown(p, owner, owner); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	want := []string{plant("readable", 0o644, -1) + ": other users may read or write it"}
	if os.Geteuid() == 0 {
		want = append(want, plant("theirs", 0o600, 1234)+": a file of another user")
	} else {
		t.Log("a record of uid 1234: skipped, os.Chown takes root")
	}
	s, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Get(mine.ID); !ok {
		t.Error("the user's own record was not loaded")
	}
	if len(s.List()) != 1 {
		t.Errorf("loaded %d records, want only the user's own", len(s.List()))
	}
	var got []string
	for _, err := range s.Ignored() {
		got = append(got, err.Error())
	}
	for _, w := range want {
		if !slices.ContainsFunc(got, func(g string) bool { return strings.HasPrefix(g, w) }) {
			t.Errorf("ignored %q, want one saying %q", got, w)
		}
	}
	if idx := RequestIndex(dir); len(idx) != 1 || idx["r-mine"] != mine.ID {
		t.Errorf("the request index of the directory: %v, want only r-mine", idx)
	}
}
