package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/internal/mcptest"
	"github.com/tmuxmcp/tmuxmcp/internal/sshtest"
	"github.com/tmuxmcp/tmuxmcp/internal/tmuxtest"
)

// remoteWorld is tmuxmcp serving a local private tmux server and a host
// "box" reached through a private sshd, whose own private tmux server it
// starts there.
type remoteWorld struct {
	srv      *sshtest.Server
	cs       *mcp.ClientSession
	cmd      *exec.Cmd
	stderr   *bytes.Buffer
	boxPane  string
	stateDir string
	progress chan any // progress tokens, as their first notification arrives
}

func startRemoteWorld(t *testing.T, bin string, extra ...string) *remoteWorld {
	t.Helper()
	local := tmuxtest.Server(t, "agent", 120, 40)
	srv := sshtest.Start(t)
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	sock := "tmuxmcp-test-" + hex.EncodeToString(b)
	t.Cleanup(func() { srv.KillTmux(sock) })
	w := &remoteWorld{srv: srv, stderr: &bytes.Buffer{}, stateDir: t.TempDir(), progress: make(chan any, 100)}
	args := append([]string{"--debug", "-L", local.SocketName, "--session", "agent", "--state-dir", w.stateDir,
		"--ssh-config", srv.ConfigFile, "--host", "box=" + srv.URL() + "?socket=" + sock}, extra...)
	w.cmd = exec.Command(bin, args...)
	w.cmd.Env = tmuxtest.Env(t.TempDir())
	w.cmd.Stderr = w.stderr
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var seen sync.Map
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			if _, dup := seen.LoadOrStore(r.Params.ProgressToken, true); !dup {
				w.progress <- r.Params.ProgressToken
			}
		},
	})
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: w.cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	w.cs = cs
	t.Cleanup(func() {
		closed := time.Now()
		_ = cs.Close()
		exited := make(chan struct{})
		go func() { _ = w.cmd.Wait(); close(exited) }()
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = w.cmd.Process.Signal(syscall.SIGQUIT) // its goroutines, on stderr
			<-exited
			t.Errorf("tmuxmcp did not exit within 30 s of its stdin's end")
		}
		t.Logf("tmuxmcp exited %v after its stdin closed", time.Since(closed).Round(time.Millisecond))
		if time.Since(closed) > 10*time.Second {
			t.Errorf("tmuxmcp took %v to exit; its stderr:\n%s", time.Since(closed), w.stderr.String())
		}
		if t.Failed() || os.Getenv("TMUXMCP_TEST_STDERR") != "" {
			t.Logf("tmuxmcp stderr:\n%s", w.stderr.String())
		}
	})
	// The host's pane, once it is connected.
	for deadline := time.Now().Add(60 * time.Second); w.boxPane == ""; {
		res := mcptest.OK(ctx, t, cs, "list_panes", map[string]any{"host": "box"})
		for _, p := range res.M["panes"].([]any) {
			if pm := p.(map[string]any); pm["host"] == "box" {
				w.boxPane = pm["paneId"].(string)
			}
		}
		if w.boxPane == "" && time.Now().After(deadline) {
			t.Fatalf("no pane on host box: %v", res)
		}
	}
	return w
}

// openWait opens a wait on box's pane that nothing matches (a minute to
// go) and returns once tmuxmcp has it open; its result arrives on the
// channel.
func (w *remoteWorld) openWait(ctx context.Context, t *testing.T, token string) <-chan mcptest.Result {
	waited := make(chan mcptest.Result, 1)
	go func() {
		p := &mcp.CallToolParams{Name: "wait_for_text", Arguments: map[string]any{"host": "box", "paneId": w.boxPane, "patterns": []string{"never-printed"}, "timeoutMs": 60000}}
		p.SetProgressToken(token)
		waited <- mcptest.CallParams(ctx, t, w.cs, p)
	}()
	<-w.progress // its first progress notification: the wait is open
	return waited
}

