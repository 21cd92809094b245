// Command tmuxmcp is an MCP server that gives AI agents exact, streaming
// control of shells in tmux panes while people watch the same panes.
//
// Usage:
//
//	tmuxmcp [flags]        serve MCP over stdio
//	tmuxmcp doctor [flags] check tmux, the server and the panes
//	tmuxmcp record --pane %N -o FILE  save a pane's recording (asciicast)
//	tmuxmcp version        print the version (also --version)
//	tmuxmcp help           print the usage (also -h, --help)
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/audit"
	"github.com/tmuxmcp/tmuxmcp/engine"
	"github.com/tmuxmcp/tmuxmcp/httpmcp"
	"github.com/tmuxmcp/tmuxmcp/policy"
	"github.com/tmuxmcp/tmuxmcp/sandbox"
	"github.com/tmuxmcp/tmuxmcp/shell"
	"github.com/tmuxmcp/tmuxmcp/stdio"
	"github.com/tmuxmcp/tmuxmcp/stream"
	"github.com/tmuxmcp/tmuxmcp/tmux"
	"github.com/tmuxmcp/tmuxmcp/tools"
)

// version is set with -ldflags "-X main.version=..."; otherwise the module
// version from the build info is used.
var version = ""

// revision and committed are the VCS revision and commit date, set by
// make with -ldflags "-X main.revision=... -X main.committed=..."; without
// them the build info's vcs settings are used, when the build recorded any.
var (
	revision  = ""
	committed = ""
)

func main() {
	tmux.RelayMain() // started by tmux's pipe-pane: hand the pane's output over and exit
	// TMUXMCP_CPUPROFILE=file writes a CPU profile of the whole run, for
	// `go tool pprof` (the benchmark suite's -pprof flag sets it).
	if path := os.Getenv("TMUXMCP_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			if pprof.StartCPUProfile(f) == nil {
				defer pprof.StopCPUProfile()
			}
		}
	}
	if err := run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "tmuxmcp:", err)
		var bad usageError
		if errors.As(err, &bad) {
			fmt.Fprintln(os.Stderr, "run 'tmuxmcp --help' for the subcommands and flags")
			os.Exit(2)
		}
		os.Exit(1)
	}
}

type config struct {
	target       tmux.Target
	session      string
	retain       int
	retainAll    int
	waitMax      time.Duration
	stateDir     string
	approval     string
	def          policy.Action // --approval, parsed
	policy       string
	audit        string
	review       time.Duration
	via          string
	viaList      []string // --approval-via, split
	approver     string   // the exec: program of --approval-via
	approverArgs []string // its arguments (--approval-via telegram)
	telegram     telegramFlags
	httpAddr     string
	remote       bool
	keepPagers   bool
	tokenFile    string
	tlsCert      string          // --tls-cert
	tlsKey       string          // --tls-key
	origins      httpmcp.Origins // --allow-origin
	maxSess      int             // --max-sessions
	noAuth       bool
	embedded     bool // the private default server, which tmuxmcp restarts itself
	idle         time.Duration
	logLevel     slog.Level
	shellWait    time.Duration  // doctor: how long the shell may take to start
	keepDone     time.Duration  // how long a finished fresh-pane job's window stays
	hosts        hostFlags      // --host, and the --config file's hosts
	sshConfig    string         // --ssh-config
	configFile   string         // --config
	sandboxMode  string         // --sandbox
	workspaces   workspaceFlags // --workspace
	sandboxNet   bool           // --sandbox-network
	sandbox      sandbox.Config // the three, checked
	shell        string         // --shell, its absolute path once checked
	ingest       string         // --ingest: pipe or control
	toolsSpec    string         // --tools: tool and set names
}

// usageError is a command line tmuxmcp cannot take: it exits 2, with a
// hint to --help.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// parseFlags parses args; on -h or --help it prints the usage on usage
// and returns flag.ErrHelp. Every other error is a usageError.
func parseFlags(name string, args []string, usage io.Writer) (*config, error) {
	c, err := parseArgs(name, args, usage)
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		return nil, usageError{err}
	}
	return c, err
}

