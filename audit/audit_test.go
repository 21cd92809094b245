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
		"git clone https://bob:hunter2@example.com/x.git":                                           "git clone https://[REDACTED]@example.com/x.git",
		"git clone https://:hunter2@example.com/x.git":                                              "git clone https://[REDACTED]@example.com/x.git",
		"git clone https://user:p@ss@example.com/x.git":                                             "git clone https://[REDACTED]@example.com/x.git",
		"git clone https://ghp_tok@github.com/x.git":                                                "git clone https://[REDACTED]@github.com/x.git",
		"AWS_SECRET_ACCESS_KEY=abc123 aws s3 ls":                                                    "AWS_SECRET_ACCESS_KEY=[REDACTED] aws s3 ls",
		"export GITHUB_TOKEN='ghp_x' && make":                                                       "export GITHUB_TOKEN=[REDACTED] && make",
		`curl -H "Authorization: Bearer eyJhbGciOi" x`:                                              `curl -H "Authorization: [REDACTED]" x`,
		`curl -H 'X-Api-Key: abc123' https://api`:                                                   `curl -H 'X-Api-Key: [REDACTED]' https://api`,
		`curl -H "X-Auth-Token: t0k" u`:                                                             `curl -H "X-Auth-Token: [REDACTED]" u`,
		"mysql --password=s3cret -u root":                                                           "mysql --password=[REDACTED] -u root",
		"mysql -u root -ps3cret db":                                                                 "mysql -u root -p[REDACTED] db",
		"curl -u user:pw https://x":                                                                 "curl -u user:[REDACTED] https://x",
		"curl --user 'user:pw' https://x":                                                           "curl --user 'user:[REDACTED]' https://x",
		"sshpass -p hunter2 ssh host":                                                               "sshpass -p [REDACTED] ssh host",
		"openssl pkcs12 -in a.p12 -passin pass:hunter2 -out b":                                      "openssl pkcs12 -in a.p12 -passin pass:[REDACTED] -out b",
		"openssl enc -aes256 -k hunter2 -in f":                                                      "openssl enc -aes256 -k [REDACTED] -in f",
		"docker login -u me -p hunter2 registry.io":                                                 "docker login -u me -p [REDACTED] registry.io",
		"aws configure set aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY":          "aws configure set aws_secret_access_key [REDACTED]",
		"echo eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sig_nature":                                  "echo [REDACTED]",
		"echo ghp_abcdefghijklmnopqrstuvwxyz0123":                                                   "echo [REDACTED]",
		"printf '-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn\n-----END OPENSSH PRIVATE KEY-----\n'": "printf '-----BEGIN OPENSSH PRIVATE KEY-----[REDACTED]-----END PRIVATE KEY-----\n'",
		`{"password": "hunter2"}`:                                                                   `{"password": [REDACTED]}`,
		"ls -la /tmp":                                                                               "ls -la /tmp",
		"git show 3f786850e387550fdab836ed7e6dc881de23001b":                                         "git show 3f786850e387550fdab836ed7e6dc881de23001b",
		"mkdir -p /tmp/x && ssh -p 22 host && sort -u f":                                            "mkdir -p /tmp/x && ssh -p 22 host && sort -u f",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q)\n = %q\nwant %q", in, got, want)
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
