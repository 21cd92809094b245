package engine

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/audit"
	"github.com/tmuxmcp/tmuxmcp/internal/testdir"
	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/machine"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// neverStarted is a tmux server OpenHost must not get to.
var neverStarted = tmux.Target{SocketName: "tmuxmcp-test-never-started"}

func TestAStateDirectoryOthersCouldTouchIsRefusedAtOpen(t *testing.T) {
	t.Parallel()
	root := os.Geteuid() == 0
	for name, c := range map[string]struct {
		rootOnly bool
		prepare  func(state string) (bad string)
		want     []string
	}{
		"state directory of uid 1234": {true, func(s string) string { chown(t, s); return s }, []string{"another user", "uid 1234", "choose another directory"}},
		"state directory mode 0777":   {false, func(s string) string { chmod(t, s, 0o777); return s }, []string{"other users may write", "mode 0777", "chmod 700 "}},
		"jobs/ of uid 1234": {true, func(s string) string {
			j := mkdir(t, s, "jobs")
			chown(t, j)
			return j
		}, []string{"uid 1234"}},
		"jobs/ mode 0777": {false, func(s string) string { j := mkdir(t, s, "jobs"); chmod(t, j, 0o777); return j }, []string{"chmod 700 "}},
		"shell/bash mode 0775": {false, func(s string) string {
			b := mkdir(t, mkdir(t, s, "shell"), "bash")
			chmod(t, b, 0o775)
			return b
		}, []string{"mode 0775"}},
		"approvals/ a link of uid 1234": {true, func(s string) string {
			l := filepath.Join(s, "approvals")
			if err := os.Symlink(t.TempDir(), l); err != nil {
				t.Fatal(err)
			}
			if err := os.Lchown(l, 1234, 1234); err != nil {
				t.Fatal(err)
			}
			return l
		}, []string{"symbolic link of another user"}},
	} {
		t.Run(name, func(t *testing.T) {
			if c.rootOnly && !root {
				t.Skip("giving a directory to uid 1234 takes root (os.Chown); run the tests as root to cover another owner")
			}
			state := mkdir(t, testdir.Private(t), "state")
			bad := c.prepare(state)
			before := listTree(t, state)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			h, err := OpenHost(ctx, Config{Target: neverStarted, StateDir: state})
			if err == nil {
				h.Close()
				t.Fatal("opened")
			}
			for _, w := range append([]string{"state directory: " + bad + ":"}, c.want...) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the refusal %q does not say %q", err, w)
				}
			}
			if after := listTree(t, state); after != before {
				t.Errorf("a refused state directory was changed:\n%s\nnow:\n%s", before, after)
			}
		})
	}
}

// listTree is every path under dir with its mode and owner, one a line.
func listTree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if info, err := d.Info(); err == nil {
			st := info.Sys().(*syscall.Stat_t)
			b.WriteString(p + " " + info.Mode().String() + " " + strconv.Itoa(int(st.Uid)) + "\n")
		}
		return nil
	})
	return b.String()
}

func mkdir(t *testing.T, parent, name string) string {
	t.Helper()
	p := filepath.Join(parent, name)
	if err := os.Mkdir(p, 0o700); err != nil {
		t.Fatal(err)
	}
	return p
}