func parseArgs(name string, args []string, usage io.Writer) (*config, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are returned; the usage is printed on request
	c := &config{}
	debugLog, showVersion := c.defineFlags(fs)
	fs.Usage = func() {} // the flag package calls it on every error too
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(usage, usageText)
			fs.SetOutput(usage)
			fs.PrintDefaults()
		}
		return nil, err
	}
	if *showVersion {
		return nil, errVersion
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q (see tmuxmcp -h)", fs.Arg(0))
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	if *debugLog {
		c.logLevel = slog.LevelDebug
	}
	return c, nil
}

// defineFlags defines tmuxmcp's flags on fs, parsed into c, and returns the
// two that are not settings: --debug and --version.
func (c *config) defineFlags(fs *flag.FlagSet) (debugLog, showVersion *bool) {
	fs.StringVar(&c.target.SocketName, "L", "", "tmux socket name (tmux -L); default \"tmuxmcp\", a private server, unless -S is given")
	fs.StringVar(&c.target.SocketPath, "S", "", "tmux socket path (tmux -S)")
	fs.StringVar(&c.target.ConfigFile, "tmux-config", "", "tmux config file for a server tmuxmcp starts (tmux -f); default: tmux's own default")
	fs.StringVar(&c.session, "session", "agent", "session to create panes in; created if missing")
	fs.IntVar(&c.retain, "retain", stream.DefaultRetain, "bytes of output retained per pane")
	fs.IntVar(&c.retainAll, "retain-total", stream.DefaultRetainTotal, "bytes of output retained across all panes; past it the least recently written panes lose their oldest bytes first")
	fs.DurationVar(&c.waitMax, "wait-max", engine.DefaultWaitMax, "ceiling on wait_for_text timeouts")
	fs.StringVar(&c.stateDir, "state-dir", "", "directory for job records and outputs, made 0700 (default $XDG_STATE_HOME/tmuxmcp or ~/.local/state/tmuxmcp); one another user owns or may write is refused")
	fs.StringVar(&c.approval, "approval", "auto", "what commands not matched by a --policy rule get: auto (run), ask (a person attached to tmux approves each in a popup) or deny (blocked)")
	fs.StringVar(&c.policy, "policy", "", "JSON policy file: {\"rules\": [{\"action\": \"allow|ask|deny\", \"command\": \"regex\", \"program\": \"regex\", \"cwd\": \"regex\"}]}, first match wins")
	fs.DurationVar(&c.review, "review-timeout", engine.DefaultReviewTimeout, "how long a person has to answer an approval prompt before the command is denied (denied-timeout)")
	fs.StringVar(&c.httpAddr, "http", "", fmt.Sprintf("serve Streamable HTTP at http://ADDR/mcp (https:// with --tls-cert) instead of stdio, e.g. 127.0.0.1:8765 (a bearer token is required unless --no-auth); requests without it are refused from their headers, bodies must arrive within %v, idle connections close after %v", httpmcp.DefaultBodyTimeout, httpmcp.IdleConnTimeout))
	fs.BoolVar(&c.keepPagers, "keep-pagers", false, "leave PAGER, GIT_PAGER, MANPAGER, SYSTEMD_PAGER, PSQL_PAGER, GH_PAGER and AWS_PAGER as your shell sets them in the panes tmuxmcp starts (default: set so git log, man, journalctl and psql print instead of opening a pager that waits for a key)")
	fs.BoolVar(&c.remote, "allow-remote", false, "allow --http on a non-loopback address; give --tls-cert and --tls-key too, or the bearer token crosses the network in clear text (logged as a warning)")
	fs.StringVar(&c.tlsCert, "tls-cert", "", "serve --http over TLS (https://) with this PEM certificate file (chain first); needs --tls-key")
	fs.StringVar(&c.tlsKey, "tls-key", "", "the PEM private key file of --tls-cert")
	fs.Var(&c.origins, "allow-origin", "with --http, also serve requests whose Origin header is this `scheme://host[:port]` (exact match; repeat the flag or separate with commas); requests from other origins get 403, except tmuxmcp's own and loopback origins on its port; requests without an Origin (CLI clients) are always served")
	fs.IntVar(&c.maxSess, "max-sessions", httpmcp.DefaultMaxSessions, fmt.Sprintf("with --http, the most live sessions (1..%d); past it a new session replaces the least recently active one idle for %v with no request open, or is refused with 503 and Retry-After", httpmcp.MaxSessionsLimit, httpmcp.DefaultEvictIdle))
	fs.StringVar(&c.tokenFile, "token-file", "", "file holding the HTTP bearer token (default: $TMUXMCP_TOKEN, else a generated token saved under --state-dir); tmuxmcp refuses to start if the file is not yours or group or others may read it (fix: chmod 600)")
	fs.BoolVar(&c.noAuth, "no-auth", false, "serve --http without a bearer token (loopback addresses only; for clients that cannot send one, such as the MCP conformance suite)")
	fs.DurationVar(&c.idle, "session-timeout", 30*time.Minute, "close HTTP sessions that sent no request this long (0: never); a session that only listens for resource updates counts as idle")
	fs.StringVar(&c.via, "approval-via", "tmux,elicitation", "how to ask a person, in order: tmux (a popup on attached clients), elicitation (the MCP client asks its user), exec:PROGRAM (a program of yours gets the request as JSON on stdin and prints approve or deny; it races the popups), telegram (Approve/Deny buttons in the --telegram-chats of your bot: tmuxmcp approve-telegram as the exec: program)")
	c.telegram.define(fs)
	fs.StringVar(&c.audit, "audit", "", "append a JSON line per approval decision and per command completion to this file (secrets redacted)")
	fs.Var(&c.hosts, "host", "drive tmux on another machine too: `NAME=ssh://[user@]host[:port]` (repeatable; tools take host: NAME). tmuxmcp keeps one OpenSSH connection per host (your ~/.ssh/config, keys, agent and known_hosts; BatchMode, so set up key login first) and starts a private tmux server there (tmux -L tmuxmcp; ?socket=NAME picks another)")
	fs.StringVar(&c.sshConfig, "ssh-config", "", "ssh client config file passed as ssh -F to every ssh tmuxmcp runs (default: ssh's own, ~/.ssh/config)")
	fs.StringVar(&c.configFile, "config", "", "JSON config file with hosts: {\"hosts\": {\"build\": \"ssh://ci@build.example.com\"}}")
	fs.StringVar(&c.toolsSpec, "tools", "all", "the tools served, comma-separated: sets ("+tools.ToolSetNames+"; observe only reads) and tool names, e.g. observe or observe,run_shell_command: fewer tools, less context in every conversation")
	fs.StringVar(&c.ingest, "ingest", cmp.Or(os.Getenv("TMUXMCP_INGEST"), tmux.IngestPipe), "how panes' output is read: pipe (raw through tmux's pipe-pane, a pane someone else pipes falls back to control) or control (tmux's %output for every pane)")
	fs.StringVar(&c.shell, "shell", "", "the shell the panes tmuxmcp starts run, e.g. /bin/bash (default: tmux's default-shell, which is $SHELL when tmuxmcp starts the server); one of "+shell.Supported+"; your own login shell stays as it is")
	fs.StringVar(&c.sandboxMode, "sandbox", "off", sandboxHelp)
	fs.Var(&c.workspaces, "workspace", "with --sandbox workspace, a `DIR` writable inside the sandbox (repeatable; default: the directory tmuxmcp was started in; must exist)")
	fs.BoolVar(&c.sandboxNet, "sandbox-network", false, "give sandboxed panes the host's network (default: none, not even the host's 127.0.0.1)")
	debugLog = fs.Bool("debug", false, "log debug messages to stderr")
	fs.DurationVar(&c.keepDone, "keep-finished", 10*time.Minute, "how long the window of a command run in a fresh pane (run_shell_command without paneId, not keep) stays once it ended, dead, showing its output and exit status (\"Pane is dead (status 2, …)\"), its name marked ✓ or ✗ and the status; or until the next such command ends (only the last one is kept); 0 closes it at once")
	fs.DurationVar(&c.shellWait, "shell-wait", 20*time.Second, "doctor: how long the shell tmuxmcp starts may take to show its first prompt")
	showVersion = fs.Bool("version", false, "print the version and exit (also: tmuxmcp version)")
	return debugLog, showVersion
}