func TestARemoteHostRunsCommandsWaitsAndCapturesLikeLocal(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	w := startRemoteWorld(t, bin)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cs := w.cs

	// list_panes without host lists both hosts' panes.
	all := mcptest.OK(ctx, t, cs, "list_panes", map[string]any{})
	hosts := map[string]bool{}
	for _, p := range all.M["panes"].([]any) {
		hosts[p.(map[string]any)["host"].(string)] = true
	}
	if !hosts["local"] || !hosts["box"] || len(all.M["hostErrors"].([]any)) != 0 {
		t.Fatalf("list_panes of every host: %v", all)
	}

	// A command on the host: its output, its exit status, its host.
	run := mcptest.OK(ctx, t, cs, "run_shell_command", map[string]any{"host": "box", "paneId": w.boxPane, "command": "echo remote-$((6*7)); echo $HOME; sh -c 'exit 3'"})
	if run.Str("status") != "completed" || run.Num("exitCode") != 3 || !strings.Contains(run.Str("output"), "remote-42") || !strings.Contains(run.Str("output"), w.srv.Home) || run.Str("host") != "box" {
		t.Fatalf("run on box: %v", run)
	}
	// The shell's state persists between commands, as locally.
	mcptest.OK(ctx, t, cs, "run_shell_command", map[string]any{"host": "box", "paneId": w.boxPane, "command": "cd /tmp && export TMUXMCP_T=kept"})
	again := mcptest.OK(ctx, t, cs, "run_shell_command", map[string]any{"host": "box", "paneId": w.boxPane, "command": "echo $TMUXMCP_T $PWD"})
	if !strings.Contains(again.Str("output"), "kept /tmp") {
		t.Fatalf("state between commands on box: %v", again)
	}
	// The job record is found by its id alone.
	got := mcptest.OK(ctx, t, cs, "await_command_result", map[string]any{"jobId": run.Str("jobId")})
	if got.Str("host") != "box" || got.Num("exitCode") != 3 {
		t.Fatalf("await_command_result of a box job without host: %v", got)
	}
	if res := mcptest.Call(ctx, t, cs, "await_command_result", map[string]any{"jobId": run.Str("jobId"), "host": "local"}); !res.IsError || !strings.Contains(res.Text, "host box") {
		t.Fatalf("a box job asked for on local: %v", res)
	}

	// wait_for_text from a cursor sees what a command typed later prints.
	cur := mcptest.OK(ctx, t, cs, "capture_pane", map[string]any{"host": "box", "paneId": w.boxPane}).Str("cursor")
	mcptest.OK(ctx, t, cs, "type_text", map[string]any{"host": "box", "paneId": w.boxPane, "text": "echo typed-$((2+2))", "submit": true})
	wait := mcptest.OK(ctx, t, cs, "wait_for_text", map[string]any{"host": "box", "paneId": w.boxPane, "cursor": cur, "patterns": []string{"typed-4"}, "timeoutMs": 30000})
	if wait.Str("outcome") != "matched" {
		t.Fatalf("wait on box: %v", wait)
	}
	since := mcptest.OK(ctx, t, cs, "capture_since", map[string]any{"host": "box", "paneId": w.boxPane, "cursor": cur})
	if !strings.Contains(since.Str("output"), "typed-4") {
		t.Fatalf("capture_since on box: %v", since)
	}

	// A cursor of box is refused on a local pane, never read there.
	localPane := ""
	for _, p := range all.M["panes"].([]any) {
		if pm := p.(map[string]any); pm["host"] == "local" {
			localPane = pm["paneId"].(string)
		}
	}
	for _, tool := range []string{"capture_since", "wait_for_text"} {
		res := mcptest.Call(ctx, t, cs, tool, map[string]any{"paneId": localPane, "cursor": cur, "timeoutMs": 100})
		if tool == "capture_since" {
			res = mcptest.Call(ctx, t, cs, tool, map[string]any{"paneId": localPane, "cursor": cur})
		}
		if !res.IsError || !strings.Contains(res.Text, "host box") || !strings.Contains(res.Text, `pass host "box"`) {
			t.Fatalf("%s with a cursor of box on local: %v", tool, res)
		}
	}
	// An unknown host is a tool error listing the configured ones.
	if res := mcptest.Call(ctx, t, cs, "capture_pane", map[string]any{"host": "nope", "paneId": w.boxPane}); !res.IsError || !strings.Contains(res.Text, "local, box") {
		t.Fatalf("unknown host: %v", res)
	}
	// A new pane on the host: its shell is integrated and ready, a fresh
	// pane's command runs there, and the pane can be killed there.
	cp := mcptest.OK(ctx, t, cs, "create_pane", map[string]any{"host": "box", "waitMs": 30000})
	if cp.M["ready"] != true || cp.M["integrated"] != true {
		t.Fatalf("create_pane on box: %v", cp)
	}
	in := mcptest.OK(ctx, t, cs, "run_shell_command", map[string]any{"host": "box", "paneId": cp.Str("paneId"), "command": "echo new-pane-$((1+1))"})
	if in.Str("status") != "completed" || !strings.Contains(in.Str("output"), "new-pane-2") {
		t.Fatalf("a command in a new pane on box: %v", in)
	}
	fresh := mcptest.OK(ctx, t, cs, "run_shell_command", map[string]any{"host": "box", "command": "echo fresh-pane; sh -c 'exit 4'"})
	if fresh.Str("status") != "completed" || fresh.Num("exitCode") != 4 || !strings.Contains(fresh.Str("output"), "fresh-pane") {
		t.Fatalf("a fresh-pane command on box: %v", fresh)
	}
	if k := mcptest.OK(ctx, t, cs, "kill_pane", map[string]any{"host": "box", "paneId": cp.Str("paneId")}); k.M == nil {
		t.Fatalf("kill_pane on box: %v", k)
	}
	// list_commands without host lists jobs of every host, with their host.
	cmds := mcptest.OK(ctx, t, cs, "list_commands", map[string]any{})
	if n := len(cmds.M["commands"].([]any)); n < 3 || cmds.M["commands"].([]any)[0].(map[string]any)["host"] != "box" {
		t.Fatalf("list_commands: %v", cmds)
	}
}