func chmod(t *testing.T, p string, mode fs.FileMode) {
	t.Helper()
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

func chown(t *testing.T, p string) {
	t.Helper()
	if err := os.Chown(p, 1234, 1234); err != nil {
		t.Fatal(err)
	}
}

func TestEveryDirectoryIs0700AndEveryFile0600AfterCommandsRan(t *testing.T) {
	t.Parallel()
	state := filepath.Join(testdir.Private(t), "xdg", "state", "tmuxmcp")
	log := filepath.Join(testdir.Private(t), "audit.jsonl")
	al, err := audit.Open(log)
	if err != nil {
		t.Fatal(err)
	}
	defer al.Close()
	h := openHost(t, Config{StateDir: state, Audit: al})
	pane := newShell(t, h)
	wait := int64(30000)
	jobsDir := filepath.Join(state, "jobs")
	// A fresh pane's command runs from a job script; its files are there
	// while it runs, the status file made by tmuxmcp (the pane's umask is
	// 022): each is the user's, mode 0600.
	r, err := h.RunShellCommand(t.Context(), nil, &RunShellCommandRequest{WaitMs: &wait,
		Command: "cd " + jobsDir + " && stat -c '%a %u' * | sort -u && ls | sed 's/^[^.]*//' | sort -u | tr '\\n' ' '"})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(r.Output, "\n")
	if want := "600 " + strconv.Itoa(os.Geteuid()); r.Status != string(jobs.Completed) || len(got) != 2 || got[0] != want {
		t.Fatalf("the job's files while it ran: %+v, want only %q", r, want)
	}
	for _, kind := range []string{".json", ".sh", ".run", ".rc", ".raw"} {
		if !strings.Contains(got[1], kind+" ") {
			t.Errorf("no %s file while the job ran: %q", kind, got[1])
		}
	}
	limit := 100
	if r, err := h.RunShellCommand(t.Context(), nil, &RunShellCommandRequest{Command: "seq 1 5000", PaneID: &pane, WaitMs: &wait, OutputLimit: &limit}); err != nil || r.OutputFile == nil {
		t.Fatalf("a long output: %+v %v, want an output file", r, err)
	}
	dir := t.TempDir()
	for _, req := range []*RunShellCommandRequest{
		{Command: "echo typed as is", PaneID: &pane, WaitMs: &wait},
		{Command: "echo from a job script", PaneID: &pane, CWD: &dir, WaitMs: &wait},
	} {
		if r, err := h.RunShellCommand(t.Context(), nil, req); err != nil || r.Status != string(jobs.Completed) {
			t.Fatalf("%s: %+v %v", req.Command, r, err)
		}
	}
	dirs, files := 0, 0
	err = filepath.WalkDir(filepath.Dir(filepath.Dir(state)), func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // a job's script files go once it has ended, maybe during the walk
		}
		if err != nil {
			return err
		}
		info, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		st := info.Sys().(*syscall.Stat_t)
		switch {
		case int(st.Uid) != os.Geteuid():
			t.Errorf("%s: owner uid %d", p, st.Uid)
		case info.IsDir():
			dirs++
			if info.Mode().Perm() != 0o700 {
				t.Errorf("directory %s: mode %v, want 0700", p, info.Mode())
			}
		case info.Mode().IsRegular():
			files++
			if info.Mode().Perm() != 0o600 {
				t.Errorf("file %s: mode %v, want 0600", p, info.Mode())
			}
		default:
			t.Errorf("%s: %v, neither a directory nor a regular file", p, info.Mode())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(log); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("the audit log: %v %v, want mode 0600", st.Mode(), err)
	}
	if dirs < 6 || files < 10 {
		t.Errorf("only %d directories and %d files were made: the walk saw too little to tell", dirs, files)
	}
	t.Logf("%d directories (0700) and %d files (0600) under %s", dirs, files, state)
}

// plantingMachine is this machine, where another user wins every race: a
// link to their own script stands at each job script's path before
// tmuxmcp writes it.
type plantingMachine struct {
	machine.Local
	evil string // the script they want run
}

func (m plantingMachine) WriteFile(ctx context.Context, path string, data []byte) error {
	if strings.HasSuffix(path, ".run") {
		_ = os.Symlink(m.evil, path)
	}
	return m.Local.WriteFile(ctx, path, data)
}

func TestAJobScriptPlantedAtItsPathIsRefusedAndNothingRuns(t *testing.T) {
	t.Parallel()
	state := filepath.Join(testdir.Private(t), "state")
	base := testdir.Private(t)
	evil, ran := filepath.Join(base, "evil.sh"), filepath.Join(base, "evil-ran")
	if err := os.WriteFile(evil, []byte("touch "+ran+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	m := plantingMachine{Local: machine.Local{Dir: filepath.Join(state, "jobs")}, evil: evil}
	h := openHost(t, Config{StateDir: state, Machine: m})
	pane := newShell(t, h)
	wait := int64(30000)
	marker := filepath.Join(base, "command-ran")
	r, err := h.RunShellCommand(t.Context(), nil, &RunShellCommandRequest{Command: "touch " + marker, PaneID: &pane, WaitMs: &wait})
	if err == nil && r.Status != string(jobs.NotStarted) {
		t.Fatalf("a command whose script path was taken: %+v", r)
	}
	msg := ""
	if err != nil {
		msg = err.Error()
	} else if r.LaunchError != nil {
		msg = *r.LaunchError
	}
	if !strings.Contains(msg, ".run: exists already") {
		t.Errorf("the refusal %q does not name the planted script", msg)
	}
	// Give a sourced script every chance to have run.
	if _, err := h.RunShellCommand(t.Context(), nil, &RunShellCommandRequest{Command: "true", PaneID: &pane, WaitMs: &wait}); err != nil {
		t.Log(err)
	}
	for _, p := range []string{ran, marker} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s exists: something ran", p)
		}
	}
}