// validate checks the parsed flags, fills in what follows from them (the
// default socket, the approval channels, the --config file's hosts,
// the --approval action) and returns the first flag tmuxmcp cannot take.
func (c *config) validate() error {
	if c.target.SocketName == "" && c.target.SocketPath == "" {
		c.target.SocketName = "tmuxmcp"
		c.embedded = true
	}
	if c.retain < 4096 {
		return fmt.Errorf("--retain %d: must be at least 4096 bytes", c.retain)
	}
	if c.waitMax < time.Second {
		return fmt.Errorf("--wait-max %v: must be at least 1s", c.waitMax)
	}
	if _, err := tools.SelectTools(c.toolsSpec, tools.AllToolNames()); err != nil {
		return err
	}
	if c.ingest != tmux.IngestPipe && c.ingest != tmux.IngestControl {
		return fmt.Errorf("--ingest %q: use pipe (the default) or control", c.ingest)
	}
	c.viaList = nil
	for _, v := range strings.Split(c.via, ",") {
		switch prog, isExec := strings.CutPrefix(v, "exec:"); {
		case v == "tmux" || v == "elicitation":
			c.viaList = append(c.viaList, v)
		case v == "telegram":
			if c.approver != "" {
				return fmt.Errorf("--approval-via %q: one exec: program or telegram at most", c.via)
			}
			if err := c.useTelegram(); err != nil {
				return err
			}
			c.viaList = append(c.viaList, "exec")
		case isExec && prog != "":
			path, err := exec.LookPath(prog)
			if err != nil {
				return fmt.Errorf("--approval-via exec:%s: %w (give the path of an executable program that reads the request as JSON on stdin and prints approve or deny)", prog, err)
			}
			if c.approver != "" {
				return fmt.Errorf("--approval-via %q: one exec: program or telegram at most", c.via)
			}
			c.approver, _ = filepath.Abs(path)
			c.viaList = append(c.viaList, "exec")
		default:
			return fmt.Errorf("--approval-via %q: use tmux, elicitation, telegram and exec:PROGRAM, comma-separated (e.g. tmux,exec:/usr/local/bin/ask-phone or tmux,telegram)", c.via)
		}
	}
	if c.keepDone < 0 || c.keepDone > 24*time.Hour {
		return fmt.Errorf("--keep-finished %v: must be 0 (close at once) to 24h, e.g. 10m", c.keepDone)
	}
	if (c.telegram.chats != "" || c.telegram.tokenFile != "") && (len(c.approverArgs) == 0 || c.approverArgs[0] != approveTelegramCmd) {
		return fmt.Errorf("--telegram-chats and --telegram-token-file take effect with --approval-via telegram (e.g. --approval-via tmux,telegram); --approval-via is %q", c.via)
	}
	if c.shellWait < time.Second || c.shellWait > 90*time.Second {
		return fmt.Errorf("--shell-wait %v: must be 1s..90s", c.shellWait)
	}
	if c.idle != 0 && c.idle < time.Second {
		return fmt.Errorf("--session-timeout %v: must be at least 1s (0 keeps idle sessions open)", c.idle)
	}
	if c.maxSess < 1 || c.maxSess > httpmcp.MaxSessionsLimit {
		return fmt.Errorf("--max-sessions %d: must be 1..%d", c.maxSess, httpmcp.MaxSessionsLimit)
	}
	if (c.tlsCert == "") != (c.tlsKey == "") {
		return fmt.Errorf("--tls-cert %q --tls-key %q: give both (the PEM certificate and its private key) or neither", c.tlsCert, c.tlsKey)
	}
	if c.noAuth && (c.httpAddr == "" || !httpmcp.Loopback(c.httpAddr)) {
		return fmt.Errorf("--no-auth is only allowed with --http on a loopback address (127.0.0.1:PORT)")
	}
	if c.httpAddr != "" && !httpmcp.Loopback(c.httpAddr) && !c.remote {
		return fmt.Errorf("--http %s is not a loopback address: anyone who can reach it could drive your shells. Use 127.0.0.1:PORT, or add --allow-remote if you mean it", c.httpAddr)
	}
	if c.configFile != "" {
		if err := loadConfig(c.configFile, &c.hosts.specs); err != nil {
			return err
		}
	}
	if c.sshConfig != "" {
		if _, err := os.Stat(c.sshConfig); err != nil {
			return fmt.Errorf("--ssh-config %s: %w", c.sshConfig, err)
		}
		c.sshConfig, _ = filepath.Abs(c.sshConfig)
	}
	if err := c.validateShell(); err != nil {
		return err
	}
	var err error
	if c.def, err = policy.ParseAction(c.approval); err != nil {
		return fmt.Errorf("--approval: %w", err)
	}
	return c.validateSandbox()
}

