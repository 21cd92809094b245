// Package tmux is tmuxmcp's tmux control-mode client.
//
// It starts `tmux -C` children (one per tmux session), frames their
// %begin/%end/%error replies, decodes %output into bytes, handles pause-after
// flow control, and keeps a listing of every pane on the server. It is the
// other half of tmux's own control.c. It knows nothing of MCP, cursors or
// streams (output buffers): pane bytes and pane listings leave through the
// Events interface. It is the one room that speaks tmux's command language:
// other rooms call its typed methods (commands.go, typing.go, queries.go).
package tmux

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
)

// Target names a tmux server: the default one, a socket name (-L) or a
// socket path (-S), plus an optional config file (-f).
type Target struct {
	// SocketName is passed as -L when not empty.
	SocketName string
	// SocketPath is passed as -S when not empty; it wins over SocketName.
	SocketPath string
	// ConfigFile is passed as -f when not empty (tests use /dev/null).
	ConfigFile string
	// Binary is the tmux executable; "tmux" when empty.
	Binary string
	// Env, when set, replaces the environment of the tmux clients started
	// for this target, and so of a server they start (tests use a hermetic
	// one: their own HOME, no rc files of the invoking user).
	Env []string
	// Via, when set, runs tmux on another machine (package host: over
	// SSH); Env does not apply there.
	Via Transport
}

// Transport runs tmux on another machine.
type Transport interface {
	// Command returns the command that runs argv (the tmux binary and its
	// arguments) there. It is not started; ctx, when it ends, kills it.
	Command(ctx context.Context, argv []string) *exec.Cmd
	// String names the machine for messages.
	String() string
}

// SocketFile is the path of the server's socket on this machine: -S's
// path, or the -L name (default "default") in tmux's per-user directory
// ($TMUX_TMPDIR, else /tmp, then tmux-UID), as tmux picks it.
func (t Target) SocketFile() string {
	if t.SocketPath != "" {
		return t.SocketPath
	}
	name := t.SocketName
	if name == "" {
		name = "default"
	}
	dir := os.Getenv("TMUX_TMPDIR")
	if t.Env != nil {
		dir = ""
		for _, kv := range t.Env {
			if v, ok := strings.CutPrefix(kv, "TMUX_TMPDIR="); ok {
				dir = v
			}
		}
	}
	if dir == "" {
		dir = "/tmp"
	}
	return fmt.Sprintf("%s/tmux-%d/%s", strings.TrimRight(dir, "/"), os.Getuid(), name)
}

// String describes the server for logs and error messages.
func (t Target) String() string {
	if t.Via != nil {
		return Target{SocketName: t.SocketName, SocketPath: t.SocketPath}.String() + " on " + t.Via.String()
	}
	switch {
	case t.SocketPath != "":
		return "tmux -S " + t.SocketPath
	case t.SocketName != "":
		return "tmux -L " + t.SocketName
	}
	return "tmux (default server)"
}

// StartLine is the command a person runs to start this server again with a
// detached session of that name: "tmux -L work new-session -d -s agent".
func (t Target) StartLine(session string) string {
	base := Target{SocketName: t.SocketName, SocketPath: t.SocketPath}.String()
	if t.SocketName == "" && t.SocketPath == "" {
		base = "tmux"
	}
	return base + " new-session -d -s " + session
}

// DefaultShellLine is the command a person runs to make new panes of this
// server start program, and the line that keeps it in a tmux config file.
func (t Target) DefaultShellLine(program string) (command, config string) {
	base := Target{SocketName: t.SocketName, SocketPath: t.SocketPath}.String()
	if t.SocketName == "" && t.SocketPath == "" {
		base = "tmux"
	}
	return base + " set-option -g default-shell " + program, "set -g default-shell " + program
}

// Args returns the global tmux flags that select this server.
func (t Target) Args() []string {
	var a []string
	switch {
	case t.SocketPath != "":
		a = append(a, "-S", t.SocketPath)
	case t.SocketName != "":
		a = append(a, "-L", t.SocketName)
	}
	if t.ConfigFile != "" {
		a = append(a, "-f", t.ConfigFile)
	}
	return a
}

// machine names where tmux runs: "this machine" or the transport's host.
func (t Target) machine() string {
	if t.Via != nil {
		return t.Via.String()
	}
	return "this machine"
}

func (t Target) binary() string {
	if t.Binary != "" {
		return t.Binary
	}
	return "tmux"
}

// Command returns an exec.Cmd running tmux against this server with args.
// The environment drops TMUX and TMUX_PANE so tmuxmcp running inside tmux
// never talks to the enclosing server by accident.
func (t Target) Command(ctx context.Context, args ...string) *exec.Cmd {
	if t.Via != nil {
		return t.Via.Command(ctx, append(append([]string{t.binary(), "-u"}, t.Args()...), args...))
	}
	cmd := exec.CommandContext(ctx, t.binary(), append(append([]string{"-u"}, t.Args()...), args...)...)
	cmd.Env = cleanEnv(t.Env)
	return cmd
}