func TestADroppedLinkEndsWaitsAndTheJobGetsItsStatusAfterReconnect(t *testing.T) {
	// Not parallel: it bounds how long an open wait takes to end after the
	// link drops (3 s), which other tests' load would stretch.
	bin := buildBinary(t)
	w := startRemoteWorld(t, bin)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cs := w.cs
	// A job that outlives the link, then ends with its own status.
	job := mcptest.OK(ctx, t, cs, "run_shell_command", map[string]any{"host": "box", "paneId": w.boxPane, "command": "sleep 6; sh -c 'exit 5'", "waitMs": 500})
	if job.Str("status") != "running" {
		t.Fatalf("the job: %v", job)
	}
	cur := job.Str("cursor")
	waited := w.openWait(ctx, t, "drop")
	dropped := time.Now()
	w.srv.Stop()
	wait := <-waited
	took := time.Since(dropped)
	if wait.Str("outcome") != "stream_lost" || wait.Str("streamFailure") != "connection_lost" || took > 3*time.Second {
		t.Fatalf("an open wait when the link dropped, after %v: %v", took, wait)
	}
	t.Logf("open wait ended %v after the link dropped", took.Round(time.Millisecond))
	// While the host is down: its calls say why, the local host answers.
	if res := mcptest.Call(ctx, t, cs, "capture_pane", map[string]any{"host": "box", "paneId": w.boxPane}); !res.IsError {
		t.Fatalf("capture_pane on a host that is down: %v", res)
	}
	all := mcptest.OK(ctx, t, cs, "list_panes", map[string]any{})
	if errs := all.M["hostErrors"].([]any); len(errs) != 1 || errs[0].(map[string]any)["host"] != "box" {
		t.Fatalf("list_panes while box is down: %v", all)
	}
	// The job ends on the host while the link is down: its script records
	// the status there (its files have a random name, not the job's).
	rc := filepath.Join(w.srv.Home, ".local/state/tmuxmcp/remote/jobs", "*.rc")
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if m, _ := filepath.Glob(rc); len(m) > 0 {
			break
		}
		if time.Now().After(deadline) {
			out, _ := exec.Command("sh", "-c", "ls -la "+filepath.Dir(rc)+"; for s in "+w.srv.TmuxDir+"/tmux-*/*; do tmux -S $s list-panes -a; tmux -S $s capture-pane -p -t "+w.boxPane+"; done").CombinedOutput()
			t.Fatalf("the job's status file %s did not appear:\n%s", rc, out)
		}
	}
	t.Logf("the job ended on the host %v after the link dropped", time.Since(dropped).Round(time.Millisecond))
	if err := w.srv.Restart(); err != nil {
		t.Fatal(err)
	}
	back := time.Now()
	got := mcptest.OK(ctx, t, cs, "await_command_result", map[string]any{"jobId": job.Str("jobId"), "waitMs": 60000})
	t.Logf("its status collected %v after sshd was back", time.Since(back).Round(time.Millisecond))
	if got.Str("status") != "completed" || got.Num("exitCode") != 5 || got.Str("host") != "box" {
		t.Fatalf("the job after the link came back: %v", got)
	}
	// Cursors from before the drop are expired, as after a local restart.
	since := mcptest.Call(ctx, t, cs, "capture_since", map[string]any{"host": "box", "paneId": w.boxPane, "cursor": cur})
	if !since.IsError && since.Str("streamFailure") != "expired" {
		t.Fatalf("a cursor from before the drop: %v", since)
	}
	t.Logf("a cursor from before the drop: %v", since)
	// And the host runs commands again.
	againAt := time.Now()
	defer func() { t.Logf("the next command took %v", time.Since(againAt).Round(time.Millisecond)) }()
	again := mcptest.OK(ctx, t, cs, "run_shell_command", map[string]any{"host": "box", "paneId": w.boxPane, "command": "echo back"})
	if again.Str("status") != "completed" || !strings.Contains(again.Str("output"), "back") {
		t.Fatalf("after reconnect: %v", again)
	}
}