// validateShell checks --shell: an installed shell tmuxmcp runs commands
// in, made absolute.
func (c *config) validateShell() error {
	if c.shell == "" {
		return nil
	}
	path, err := exec.LookPath(c.shell)
	if err != nil {
		return fmt.Errorf("--shell %s: %w (give the path of an installed shell: %s)", c.shell, err, shell.Supported)
	}
	if _, ok := shell.KindOf(path); !ok {
		return fmt.Errorf("--shell %s: not a shell tmuxmcp runs commands in; use one of %s", c.shell, shell.Supported)
	}
	c.shell, _ = filepath.Abs(path)
	return nil
}

// usageText heads the usage; the flags follow it.
const usageText = `usage: tmuxmcp [flags]          serve MCP over stdio (what MCP client configs launch)
       tmuxmcp --http ADDR     serve Streamable HTTP at http://ADDR/mcp instead
       tmuxmcp doctor [flags]  check tmux, your shell with the integration, the state directory
       tmuxmcp approve-telegram  ask on Telegram (an --approval-via exec: program; see approve-telegram -h)
       tmuxmcp record --pane %N -o FILE
                               save a pane's recording, the agent's commands
                               marked (asciinema play FILE; record -h for more)
       tmuxmcp version         print the version, VCS revision and build date
       tmuxmcp help            print this

With no flags it starts (or reuses) a private tmux server (-L tmuxmcp) with a
session "agent"; watch it with: tmux -L tmuxmcp attach -t agent

flags:
`

