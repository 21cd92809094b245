package audit

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"git clone https://bob:hunter2@example.com/x.git": "git clone https://bob:[REDACTED]@example.com/x.git",
		"AWS_SECRET_ACCESS_KEY=abc123 aws s3 ls":          "AWS_SECRET_ACCESS_KEY=[REDACTED] aws s3 ls",
		"export GITHUB_TOKEN='ghp_x' && make":             "export GITHUB_TOKEN=[REDACTED] && make",
		`curl -H "Authorization: Bearer eyJhbGciOi" x`:    `curl -H "Authorization: Bearer [REDACTED]" x`,
		"mysql --password=s3cret -u root":                 "mysql --password=[REDACTED] -u root",
		"echo ghp_abcdefghijklmnopqrstuvwxyz0123":         "echo [REDACTED]",
		"ls -la /tmp": "ls -la /tmp",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLogWritesOneRedactedLinePerEvent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	code := 0
	_ = l.Record(Event{Event: "decision", JobID: "j1", Command: "API_KEY=zzz run", Decision: "approved", DecidedBy: "tmux:/dev/pts/1"})
	_ = l.Record(Event{Event: "completed", JobID: "j1", Status: "completed", ExitCode: &code})
	_ = l.Close()
	f, _ := os.Open(path)
	defer f.Close()
	var lines []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, m)
	}
	if len(lines) != 2 || strings.Contains(lines[0]["command"].(string), "zzz") || lines[1]["exitCode"] != float64(0) {
		t.Fatalf("lines %v", lines)
	}
}
