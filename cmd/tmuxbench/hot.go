package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/tmuxmcp/tmuxmcp/internal/bench"
)

// hotResult is one hot-path benchmark's figures.
type hotResult struct {
	name        string
	nsOp, mbps  float64
	base, ratio string
}

// sectionHot is section 6: the hot-path benchmarks of internal/bench,
// run in this process through testing.Benchmark.
func sectionHot(ctx context.Context, _ config, rep *report) error {
	res := map[string]testing.BenchmarkResult{}
	var order []string
	for _, c := range bench.Cases() {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		runtime.GC() // no case pays for the garbage of the one before
		debug.FreeOSMemory()
		r := testing.Benchmark(c.F)
		if r.N == 0 {
			return fmt.Errorf("benchmark %s failed", c.Name)
		}
		res[c.Name] = r
		order = append(order, c.Name)
	}
	mbps := func(name string) float64 {
		r := res[name]
		if r.Bytes == 0 || r.T == 0 {
			return 0
		}
		return float64(r.Bytes) * float64(r.N) / 1e6 / r.T.Seconds()
	}
	ns := func(name string) float64 { return float64(res[name].NsPerOp()) }
	// What each benchmark is compared with.
	against := map[string]string{
		"PlainDecode":                "Floor",
		"Matcher/literal-64":         "Matcher/literal-1",
		"Matcher/regex-1":            "Matcher/literal-1",
		"Matcher/regex-64":           "Matcher/regex-1",
		"Matcher/regex-1-unfiltered": "Matcher/regex-1",
		"WaitScan/literal":           "PlainDecode",
		"WaitScan/regex":             "WaitScan/literal",
		"Waiters/100":                "Waiters/1",
		"Waiters/1000":               "Waiters/1",
		"RegexWaiters/100":           "RegexWaiters/1",
		"NewLine/retained-64MiB":     "NewLine/retained-0",
		"NewLine/others-1000":        "NewLine/retained-0",
	}
	for _, name := range order {
		h := hotResult{name: name, nsOp: ns(name), mbps: mbps(name), base: "—", ratio: "—"}
		if b, ok := against[name]; ok {
			h.base = b
			if h.mbps > 0 && mbps(b) > 0 {
				h.ratio = fmt.Sprintf("%.3f× throughput", h.mbps/mbps(b))
			} else {
				h.ratio = fmt.Sprintf("%.2f× time", h.nsOp/ns(b))
			}
		}
		rep.hot = append(rep.hot, h)
	}
	const sec = "6 hot paths"
	rep.add(row{sec, "plain-view decoder", fmt.Sprintf("%.0f MB/s", mbps("PlainDecode")), fmt.Sprintf("split and copy lines %.0f MB/s", mbps("Floor")), fmt.Sprintf("%.3f", mbps("PlainDecode")/mbps("Floor")), "", ""})
	for _, n := range []string{"Matcher/literal-1", "Matcher/literal-64", "Matcher/regex-1", "Matcher/regex-64", "Matcher/regex-1-unfiltered"} {
		x := row{sec, "match " + n[len("Matcher/"):] + " (line-local)", fmt.Sprintf("%.0f MB/s", mbps(n)), fmt.Sprintf("literal-1 %.0f MB/s", mbps("Matcher/literal-1")), fmt.Sprintf("%.3f", mbps(n)/mbps("Matcher/literal-1")), "", ""}
		if n == "Matcher/literal-64" {
			x.target, x.verdict = "≥ 200 MB/s", verdict(mbps(n) >= 200)
		}
		rep.add(x)
	}
	for _, n := range []string{"Waiters/1", "Waiters/100", "Waiters/1000"} {
		var k float64
		_, _ = fmt.Sscanf(n, "Waiters/%g", &k)
		x := row{sec, fmt.Sprintf("%s literal waiters on one pane: output seen by all", n[len("Waiters/"):]), fmt.Sprintf("%.2f MB/s (%.0f MB/s as %s scans)", mbps(n), k*mbps(n), n[len("Waiters/"):]), fmt.Sprintf("1 waiter %.1f MB/s", mbps("Waiters/1")), fmt.Sprintf("%.3f", mbps(n)/mbps("Waiters/1")), "", ""}
		switch n {
		case "Waiters/100":
			x.target, x.verdict = "≥ 100 MB/s", verdict(mbps(n) >= 100)
		case "Waiters/1000":
			x.target, x.verdict = "≥ 50 MB/s", verdict(mbps(n) >= 50)
		}
		rep.add(x)
	}
	rep.add(row{sec, "100 regex waiters on one pane: output seen by all (shared decoding)", fmt.Sprintf("%.2f MB/s", mbps("RegexWaiters/100")), fmt.Sprintf("1 regex waiter %.1f MB/s", mbps("RegexWaiters/1")), fmt.Sprintf("%.3f", mbps("RegexWaiters/100")/mbps("RegexWaiters/1")), "", ""})
	base := ns("NewLine/retained-0")
	for _, c := range []struct{ name, what string }{
		{"NewLine/retained-64MiB", "new line found with 64 MiB retained before it"},
		{"NewLine/others-1000", "new line found with 1000 waits on other panes"},
	} {
		r := ns(c.name) / base
		rep.add(row{sec, c.what, fmt.Sprintf("%.1f µs", ns(c.name)/1e3), fmt.Sprintf("nothing retained %.1f µs", base/1e3), fmt.Sprintf("%.2f", r), "does not grow (≤ 1.25×)", verdict(r <= 1.25)})
	}
	return nil
}