// errVersion is parseFlags' answer to --version.
var errVersion = errors.New("version requested")

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cmd := ""
	if len(args) > 0 {
		switch args[0] {
		case "doctor", "version", "help":
			cmd, args = args[0], args[1:]
		case approveTelegramCmd:
			return approveTelegram(ctx, args[1:], stdin, stdout, stderr)
		case "record":
			return record(ctx, args[1:], stdout, stderr)
		}
	}
	switch cmd {
	case "version", "help":
		if len(args) > 0 {
			return usageError{fmt.Errorf("%s takes no arguments, got %q", cmd, strings.Join(args, " "))}
		}
		if cmd == "help" {
			_, err := parseFlags("tmuxmcp", []string{"-h"}, stdout)
			if errors.Is(err, flag.ErrHelp) {
				err = nil
			}
			return err
		}
		fmt.Fprintln(stdout, versionLine())
		return nil
	}
	c, err := parseFlags("tmuxmcp", args, stdout)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return nil
	case errors.Is(err, errVersion):
		fmt.Fprintln(stdout, versionLine())
		return nil
	case err != nil:
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: c.logLevel}))
	if cmd == "doctor" {
		return doctor(ctx, c, stdout)
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serve(ctx, c, args, stdin, stdout, stderr, log)
}

// versionLine is what version prints: the module version, and the VCS
// revision and date the binary was built from when the build recorded
// them (go build in a git checkout does).
func versionLine() string {
	line := "tmuxmcp " + versionString()
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = &debug.BuildInfo{}
	}
	rev, at, dirty := revision, committed, ""
	if rev == "" { // make's -ldflags did not say: the build info may
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				at = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = " (modified)"
				}
			}
		}
	}
	if rev != "" {
		line += " revision " + rev + dirty
	}
	if at != "" {
		line += " committed " + at
	}
	if bi.GoVersion != "" {
		line += " " + bi.GoVersion
	}
	return line
}

