package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/engine"
	"github.com/tmuxmcp/tmuxmcp/host"
	"github.com/tmuxmcp/tmuxmcp/runner"
	"github.com/tmuxmcp/tmuxmcp/shell"
	"github.com/tmuxmcp/tmuxmcp/tmux"
	"github.com/tmuxmcp/tmuxmcp/tools"
)

func doctor(ctx context.Context, c *config, out io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, 2*c.shellWait+30*time.Second)
	defer cancel()
	ok := true
	report := func(good bool, what, detail string) {
		mark := "ok  "
		if !good {
			mark, ok = "FAIL", false
		}
		fmt.Fprintf(out, "%s %-8s %s\n", mark, what, detail)
	}
	v, err := c.target.Version(ctx)
	if err != nil {
		report(false, "tmux", fmt.Sprintf("%v: install tmux (apt-get install tmux)", err))
		return errors.New("doctor found problems")
	}
	good, detail := checkTmuxVersion(v)
	report(good, "tmux", detail+" at "+c.target.String())
	sessions, err := c.target.SessionNames(ctx)
	if err != nil {
		fmt.Fprintf(out, "--   %-8s not running on %s: tmuxmcp starts it on its first run\n", "server", c.target)
	} else {
		report(true, "server", "reachable; sessions: "+strings.Join(sessions, " "))
		panes, err := c.target.PaneIDs(ctx)
		if err != nil {
			report(false, "panes", err.Error())
		} else {
			names := make([]string, len(panes))
			for i, p := range panes {
				names[i] = tmux.PaneName(p)
			}
			report(true, "panes", fmt.Sprintf("%d seen: %s", len(names), strings.Join(names, " ")))
		}
	}
	stateDir := stateDirOf(c)
	good, detail = checkStateDir(stateDir)
	report(good, "state", detail)
	good, detail = checkToken(c, stateDir)
	report(good, "token", detail)
	good, detail = checkPort(c.httpAddr)
	report(good, "port", detail)
	good, detail = checkShell(ctx, c, nil)
	report(good, "shell", detail)
	good, detail = checkSandbox(ctx, c)
	report(good, "sandbox", detail)
	report(true, "hand-off", handOffNote(c))
	if detail := telegramNote(c); detail != "" {
		report(true, "approver", detail)
	}
	for _, spec := range c.hosts.specs {
		checkHost(ctx, c, spec, stateDir, report)
	}
	if !ok {
		return errors.New("doctor found problems")
	}
	return nil
}

// checkShell starts the shell tmuxmcp would start, with its integration, in
// a throwaway private tmux server (with the user's environment and tmux
// configuration), runs `true` in it through the same tools an agent uses,
// and says how that went, or what went wrong and where.
//
// With conn it does the same on that host, in a throwaway tmux server
// there.
func checkShell(ctx context.Context, c *config, conn *host.SSH) (bool, string) {
	tmp, err := os.MkdirTemp("", "tmuxmcp-doctor")
	if err != nil {
		return false, err.Error()
	}
	defer os.RemoveAll(tmp)
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	target := tmux.Target{SocketName: "tmuxmcp-doctor-" + hex.EncodeToString(b), ConfigFile: c.target.ConfigFile, Binary: c.target.Binary}
	sc := &shellCheck{c: c, conn: conn, trace: filepath.Join(tmp, "trace")}
	opts := engine.Config{Session: "doctor", StateDir: tmp}
	var integ *shell.Integration
	if conn != nil {
		target = tmux.Target{SocketName: target.SocketName, Via: conn}
		if integ, err = conn.Integration(ctx); err != nil {
			return false, err.Error()
		}
		dir, _ := conn.Dir(ctx)
		sc.remoteTrace = dir + "/doctor-trace-" + hex.EncodeToString(b)
		defer conn.Remove(context.WithoutCancel(ctx), sc.remoteTrace)
		opts.Host, opts.Machine = conn.Spec().Name, conn
	} else if integ, err = shell.Install(filepath.Join(tmp, "shell")); err != nil {
		return false, err.Error()
	}
	opts.Shell = integ
	program := ""
	if conn == nil {
		program, opts.ShellProgram = c.shell, c.shell // --shell names a program here
	}
	argv, env, options, _ := runner.SessionLaunchOf(integ, nil, program)
	env[shell.TraceVar] = sc.trace
	if sc.remoteTrace != "" {
		env[shell.TraceVar] = sc.remoteTrace
	}
	if _, err := target.EnsureSession(ctx, tmux.SessionSpec{Name: "doctor", Width: 160, Height: 50, Command: argv, Env: env, PaneOptions: options}); err != nil {
		return false, fmt.Sprintf("could not start a throwaway tmux server: %v", err)
	}
	socket, _ := target.ServerSocket(ctx)
	defer func() {
		kctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = target.KillServer(kctx)
		// tmux 3.3a leaves its socket file behind.
		if conn == nil && strings.HasSuffix(socket, "/"+target.SocketName) {
			_ = os.Remove(socket)
		}
	}()
	sc.shellPath, _ = target.DefaultShellOption(ctx)
	from := "tmux's default-shell"
	if program != "" {
		sc.shellPath, from = program, "--shell"
	}
	if shell.Unsupported(sc.shellPath) {
		real := c.target
		if conn != nil {
			real = tmux.Target{SocketName: conn.Spec().Socket, Via: conn}
		}
		return false, engine.UnsupportedShell(sc.shellPath, from, real, conn == nil)
	}
	log := slog.New(slog.DiscardHandler)
	opts.Target, opts.Log = target, log
	local, err := engine.OpenHost(ctx, opts)
	if err != nil {
		return false, fmt.Sprintf("could not attach to the throwaway tmux server: %v", err)
	}
	defer local.Close()
	h := tools.New(tools.Engine(engine.NewHosts(local)), tools.Options{Version: versionString()})
	defer h.Close()
	cs, closeClient, err := inMemoryClient(ctx, h)
	if err != nil {
		return false, err.Error()
	}
	defer closeClient()
	sc.call = toolCaller(ctx, cs)
	return sc.run(ctx)
}

