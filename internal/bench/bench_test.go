package bench

import (
	"strings"
	"testing"
)

// BenchmarkHotPath runs every case of Cases as a sub-benchmark:
//
//	go test -run '^$' -bench . ./internal/bench
func BenchmarkHotPath(b *testing.B) {
	for _, c := range Cases() {
		b.Run(strings.ReplaceAll(c.Name, "/", "-"), c.F)
	}
}

// TestCasesRun runs each case once, so a broken benchmark fails `make test`.
func TestCasesRun(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	for _, c := range Cases() {
		if strings.Contains(c.Name, "Waiters/1000") || strings.Contains(c.Name, "64MiB") {
			continue // seconds each under -race; the bench run covers them
		}
		t.Run(c.Name, func(t *testing.T) {
			r := testing.Benchmark(c.F)
			if r.N == 0 {
				t.Fatalf("%s did not run", c.Name)
			}
		})
	}
}