func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// serve runs the MCP server on stdio, or on HTTP with --http. hints gets
// the plain lines a person pastes (how to watch, how to connect).
func serve(ctx context.Context, c *config, args []string, stdin io.Reader, stdout, hints io.Writer, log *slog.Logger) error {
	startCtx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if _, err := c.target.Version(startCtx); err != nil {
		return fmt.Errorf("tmux is not installed or not on PATH (%v): install it, e.g. apt-get install tmux", err)
	}
	stateDir := c.stateDir
	if stateDir == "" {
		stateDir = engine.DefaultStateDir()
	}
	// Before anything is read from it or written to it: a state directory
	// another user owns or may write is refused, not used.
	if err := engine.PrepareStateDir(stateDir); err != nil {
		return fmt.Errorf("%w (--state-dir DIR chooses another)", err)
	}
	integ, err := shell.Install(filepath.Join(stateDir, "shell"))
	if err != nil {
		log.Warn("no shell integration; commands use the inline wrapper", "err", err)
	}
	// The session's first pane, the one a person sees first on attach,
	// runs the integrated shell like every pane tmuxmcp creates.
	sb := c.paneSandbox(stateDir, integ)
	if err := startSandbox(startCtx, sb); err != nil {
		return err
	}
	ensure := func(ctx context.Context) error { return c.firstPane(integ, sb).Ensure(ctx, c.target) }
	if err := ensure(startCtx); err != nil {
		return err
	}
	var restart func(context.Context) error
	if c.embedded {
		restart = ensure
	}
	trace, err := openLatencyTrace(os.Getenv("TMUXMCP_LATENCY_TRACE"))
	if err != nil {
		return err
	}
	defer trace.close()
	opts, served, closeAudit, err := hostOptions(c, stateDir, integ, restart, trace)
	if err != nil {
		return err
	}
	defer closeAudit()
	opts.Target, opts.Retain, opts.RetainTotal, opts.Log = c.target, c.retain, c.retainAll, log
	opts.Sandbox = c.sandboxConfig()
	opts.KeepFinished = c.keepDone
	if sb != nil {
		log.Info("panes run in a sandbox", "sandbox", sb.Mode(), "workspaces", strings.Join(sb.Sandbox().Workspaces(), " "), "network", c.sandboxNet)
	}
	remotes := remoteHosts(c, stateDir, opts, log)
	opts.ShellProgram = c.shell // this machine's panes only: the path names a program here
	opts.Ingest = c.ingest
	defer func() {
		for _, r := range remotes {
			r.conn.Close() // after every host has stopped
		}
	}()
	var others []*engine.Remote
	for _, r := range remotes {
		others = append(others, r.remote)
	}
	hosts, err := engine.Open(startCtx, opts, others...)
	if err != nil {
		return err
	}
	defer hosts.Close()
	// Connect now, so list_panes shows the hosts' panes at once; a host
	// that cannot be reached is tried again by the next call that names it.
	hosts.Connect(ctx, func(name string, err error) { log.Warn("host not reachable yet", "host", name, "err", err) })
	local := hosts.Local()
	defer serveReplay(stateDir, c.target, local, log)()
	h := tools.New(tools.Engine(hosts), served)
	defer h.Close()
	watch := "tmux " + strings.Join(tmux.Target{SocketName: c.target.SocketName, SocketPath: c.target.SocketPath}.Args(), " ") + " attach -t " + c.session
	server := h.NewServer()
	if c.httpAddr != "" {
		return serveHTTPMode(ctx, c, h, server, watch, hints, log)
	}
	log.Info("tmuxmcp serving MCP on stdio", "tmux", c.target.String(), "session", c.session, "panes", len(local.Recorded()))
	quoted := []string{shellQuote(executable())}
	if c := os.Getenv("TMUXMCP_COMMAND"); c != "" {
		quoted = []string{c} // a launcher's own command line, already words
	}
	for _, a := range args {
		quoted = append(quoted, shellQuote(a))
	}
	printHints(hints,
		"watch the panes", watch,
		"add it to Claude Code", "claude mcp add tmuxmcp -- "+strings.Join(quoted, " "))
	return serveStdio(ctx, h, server, stdin, stdout, trace, log)
}