func TestDoctorChecksEachHost(t *testing.T) {
	t.Parallel()
	srv := sshtest.Start(t)
	var out, errb bytes.Buffer
	target := tmuxtest.Server(t, "agent", 80, 24)
	err := run(context.Background(), []string{"doctor", "-L", target.SocketName, "--state-dir", t.TempDir(), "--ssh-config", srv.ConfigFile,
		"--host", "box=" + srv.URL(), "--host", "gone=ssh://" + srv.User + "@127.0.0.1:1"}, nil, &out, &errb)
	if err == nil {
		t.Fatalf("doctor with an unreachable host succeeded:\n%s", out.String())
	}
	for _, want := range []string{"ok   box:ssh", "ok   box:tmux", "ok   box:shell", "FAIL gone:ssh", "Connection refused"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out.String())
		}
	}
	t.Logf("doctor:\n%s", out.String())
}

func TestABadHostFlagStopsStartUpNamingTheFlagAndTheFix(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(cfg, []byte(`{"hosts": {"build": "ssh://b.example"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--host", "build"}, "NAME=ssh://"},
		{[]string{"--host", "local=ssh://x.example"}, "cannot be redefined"},
		{[]string{"--host", "b=ssh://x.example", "--host", "b=ssh://y.example"}, "defined twice"},
		{[]string{"--host", "b=http://x.example"}, "not ssh"},
		{[]string{"--config", cfg, "--host", "build=ssh://c.example"}, "defined twice"},
		{[]string{"--ssh-config", "/nonexistent/ssh_config"}, "--ssh-config"},
	} {
		_, err := parseFlags("tmuxmcp", c.args, io.Discard)
		var bad usageError
		if !errors.As(err, &bad) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "-") {
			t.Errorf("%v: %v, want a usage error naming %q", c.args, err, c.want)
		}
	}
	c, err := parseFlags("tmuxmcp", []string{"--config", cfg, "--host", "db=ssh://ops@db.example:2222"}, io.Discard)
	if err != nil || len(c.hosts.specs) != 2 {
		t.Fatalf("--config and --host together: %v %+v", err, c)
	}
}

func TestARemoteJobIsCancelledAndApprovalAndAuditNameTheHost(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	dir := t.TempDir()
	pol := filepath.Join(dir, "policy.json")
	if err := os.WriteFile(pol, []byte(`{"rules": [{"action": "deny", "host": "^box$", "command": "^rm( |$)"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	auditLog := filepath.Join(dir, "audit.jsonl")
	w := startRemoteWorld(t, bin, "--policy", pol, "--audit", auditLog)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cs := w.cs
	// The host rule denies on box what runs anywhere else.
	denied := mcptest.OK(ctx, t, cs, "run_shell_command", map[string]any{"host": "box", "paneId": w.boxPane, "command": "rm -f /tmp/tmuxmcp-never-made"})
	if denied.Str("decision") != "blocked" || denied.Str("status") == "completed" {
		t.Fatalf("rm on box under a deny rule for box: %v", denied)
	}
	// A job on box that ignores nothing is stopped by cancel_command, where it runs.
	job := mcptest.OK(ctx, t, cs, "run_shell_command", map[string]any{"host": "box", "paneId": w.boxPane, "command": "sleep 300", "waitMs": 500, "requestId": "0123456789abcdef0123456789abcdef"})
	if job.Str("status") != "running" {
		t.Fatalf("sleep 300 on box: %v", job)
	}
	// The requestId is box's: a retry on another host is refused, not run twice.
	if res := mcptest.Call(ctx, t, cs, "run_shell_command", map[string]any{"command": "sleep 300", "requestId": "0123456789abcdef0123456789abcdef"}); !res.IsError || !strings.Contains(res.Text, "host box") {
		t.Fatalf("box's requestId retried on local: %v", res)
	}
	start := time.Now()
	stopped := mcptest.OK(ctx, t, cs, "cancel_command", map[string]any{"jobId": job.Str("jobId")})
	if stopped.Str("status") != "interrupted" || stopped.Str("host") != "box" {
		t.Fatalf("cancel_command on box: %v", stopped)
	}
	t.Logf("a remote sleep was interrupted in %v", time.Since(start).Round(time.Millisecond))
	// The shell there takes the next command at once.
	after := mcptest.OK(ctx, t, cs, "run_shell_command", map[string]any{"host": "box", "paneId": w.boxPane, "command": "echo after-cancel"})
	if after.Str("status") != "completed" || !strings.Contains(after.Str("output"), "after-cancel") {
		t.Fatalf("after the cancel: %v", after)
	}
	b, err := os.ReadFile(auditLog)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"host":"box"`) || !strings.Contains(string(b), "rm -f") {
		t.Fatalf("the audit log does not name host box:\n%s", b)
	}
}

func TestASilentLinkEndsOpenWaitsWithinThreeSeconds(t *testing.T) {
	// Not parallel: it bounds how long an open wait takes to end on a silent
	// link (3 s), which other tests' load would stretch.
	bin := buildBinary(t)
	w := startRemoteWorld(t, bin)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	waited := w.openWait(ctx, t, "silent")
	// No reset, no answer: only ssh's keepalives can tell.
	frozen := time.Now()
	w.srv.Freeze()
	defer w.srv.Thaw()
	wait := <-waited
	took := time.Since(frozen)
	t.Logf("an open wait ended %v after the link went silent: %s %s", took.Round(time.Millisecond), wait.Str("outcome"), wait.Str("streamFailure"))
	if wait.Str("outcome") != "stream_lost" || wait.Str("streamFailure") != "connection_lost" || took > 3*time.Second {
		t.Fatalf("an open wait on a silent link, after %v: %v", took, wait)
	}
	// The local host is untouched.
	if res := mcptest.OK(ctx, t, w.cs, "list_panes", map[string]any{"host": "local"}); len(res.M["panes"].([]any)) == 0 {
		t.Fatalf("local panes while box is silent: %v", res)
	}
}
