package audit

import (
	"strings"
	"testing"
)

// command4K is a 4 KiB command as agents send them: a long script of
// ordinary lines with a few secrets among them.
func command4K() string {
	lines := []string{
		"cd /srv/app && git status --short && git log --oneline -20 | head -5",
		"find . -name '*.go' -not -path './vendor/*' | xargs grep -n 'func ' | sort -u | wc -l",
		"docker build -t registry.example.com/team/app:$(git rev-parse --short HEAD) --build-arg GO_VERSION=1.22 .",
		"for f in $(ls -1 testdata/*.json); do jq -r '.items[] | .name' \"$f\" >> /tmp/names.txt; done",
		"kubectl get pods -n prod -o wide --sort-by=.status.startTime | awk '{print $1, $3}' | tail -n 20",
		"export DATABASE_URL=postgres://app:S3cretPw@db.internal:5432/app && make migrate",
		"curl -sS -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln' https://api.example.com/v1/status",
		"rsync -avz --delete --exclude '.git' ./build/ deploy@web01.example.com:/var/www/app/",
		"python3 -m pytest -x -q tests/ --maxfail=3 -k 'not slow' 2>&1 | tee /tmp/pytest.log",
		"gh auth login --with-token <<< ghp_abcdefghijklmnopqrstuvwxyz0123456789",
	}
	var b strings.Builder
	for b.Len() < 4096 {
		for _, l := range lines {
			b.WriteString(l)
			b.WriteString("\n")
		}
	}
	return b.String()[:4096]
}

// benign4K is a 4 KiB command with nothing to redact.
func benign4K() string {
	var b strings.Builder
	for b.Len() < 4096 {
		b.WriteString("find . -name '*.go' -not -path './vendor/*' | xargs grep -n 'func ' | sort -u | wc -l && git status --short\n")
	}
	return b.String()[:4096]
}

func BenchmarkRedact4KiB(b *testing.B) {
	s := command4K()
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Redact(s)
	}
}

func BenchmarkRedact4KiBBenign(b *testing.B) {
	s := benign4K()
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Redact(s)
	}
}

func BenchmarkRedactShort(b *testing.B) {
	for b.Loop() {
		Redact("git status && go test ./... -run TestX -count=1")
	}
}