// firstPane is the session tmuxmcp works in, as the flags say.
func (c *config) firstPane(integ *shell.Integration, sb *engine.PaneSandbox) engine.Session {
	return engine.Session{Name: c.session, Width: 200, Height: 50, Shell: integ, KeepPagers: c.keepPagers, Sandbox: sb, Program: c.shell}
}

// hostOptions is what the hosts are opened with (the flags, the policy and
// the audit log; closeAudit closes it) and what the MCP adapter is built
// with.
func hostOptions(c *config, stateDir string, integ *shell.Integration, restart func(context.Context) error, trace *latencyTrace) (opts engine.Config, served tools.Options, closeAudit func(), err error) {
	opts = engine.Config{RestartServer: restart, Session: c.session, WaitMax: c.waitMax, StateDir: stateDir, ReviewTimeout: c.review, ApprovalVia: c.viaList, Approver: c.approver, ApproverArgs: c.approverArgs, Shell: integ, KeepPagers: c.keepPagers}
	served = tools.Options{Version: versionString(), CheckResults: os.Getenv("TMUXMCP_CHECK_RESULTS") != ""}
	if c.toolsSpec != "all" {
		names, err := tools.SelectTools(c.toolsSpec, tools.AllToolNames())
		if err != nil {
			return opts, served, nil, err
		}
		served.Serve = names
	}
	if trace != nil {
		served.Trace = trace.wait
	}
	if c.policy != "" || c.def != policy.Allow {
		if c.policy != "" {
			opts.Policy, err = policy.Load(c.policy, c.def)
		} else {
			opts.Policy, err = policy.New(c.def, nil)
		}
		if err != nil {
			return opts, served, nil, err
		}
	}
	closeAudit = func() {}
	if c.audit != "" {
		a, err := audit.Open(c.audit)
		if err != nil {
			return opts, served, nil, err
		}
		opts.Audit, closeAudit = a, func() { a.Close() }
	}
	return opts, served, closeAudit, nil
}