// Run runs one tmux command (a short-lived client, not the control
// connection) and returns its trimmed standard output.
func (t Target) Run(ctx context.Context, args ...string) (string, error) {
	cmd := t.Command(ctx, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("%s %s: %s", t, strings.Join(args, " "), msg)
	}
	return strings.TrimRight(stdout.String(), "\n"), nil
}

// Version returns the output of `tmux -V`, e.g. "tmux 3.3a".
func (t Target) Version(ctx context.Context) (string, error) {
	cmd := exec.CommandContext(ctx, t.binary(), "-V")
	if t.Via != nil {
		cmd = t.Via.Command(ctx, []string{t.binary(), "-V"})
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return "", fmt.Errorf("run %s -V on %s: %s", t.binary(), t.machine(), msg)
		}
		return "", fmt.Errorf("run %s -V: %w", t.binary(), err)
	}
	return strings.TrimSpace(string(out)), nil
}

// SessionSpec says how EnsureSession creates a missing session.
type SessionSpec struct {
	Name          string
	Width, Height int
	// Command is the first pane's program (argv); empty runs tmux's default
	// command (a login shell).
	Command []string
	// Env is extra environment for the first pane's program (only: later
	// windows of the session do not inherit it).
	Env map[string]string
	// PaneOptions are set on the first pane as it is created.
	PaneOptions map[string]string
	// WindowName names the first window from the start (its command, a
	// launcher, would otherwise name it "sh" or "tmux" until the shell
	// runs); "" names it after tmux's default-shell ("bash"), or leaves it
	// to tmux's automatic naming when a default-command is set (the shell
	// is then not known beforehand).
	WindowName string
}

// EnsureSession creates the session spec names (detached) unless it exists,
// starting the server if needed. created says it made it.
func (t Target) EnsureSession(ctx context.Context, spec SessionSpec) (created bool, err error) {
	if _, err := t.Run(ctx, "has-session", "-t", "="+spec.Name); err == nil {
		return false, nil
	}
	args := []string{"new-session", "-d", "-s", spec.Name, "-x", fmt.Sprint(spec.Width), "-y", fmt.Sprint(spec.Height), "-n", cmp.Or(spec.WindowName, "#{b:default-shell}")}
	for _, k := range slices.Sorted(maps.Keys(spec.Env)) {
		args = append(args, "-e", k+"="+spec.Env[k])
	}
	args = append(args, spec.Command...)
	for _, k := range slices.Sorted(maps.Keys(spec.PaneOptions)) {
		args = append(args, ";", "set-option", "-p", "-t", "="+spec.Name+":", k, spec.PaneOptions[k])
	}
	if spec.WindowName == "" {
		args = append(args, ";", "if-shell", "-F", "-t", "="+spec.Name+":", "#{default-command}", "set-option -w -t "+Quote("="+spec.Name+":")+" automatic-rename on")
	}
	for _, k := range slices.Sorted(maps.Keys(spec.Env)) {
		// new-session -e sets the session's environment: the first pane
		// has the variables; windows made later must not inherit them.
		args = append(args, ";", "set-environment", "-t", "="+spec.Name, "-u", k)
	}
	if _, err := t.Run(ctx, args...); err != nil {
		// Another process may have created it meanwhile.
		if _, err2 := t.Run(ctx, "has-session", "-t", "="+spec.Name); err2 == nil {
			return false, nil
		}
		return false, fmt.Errorf("create session %q: %w", spec.Name, err)
	}
	return true, nil
}

// ErrNoServer reports that no tmux server is listening on the target socket.
var ErrNoServer = errors.New("no tmux server is running on this socket")

// NoServer reports whether err says there was no server to reach:
// ErrNoServer, or tmux's own "no server running" or "server exited
// unexpectedly" (it ended before or as it answered).
func NoServer(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	return errors.Is(err, ErrNoServer) || strings.Contains(msg, "no server running") || strings.Contains(msg, "server exited unexpectedly")
}

// Crashed reports whether err, why a server was lost, says it ended
// unexpectedly (tmux's "server exited unexpectedly": a crash or a signal)
// rather than by its last session closing.
func Crashed(err error) bool {
	return err != nil && strings.Contains(err.Error(), "unexpectedly")
}

func cleanEnv(base []string) []string {
	env := base
	if env == nil {
		env = os.Environ()
	}
	out := env[:0:0]
	for _, kv := range env {
		// TMUX and TMUX_PANE name another server; relayReadyEnv is this
		// process's own note (RelayMain), not for the shells of its panes;
		// the Telegram approver's bot token and the HTTP transport's bearer
		// token are not the agent's.
		if strings.HasPrefix(kv, "TMUX=") || strings.HasPrefix(kv, "TMUX_PANE=") || strings.HasPrefix(kv, relayReadyEnv+"=") || strings.HasPrefix(kv, "TMUXMCP_TELEGRAM_TOKEN=") || strings.HasPrefix(kv, "TMUXMCP_TOKEN=") {
			continue
		}
		out = append(out, kv)
	}
	return out
}
