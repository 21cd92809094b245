package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/tmuxmcp/tmuxmcp/engine"
	"github.com/tmuxmcp/tmuxmcp/replay"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// recordUsage is `tmuxmcp record -h`.
const recordUsage = `usage: tmuxmcp record --pane %N [-o FILE] [-L NAME | -S PATH] [--state-dir DIR]

Saves what pane %N printed since tmuxmcp began recording it (its retained
output) as an asciicast v2 recording, the agent's commands marked; play it
with: asciinema play FILE. It asks the running tmuxmcp that records the
pane (through a socket in its state directory), so give the -L/-S and
--state-dir that tmuxmcp runs with (the defaults match tmuxmcp's).

flags:
`

// replayServer names a tmux server the way the replay sockets compare it.
func replayServer(t tmux.Target) string {
	if t.SocketPath != "" {
		if abs, err := filepath.Abs(t.SocketPath); err == nil {
			return "-S " + abs
		}
		return "-S " + t.SocketPath
	}
	return "-L " + t.SocketName
}

// serveReplay serves the local host's recordings to `tmuxmcp record`; a
// socket that cannot be made costs only the command (logged).
func serveReplay(stateDir string, target tmux.Target, local *engine.Host, log *slog.Logger) func() {
	stop, err := replay.Serve(stateDir, replayServer(target), func(ctx context.Context, pane string, w io.Writer) error {
		_, err := local.RecordPane(ctx, pane, w)
		return err
	}, log)
	if err != nil {
		log.Warn("tmuxmcp record cannot reach this tmuxmcp", "err", err)
		return func() {}
	}
	return stop
}

// record is `tmuxmcp record`.
func record(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tmuxmcp record", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var target tmux.Target
	var pane, out, stateDir string
	fs.StringVar(&pane, "pane", "", "the pane to record, e.g. %3 (required)")
	fs.StringVar(&out, "o", "-", "the file to write (made 0600; - is standard output)")
	fs.StringVar(&target.SocketName, "L", "", "the tmux socket name tmuxmcp runs with (default \"tmuxmcp\", unless -S is given)")
	fs.StringVar(&target.SocketPath, "S", "", "the tmux socket path tmuxmcp runs with")
	fs.StringVar(&stateDir, "state-dir", "", "tmuxmcp's --state-dir (default $XDG_STATE_HOME/tmuxmcp or ~/.local/state/tmuxmcp)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, recordUsage)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return nil
		}
		return usageError{fmt.Errorf("record: %w", err)}
	}
	switch {
	case fs.NArg() > 0:
		return usageError{fmt.Errorf("record: unexpected argument %q (the pane goes in --pane)", fs.Arg(0))}
	case pane == "":
		return usageError{errors.New("record: --pane is required, e.g. --pane %3 (list_panes or tmux's pane_id names the panes)")}
	}
	if target.SocketName == "" && target.SocketPath == "" {
		target.SocketName = "tmuxmcp"
	}
	if stateDir == "" {
		stateDir = engine.DefaultStateDir()
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cast, err := replay.Fetch(ctx, stateDir, replayServer(target), pane)
	if errors.Is(err, replay.ErrNoRecorder) {
		return fmt.Errorf("no running tmuxmcp records %s with state directory %s: a pane's recording lives in the memory of the tmuxmcp that records it (your MCP client starts it); give the -L/-S and --state-dir it runs with", target, stateDir)
	}
	if err != nil {
		return fmt.Errorf("record %s: %w", pane, err)
	}
	if out == "-" {
		_, err = stdout.Write(cast)
		return err
	}
	if err := os.WriteFile(out, cast, 0o600); err != nil {
		return fmt.Errorf("record: %w", err)
	}
	fmt.Fprintf(stderr, "saved pane %s's recording (%d bytes) to %s; play it with: asciinema play %s\n", pane, len(cast), out, shellQuote(out))
	return nil
}