// shellCheck is one run of checkShell: the throwaway server's tools,
// called as an agent calls them, and where the shell's startup trace
// lands.
type shellCheck struct {
	c           *config
	conn        *host.SSH // the host, nil on this machine
	call        func(name string, args map[string]any) (map[string]any, error)
	trace       string // the trace file read here
	remoteTrace string // the trace file on the host ("" on this machine)
	shellPath   string // tmux's default-shell
}

// toolCaller calls a tool on cs and decodes its structured result (every
// field; the text leaves out the empty ones); a tool error is an error
// with the tool's text.
func toolCaller(ctx context.Context, cs *mcp.ClientSession) func(string, map[string]any) (map[string]any, error) {
	return func(name string, args map[string]any) (map[string]any, error) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			return nil, err
		}
		if res.IsError {
			var text string
			for _, c := range res.Content {
				if t, ok := c.(*mcp.TextContent); ok {
					text += t.Text
				}
			}
			return nil, errors.New(text)
		}
		var m map[string]any
		b, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(b, &m)
		return m, nil
	}
}

// fetchTrace brings the remote trace file here, for the same reading.
func (sc *shellCheck) fetchTrace(ctx context.Context) {
	if sc.remoteTrace != "" {
		if b, err := sc.conn.ReadFile(ctx, sc.remoteTrace); err == nil {
			_ = os.WriteFile(sc.trace, b, 0o600)
		}
	}
}

// run runs `true` in the server's first pane and makes a new pane, and
// says how that went.
func (sc *shellCheck) run(ctx context.Context) (bool, string) {
	call, c := sc.call, sc.c
	first := ""
	if lp, err := call("list_panes", map[string]any{}); err == nil {
		if ps, _ := lp["panes"].([]any); len(ps) > 0 {
			first, _ = ps[0].(map[string]any)["paneId"].(string)
		}
	}
	if first == "" {
		return false, "the throwaway tmux server shows no pane"
	}
	started := time.Now()
	r, err := call("run_shell_command", map[string]any{"paneId": first, "command": "true", "waitMs": c.shellWait.Milliseconds()})
	took := time.Since(started)
	sc.fetchTrace(ctx)
	what := sc.shellPath
	if err != nil {
		detail := fmt.Sprintf("%s with tmuxmcp's integration did not take a command: %v", what, err)
		if at := lastTraced(sc.trace, paneOutput(call, first)); at != "" {
			detail += "\n              the last line its startup files ran: " + at
		}
		if errs := startupErrors(call, first, sc.trace); errs != "" {
			detail += "\n              it printed: " + errs
		}
		return false, detail
	}
	kind, _ := r["shell"].(string)
	status, _ := r["status"].(string)
	ready, _ := r["shellReady"].(bool)
	code, hasCode := r["exitCode"].(float64)
	detail := fmt.Sprintf("%s (%s) with tmuxmcp's integration: its first prompt and `true` took %d ms (status %s", what, kind, took.Milliseconds(), status)
	if hasCode {
		detail += fmt.Sprintf(", exit %d", int(code))
	}
	detail += ")"
	if took > slowShell {
		detail += fmt.Sprintf("; WARNING: slow, over %v: every pane tmuxmcp creates waits that long for its shell (the startup files run something slow: `bash -xlic exit` or `zsh -xlic exit` shows what)", slowShell)
	}
	good := status == "completed" && hasCode && code == 0 && ready
	if !ready {
		detail += "; the next prompt was not back within 5 s of the command's end: a slow prompt (PROMPT_COMMAND, precmd hooks, a slow $(…) in PS1)"
	}
	cp, err := call("create_pane", map[string]any{"waitMs": c.shellWait.Milliseconds()})
	switch {
	case err != nil:
		good = false
		detail += fmt.Sprintf("; a new pane failed: %v", err)
	case cp["ready"] != true:
		good = false
		detail += fmt.Sprintf("; a new pane was not ready: %v", cp["notReadyReason"])
	case cp["integrated"] != true && kind != "sh":
		good = false
		detail += "; its prompt never carried tmuxmcp's mark (the startup files replace PROMPT_COMMAND or the prompt hooks, or exec another shell): commands run through job scripts"
	case kind == "sh":
		detail += "; a POSIX shell: commands run through job scripts (bash, zsh and fish get the integration)"
	}
	sc.fetchTrace(ctx)
	if errs := startupErrors(call, first, sc.trace); errs != "" {
		good = false
		detail += "\n              it printed: " + errs
	}
	return good, detail + ingestNote(call, first)
}

