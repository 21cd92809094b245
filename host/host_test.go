package host_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/approval"
	"github.com/tmuxmcp/tmuxmcp/host"
	"github.com/tmuxmcp/tmuxmcp/internal/leaktest"
	"github.com/tmuxmcp/tmuxmcp/internal/sshtest"
	"github.com/tmuxmcp/tmuxmcp/internal/testdir"
)

func TestMain(m *testing.M) { leaktest.Main(m) }

func connect(t *testing.T, srv *sshtest.Server) *host.SSH {
	t.Helper()
	spec, err := host.ParseSpec("box=" + srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	h := host.New(spec, host.Options{ConfigFile: srv.ConfigFile, ControlDir: testdir.Private(t)})
	t.Cleanup(h.Close)
	return h
}

func TestScriptsFilesAndSignalsGoThroughOneConnection(t *testing.T) {
	srv := sshtest.Start(t)
	h := connect(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, code, err := h.Run(ctx, `echo "$HOME"; exit 7`)
	if err != nil || code != 7 || strings.TrimSpace(string(out)) != srv.Home {
		t.Fatalf("Run: %q %d %v, want the session's HOME %s and status 7", out, code, err, srv.Home)
	}
	dir, err := h.Dir(ctx)
	if err != nil || dir != filepath.Join(srv.Home, ".local/state/tmuxmcp/remote") {
		t.Fatalf("Dir: %q %v", dir, err)
	}
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("the private directory: %v %v, want mode 0700", st.Mode(), err)
	}
	if _, err := os.Stat(filepath.Join(dir, "shell", "launch")); err != nil {
		t.Fatalf("the integration was not installed: %v", err)
	}
	body := []byte("it's a \"test\"\n$HOME `x` \\ \x01 no newline at the end")
	p := h.ScriptPath("job1", ".sh")
	if err := h.WriteFile(ctx, p, body); err != nil {
		t.Fatal(err)
	}
	got, err := h.ReadFile(ctx, p)
	if err != nil || string(got) != string(body) {
		t.Fatalf("ReadFile: %q %v, want %q", got, err, body)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
		t.Fatalf("a job script's mode %v, want 0600", st.Mode())
	}
	h.Remove(ctx, p)
	if _, err := h.ReadFile(ctx, p); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a removed file reads as %v, want fs.ErrNotExist", err)
	}
	if err := h.Signal(999999, syscall.SIGTERM); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("a signal to no process: %v, want ESRCH", err)
	}
	// tmux through the same connection.
	cmd := h.Command(ctx, []string{"tmux", "-V"})
	if b, err := cmd.Output(); err != nil || !strings.HasPrefix(string(b), "tmux ") {
		t.Fatalf("tmux -V over ssh: %q %v", b, err)
	}
}

func TestALostConnectionIsMadeAgainOnTheNextUse(t *testing.T) {
	srv := sshtest.Start(t)
	h := connect(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, _, err := h.Run(ctx, "true"); err != nil {
		t.Fatal(err)
	}
	srv.DropConnections()
	out, code, err := h.Run(ctx, "echo again")
	if err != nil || code != 0 || strings.TrimSpace(string(out)) != "again" {
		t.Fatalf("after the link dropped: %q %d %v", out, code, err)
	}
}

func TestSSHRefusalsQuoteSSHAndNameTheFix(t *testing.T) {
	srv := sshtest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cfg, _ := os.ReadFile(srv.ConfigFile)
	write := func(name, body string) string {
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		name, config, url, want, fix string
	}{
		{"unknown host key", strings.Replace(string(cfg), "UserKnownHostsFile", "UserKnownHostsFile /dev/null #", 1), srv.URL(), "Host key verification failed", "known_hosts"},
		{"refused key", strings.Replace(string(cfg), "IdentityFile", "IdentityFile /nonexistent #", 1), srv.URL(), "Permission denied", "authorized_keys"},
		{"nothing listening", string(cfg), "ssh://" + srv.User + "@127.0.0.1:1", "refused", "not reachable"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spec, err := host.ParseSpec("box=" + c.url)
			if err != nil {
				t.Fatal(err)
			}
			h := host.New(spec, host.Options{ConfigFile: write("config", c.config), ControlDir: testdir.Private(t)})
			defer h.Close()
			start := time.Now()
			err = h.Connect(ctx)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.fix) {
				t.Fatalf("Connect: %v, want ssh's %q and the fix naming %q", err, c.want, c.fix)
			}
			t.Logf("%s in %v: %v", c.name, time.Since(start).Round(time.Millisecond), err)
		})
	}
}

func TestMalformedHostSpecsAreRefusedWithTheFix(t *testing.T) {
	for _, v := range []string{"build", "local=ssh://x", "Build=ssh://x", "b=http://x", "b=ssh://", "b=ssh://x/path", "b=ssh://u:pw@x", "b=ssh://x:0", "b=ssh://x:70000", "b=ssh://-oProxyCommand=x", "b=ssh://x?socket=a/b", "b=ssh://x?foo=1", "b=ssh://x y"} {
		if s, err := host.ParseSpec(v); err == nil {
			t.Errorf("%q parsed as %+v, want an error", v, s)
		} else if !strings.Contains(err.Error(), v) {
			t.Errorf("%q: the error does not quote the value: %v", v, err)
		}
	}
	s, err := host.ParseSpec("db=ssh://ops@db.example.com:2222?socket=work")
	if err != nil || s.Name != "db" || s.User != "ops" || s.Addr != "db.example.com" || s.Port != 2222 || s.Socket != "work" {
		t.Fatalf("%+v %v", s, err)
	}
	var ss host.Specs
	if err := ss.Add(s); err != nil {
		t.Fatal(err)
	}
	if err := ss.Add(s); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Fatalf("a duplicate name: %v", err)
	}
}

