// Command tmuxbench is tmuxmcp's benchmark suite (`make bench`). It
// measures, each against a baseline taken in the same run on its own
// private tmux server:
//
//  1. wait latency: wait_for_text through the tmuxmcp binary over stdio vs
//     a bare `tmux -C` reader vs capture-pane polling at 100 and 50 ms;
//  2. run round trip: run_shell_command true (existing and fresh pane, and
//     with a prompt that costs 200 ms) vs spawning bash -c true, the
//     shell's own start-up and a plain prompt;
//  3. ingest: cat of a large file with no control client, a bare reader,
//     and tmuxmcp holding 10 open waits on the pane;
//  4. idle cost: CPU and tmux processes spawned with 20 idle panes and 100
//     open waits, beside a 100 ms polling loop;
//  5. memory: RSS with -panes (100) panes whose buffers are full;
//  6. hot paths: decoder, matcher and waiter benchmarks (internal/bench);
//  7. scale: wait latency as panes and open waits grow;
//  8. sandbox: create_pane and run_shell_command true with --sandbox
//     workspace beside the same without;
//  9. under load (tail): wait latency with two busy loops running, against
//     the bare reader floor measured in turns with it;
//  10. peers (with -peers only): another MCP server for tmux, libtmux-go's
//     libtmux-mcp (make peer builds it), beside tmuxmcp: wait latency, run
//     round trip, tmux processes spawned per call, idle CPU.
//
// It prints one markdown table and writes docs/bench.md and docs/bench.svg.
//
//	go run ./cmd/tmuxbench [-tmuxmcp bin/tmuxmcp] [-only latency,run,...] [-peers libtmux-mcp] [-out docs]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// config is what the flags set.
type config struct {
	binary     string
	n          int
	every      time.Duration
	ingestMB   int
	ingestRuns int
	idle       time.Duration
	panes      int
	out        string
	pprof      string // directory for tmuxmcp CPU profiles, one per process
	section    string // the section running
	peers      []peer // other MCP servers measured beside tmuxmcp (-peers)
}

type section struct {
	name string
	run  func(context.Context, config, *report) error
}

var sections = []section{
	{"latency", sectionLatency},
	{"run", sectionRun},
	{"ingest", sectionIngest},
	{"idle", sectionIdle},
	{"memory", sectionMemory},
	{"hot", sectionHot},
	{"scale", sectionScale},
	{"ssh", sectionSSH},
	{"sandbox", sectionSandbox},
	{"tail", sectionTail},
	{"peers", sectionPeers},
}

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "emit":
			emit(os.Args[2:])
			return
		case "poll":
			poll(os.Args[2:])
			return
		case "build-peer":
			buildPeer(os.Args[2:])
			return
		}
	}
	var cfg config
	var only, peers string
	flag.StringVar(&cfg.binary, "tmuxmcp", "bin/tmuxmcp", "the tmuxmcp binary to measure (make bench builds it)")
	flag.IntVar(&cfg.n, "n", 200, "samples per latency and run row")
	flag.DurationVar(&cfg.every, "every", 20*time.Millisecond, "spacing of printed timestamps")
	flag.IntVar(&cfg.ingestMB, "ingest-mb", 50, "size of the file cat prints in the ingest section, MiB")
	flag.IntVar(&cfg.ingestRuns, "ingest-runs", 5, "runs per ingest row (the median is reported)")
	flag.DurationVar(&cfg.idle, "idle", time.Minute, "idle-cost window")
	flag.IntVar(&cfg.panes, "panes", 100, "panes for the memory section and the top of the scale curve")
	flag.StringVar(&cfg.out, "out", "docs", "directory for bench.md and bench.svg (empty: write nothing)")
	flag.StringVar(&cfg.pprof, "pprof", "", "write a CPU profile of every tmuxmcp process the suite starts into this directory (<section>-<n>.prof)")
	flag.StringVar(&only, "only", "", "comma-separated sections to run (default all): latency,run,ingest,idle,memory,hot,scale,ssh,sandbox,tail,peers")
	flag.StringVar(&peers, "peers", "", "other MCP servers to measure beside tmuxmcp in section peers, comma-separated: a name in bin/peers (make peer builds libtmux-mcp there) or a path to the binary")
	flag.Parse()
	if err := run(cfg, only, peers); err != nil {
		fmt.Fprintln(os.Stderr, "tmuxbench:", err)
		os.Exit(1)
	}
}

func run(cfg config, only, peers string) error {
	abs, err := filepath.Abs(cfg.binary)
	if err != nil {
		return err
	}
	if _, err := os.Stat(abs); err != nil {
		return fmt.Errorf("%w (build it first: make build, or pass -tmuxmcp)", err)
	}
	cfg.binary = abs
	if cfg.peers, err = resolvePeers(peers); err != nil {
		return err
	}
	want := strings.FieldsFunc(only, func(r rune) bool { return r == ',' })
	for _, w := range want {
		if !slices.ContainsFunc(sections, func(s section) bool { return s.name == w }) {
			return fmt.Errorf("-only: unknown section %q", w)
		}
	}
	// Ctrl-C ends the running section through its context, and the
	// section's deferred clean-up kills its private tmux server.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep := &report{started: time.Now()}
	for _, s := range sections {
		if len(want) > 0 && !slices.Contains(want, s.name) {
			continue
		}
		if s.name == "peers" && len(cfg.peers) == 0 && len(want) == 0 {
			continue // without -peers the suite is what it always was
		}
		t := time.Now()
		fmt.Fprintf(os.Stderr, "tmuxbench: %s ...\n", s.name)
		cfg.section = s.name
		if err := s.run(ctx, cfg, rep); err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("%s: interrupted", s.name)
			}
			return fmt.Errorf("%s: %w", s.name, err)
		}
		fmt.Fprintf(os.Stderr, "tmuxbench: %s done in %v\n", s.name, time.Since(t).Round(time.Millisecond))
	}
	rep.table(os.Stdout)
	if cfg.out == "" {
		return nil
	}
	if err := os.MkdirAll(cfg.out, 0o755); err != nil {
		return err
	}
	var md strings.Builder
	rep.markdown(&md, cfg)
	if err := os.WriteFile(filepath.Join(cfg.out, "bench.md"), []byte(md.String()), 0o644); err != nil {
		return err
	}
	if len(rep.scale) > 0 {
		if err := os.WriteFile(filepath.Join(cfg.out, "bench.svg"), []byte(svg(rep.scale, rep.scaleFloor, rep.scaleFloorAll)), 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "tmuxbench: wrote %s\n", filepath.Join(cfg.out, "bench.md"))
	return nil
}