// serveStdio serves server on stdin and stdout until stdin ends or ctx
// does, answering the calls already read before it returns.
func serveStdio(ctx context.Context, h *tools.Server, server *mcp.Server, stdin io.Reader, stdout io.Writer, trace *latencyTrace, log *slog.Logger) error {
	out := stdio.NewOutput(stdout)
	defer out.Close()
	if trace != nil {
		out.Written = trace.written
	}
	// The session ends on SIGTERM or when stdin ends: either way every
	// stream ends with hub_closed, so open waits return that outcome, and
	// the calls already read are answered before tmuxmcp exits.
	stopCtx, stopServing := context.WithCancel(ctx)
	defer stopServing()
	transport := &stdio.Transport{Reader: stdin, Writer: out, Log: log, Ended: func() {
		log.Info("stdin ended: answering the calls already read, then exiting")
		stopServing()
	}}
	go func() {
		// A client that stopped reading stdout must not keep tmuxmcp
		// alive: Draining gives open calls 5 s; their answers get 1 s more.
		<-stopCtx.Done()
		out.GiveUp(6 * time.Second)
	}()
	// The handlers return before the SDK writes their answers: once every
	// call has returned and been answered, the transport stays up until
	// stdout has been quiet for a moment, so no answer is cut off by the
	// exit.
	drained := h.Draining(stopCtx)
	runCtx, stopRun := context.WithCancel(context.WithoutCancel(ctx))
	defer stopRun()
	go func() {
		<-drained.Done()
		answered, cancel := context.WithTimeout(context.Background(), time.Second)
		transport.WaitAnswered(answered)
		cancel()
		out.Quiet(100*time.Millisecond, time.Second)
		stopRun()
	}()
	err := server.Run(runCtx, transport)
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// serveHTTPMode serves server over Streamable HTTP and tells a person on
// stderr how to connect and watch.
func serveHTTPMode(ctx context.Context, c *config, h *tools.Server, server *mcp.Server, watch string, hints io.Writer, log *slog.Logger) error {
	setup, err := httpmcp.Prepare(c.httpOptions(), log)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", c.httpAddr)
	if err != nil {
		return fmt.Errorf("--http %s: %w", c.httpAddr, err)
	}
	scheme := "http://"
	if setup.TLS != nil {
		scheme = "https://"
	}
	url := scheme + ln.Addr().String() + "/mcp"
	log.Info("tmuxmcp serving MCP over Streamable HTTP", "url", url, "tmux", c.target.String(), "session", c.session, "maxSessions", c.maxSess)
	if c.noAuth {
		log.Warn("NO AUTHENTICATION: --no-auth is set; anything on this machine that can reach " + url + " can drive your shells")
	}
	auth := ""
	switch {
	case c.noAuth:
	case setup.TokenWhere == "$TMUXMCP_TOKEN":
		auth = ` --header "Authorization: Bearer $TMUXMCP_TOKEN"`
	default:
		auth = ` --header "Authorization: Bearer $(cat ` + shellQuote(setup.TokenWhere) + `)"`
	}
	token := []string{}
	if !c.noAuth {
		token = []string{"the bearer token is in", setup.TokenWhere}
	}
	printHints(hints, append(token,
		"try it (the inspector needs Node >= 22.19)", "npx -y @modelcontextprotocol/inspector@2.12.0 --cli "+url+" --transport http"+auth+" --method tools/list",
		"watch the panes", watch,
		"add it to Claude Code", "claude mcp add --transport http tmuxmcp "+url+auth)...)
	handler := httpmcp.Handler(server, httpmcp.Config{Token: setup.Token, TokenWhere: setup.TokenWhere, SessionTimeout: c.idle, MaxSessions: c.maxSess, AllowOrigins: c.origins, Log: log})
	return httpmcp.Serve(h.Draining(ctx), ln, handler, setup.TLS, log)
}

// httpOptions are the flags httpmcp.Prepare reads.
func (c *config) httpOptions() httpmcp.SetupOptions {
	return httpmcp.SetupOptions{Addr: c.httpAddr, NoAuth: c.noAuth, TokenFile: c.tokenFile, StateDir: stateDirOf(c), TLSCert: c.tlsCert, TLSKey: c.tlsKey}
}

// printHints writes pairs of (what, line) as a comment and a line a
// person can paste as printed.
func printHints(w io.Writer, pairs ...string) {
	for i := 0; i+1 < len(pairs); i += 2 {
		fmt.Fprintf(w, "# %s:\n%s\n", pairs[i], pairs[i+1])
	}
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-=:,%+@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func executable() string {
	p, err := os.Executable()
	if err != nil {
		return "tmuxmcp"
	}
	return p
}