func TestADirectoryIsResolvedOnTheHost(t *testing.T) {
	srv := sshtest.Start(t)
	h := connect(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	real := filepath.Join(srv.Home, "prod it's")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(srv.Home, "innocent")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.EvalSymlinks(real)
	for dir, resolved := range map[string]string{
		link:                                want,
		link + "/.":                         want,
		srv.Home + "//innocent/../innocent": want,
		filepath.Join(link, "not-yet"):      filepath.Join(want, "not-yet"),
	} {
		if got, err := h.ResolveDir(ctx, dir); err != nil || got != resolved {
			t.Errorf("ResolveDir(%q) = %q, %v; want %q", dir, got, err, resolved)
		}
	}
	for _, dir := range []string{filepath.Join(srv.Home, "no", "such"), "relative/dir"} {
		if got, err := h.ResolveDir(ctx, dir); err == nil {
			t.Errorf("ResolveDir(%q) = %q, want an error", dir, got)
		}
	}
	// Through approval: a directory the host cannot resolve stays cleaned.
	if got := approval.ResolveDir(ctx, h, filepath.Join(srv.Home, "no", "..", "no", "such")); got != filepath.Join(srv.Home, "no", "such") {
		t.Errorf("an unresolvable directory: %q", got)
	}
}

func TestAnApprovalPopupsFilesAreWrittenOnTheHost(t *testing.T) {
	srv := sshtest.Start(t)
	h := connect(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir, err := h.Dir(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var shown string
	a := &approval.Asker{Dir: dir + "/approvals", Files: h, Timeout: 30 * time.Second,
		Popup: func(ctx context.Context, client, cmd string) error {
			// The popup's command line runs on the host, with y typed.
			out, code, err := h.Run(ctx, "echo y | "+cmd+" >/dev/null; cat "+shellWord(t, cmd, 3))
			if err != nil || code != 0 {
				return fmt.Errorf("popup: %d %v %s", code, err, out)
			}
			shown = string(out)
			return nil
		}}
	ans := a.Ask(ctx, []string{"c1"}, approval.Request{RequestID: "r1", Command: "make deploy", Host: "box"})
	if ans.Decision != approval.Approved || ans.By != "tmux:c1" {
		t.Fatalf("%+v, want approved by tmux:c1", ans)
	}
	if !strings.Contains(shown, "host: box") || !strings.Contains(shown, "make deploy") {
		t.Errorf("the popup showed %q", shown)
	}
	if st, err := os.Stat(dir + "/approvals"); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("the approvals directory on the host: %v %v, want mode 0700", st, err)
	}
	if left, _ := filepath.Glob(dir + "/approvals/r1.*"); len(left) != 0 {
		t.Errorf("files left on the host: %v", left)
	}
}

// shellWord is word i (0-based) of the popup command line sh 'script'
// 'answer' 'details', still quoted.
func shellWord(t *testing.T, cmd string, i int) string {
	t.Helper()
	f := strings.Fields(cmd)
	if len(f) != 4 {
		t.Fatalf("popup command %q", cmd)
	}
	return f[i]
}

func TestAPrivateDirectoryOthersCouldTouchOnTheHostIsRefused(t *testing.T) {
	srv := sshtest.Start(t)
	state := filepath.Join(srv.Home, ".local/state/tmuxmcp")
	remote := filepath.Join(state, "remote")
	jobs := filepath.Join(remote, "jobs")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := connect(t, srv).Dir(ctx); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		rootOnly bool
		bad      string
		spoil    func() error
		want     []string
	}{
		{"jobs/ mode 0777", false, jobs, func() error { return os.Chmod(jobs, 0o777) }, []string{"other users may write", "mode 0777", "chmod 700 " + jobs}},
		{"the state directory mode 0775", false, state, func() error { return os.Chmod(state, 0o775) }, []string{"mode 0775"}},
		{"remote/ of uid 1234", true, remote, func() error { return os.Chown(remote, 1234, 1234) }, []string{"another user", "uid 1234"}},
		{"a parent others may write", false, filepath.Join(srv.Home, ".local"), func() error { return os.Chmod(filepath.Join(srv.Home, ".local"), 0o777) }, []string{"a parent other users may write"}},
	}
	for _, c := range cases {
		if c.rootOnly && os.Geteuid() != 0 {
			t.Logf("%s: skipped: giving a directory to uid 1234 takes root (os.Chown)", c.name)
			continue
		}
		if err := c.spoil(); err != nil {
			t.Fatal(err)
		}
		_, err := connect(t, srv).Dir(ctx)
		if err == nil {
			t.Fatalf("%s: the private directory was used", c.name)
		}
		t.Logf("%s: %v", c.name, err)
		for _, w := range append([]string{"host box", c.bad + ":"}, c.want...) {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: the refusal %q does not say %q", c.name, err, w)
			}
		}
		// Put right again, as the fix says.
		for _, p := range []string{state, remote, jobs} {
			if err := os.Chown(p, os.Geteuid(), os.Getegid()); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, 0o700); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chmod(filepath.Join(srv.Home, ".local"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	h := connect(t, srv)
	if _, err := h.Dir(ctx); err != nil {
		t.Fatalf("after the fixes: %v", err)
	}
	// A file where a job script goes is never written through or reused.
	p := h.ScriptPath("job2", ".run")
	target := filepath.Join(t.TempDir(), "theirs")
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
	if err := h.WriteFile(ctx, p, []byte("echo hi\n")); err == nil || !strings.Contains(err.Error(), p+": exists already") {
		t.Errorf("a job script over a planted link: %v", err)
	}
	if _, err := os.Stat(target); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the write went through the link: %v", err)
	}
}
