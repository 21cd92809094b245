package approval

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "approver")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestAnApproverProgramAnswers(t *testing.T) {
	dir := t.TempDir()
	seen := filepath.Join(dir, "request.json")
	cases := []struct {
		name, body string
		want       Decision
		wantErr    string
	}{
		{"approves", "cat > " + seen + "; echo approve", Approved, ""},
		{"denies", "cat >/dev/null; echo DENY because", Denied, ""},
		{"approves then lingers", "echo approve; sleep 30", Approved, ""},
		{"hangs", "sleep 30", DeniedTimeout, "in time"},
		{"crashes", "echo oops >&2; kill -SEGV $$", DeniedError, "without an answer"},
		{"exits non-zero", "exit 3", DeniedError, "exit status 3"},
		{"answers nonsense", "echo maybe", DeniedError, `"maybe"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			limit := 30 * time.Second
			if c.want == DeniedTimeout {
				limit = time.Second
			}
			ctx, cancel := context.WithTimeout(context.Background(), limit)
			defer cancel()
			start := time.Now()
			got, err := AskProgram(ctx, script(t, c.body), Request{RequestID: "r1", Tool: "run_shell_command", Command: "ls\x1b", Shown: Visible("ls\x1b"), Host: "h", Reason: "why"})
			if got != c.want || c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)) {
				t.Fatalf("got %s, %v; want %s with %q", got, err, c.want, c.wantErr)
			}
			if time.Since(start) > limit+10*time.Second {
				t.Fatalf("took %v: the program was not stopped", time.Since(start))
			}
		})
	}
	var req Request
	b, _ := os.ReadFile(seen)
	if err := json.Unmarshal(b, &req); err != nil || req.RequestID != "r1" || req.Command != "ls\x1b" || req.Shown != `ls\x1b` || req.Reason != "why" {
		t.Fatalf("the program read %q (%v)", b, err)
	}
}