// slowShell is a shell start doctor warns about: a new pane's first
// command waits for it.
const slowShell = 2 * time.Second

// ingestNote says how the pane's output is read (operations.md: How pane
// output is read).
func ingestNote(call func(string, map[string]any) (map[string]any, error), pane string) string {
	lp, err := call("list_panes", map[string]any{})
	if err != nil {
		return ""
	}
	ps, _ := lp["panes"].([]any)
	for _, p := range ps {
		if m, _ := p.(map[string]any); m["paneId"] == pane {
			if m["ingest"] == "pipe" {
				return "; output read raw (pipe-pane)"
			}
			return "; output read through control mode (%output): see docs/operations.md, How pane output is read"
		}
	}
	return ""
}

// paneOutput is what the pane printed (its first 64 KiB).
func paneOutput(call func(string, map[string]any) (map[string]any, error), pane string) string {
	cs, err := call("capture_since", map[string]any{"paneId": pane, "maxBytes": 65536})
	if err != nil {
		return ""
	}
	text, _ := cs["output"].(string)
	return text
}

// inMemoryClient connects an MCP client to h's tools.
func inMemoryClient(ctx context.Context, h *tools.Server) (*mcp.ClientSession, func(), error) {
	server := h.NewServer()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		return nil, nil, err
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "tmuxmcp-doctor", Version: versionString()}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		ss.Close()
		return nil, nil, err
	}
	return cs, func() { cs.Close(); ss.Close() }, nil
}

// traceLine is a line of bash's xtrace as the integration writes it for
// doctor: +FILE:LINE: COMMAND.
var traceLine = regexp.MustCompile(`^\++(/[^:]*):(\d+)[:>] (.*)$`)

// lastTraced names the last line of the user's startup files that ran:
// from bash's trace file, or zsh's trace in the pane's output.
func lastTraced(path, output string) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimRight(output+"\n"+string(b), "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if m := traceLine.FindStringSubmatch(lines[i]); m != nil && !strings.Contains(m[1], "tmuxmcp") {
			return fmt.Sprintf("%s line %s: %s", m[1], m[2], truncate(m[3], 120))
		}
	}
	return ""
}

// errorLine is how a shell reports a problem in a startup file.
var errorLine = regexp.MustCompile(`(?i)(syntax error|command not found|not found|no such file|unbound variable|bad substitution|parse error|permission denied|unknown command)`)

// startupErrors quotes the lines of the pane's output (and of the trace,
// where zsh writes the errors of traced files) that report errors.
func startupErrors(call func(string, map[string]any) (map[string]any, error), pane, trace string) string {
	text := paneOutput(call, pane)
	if b, err := os.ReadFile(trace); err == nil {
		text += "\n" + string(b)
	}
	var found []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "+") {
			continue // a traced command, not an error
		}
		if errorLine.MatchString(l) && len(found) < 5 {
			found = append(found, strings.TrimSpace(truncate(l, 200)))
		}
	}
	return strings.Join(found, " | ")
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// checkHost checks one --host: ssh reaches it without a prompt, its tmux
// is new enough, and its user's shell takes a command with the
// integration.
func checkHost(ctx context.Context, c *config, spec host.Spec, stateDir string, report func(bool, string, string)) {
	conn := host.New(spec, host.Options{ConfigFile: c.sshConfig, ControlDir: filepath.Join(stateDir, "ssh")})
	defer conn.Close()
	start := time.Now()
	if err := conn.Connect(ctx); err != nil {
		report(false, spec.Name+":ssh", err.Error())
		return
	}
	report(true, spec.Name+":ssh", fmt.Sprintf("%s reachable without a prompt (%d ms)", spec.URL(), time.Since(start).Milliseconds()))
	v, err := tmux.Target{Via: conn}.Version(ctx)
	if err != nil {
		report(false, spec.Name+":tmux", fmt.Sprintf("%v: install tmux 3.2 or newer on %s", err, spec.Name))
		return
	}
	good, detail := checkTmuxVersion(v)
	report(good, spec.Name+":tmux", detail)
	good, detail = checkShell(ctx, c, conn)
	report(good, spec.Name+":shell", detail)
}

// handOffNote says how a person takes a pane from the agent and gives it
// back: bound on the server tmuxmcp starts itself, a line for the user's
// own tmux.conf otherwise.
func handOffNote(c *config) string {
	if c.embedded {
		return fmt.Sprintf("prefix %s takes the active pane from the agent and gives it back (bound on %s, shown in the status line)", tmux.HandOffKey, c.target)
	}
	return fmt.Sprintf("to take a pane from the agent with prefix %s (and give it back), add to your tmux.conf: %s", tmux.HandOffKey, tmux.HandOffConfLine())
}
