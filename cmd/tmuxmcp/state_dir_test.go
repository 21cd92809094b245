package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/internal/tmuxtest"
)

// startRefused runs tmuxmcp with args and fails unless it exits with an
// error whose message says each of want.
func startRefused(t *testing.T, args []string, want ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, buildBinary(t), args...)
	cmd.Env = append(os.Environ(), "TMUXMCP_TOKEN=")
	var stderr bytes.Buffer
	cmd.Stdin, cmd.Stderr = strings.NewReader(""), &stderr
	if err := cmd.Run(); err == nil {
		t.Fatalf("tmuxmcp %s started:\n%s", strings.Join(args, " "), stderr.String())
	}
	for _, w := range want {
		if !strings.Contains(stderr.String(), w) {
			t.Errorf("tmuxmcp's refusal does not say %q:\n%s", w, stderr.String())
		}
	}
}

// privateDir is a new directory of mode 0700 in a private one.
func privateDir(t *testing.T) string {
	t.Helper()
	base := t.TempDir()
	if err := os.Chmod(base, 0o700); err != nil {
		t.Fatal(err)
	}
	d := filepath.Join(base, "state")
	if err := os.Mkdir(d, 0o700); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestTheServerRefusesAStateDirectoryOthersCouldTouch(t *testing.T) {
	t.Parallel()
	socket := "tmuxmcp-absent-" + strings.ReplaceAll(t.Name(), "/", "-")
	open := privateDir(t)
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	startRefused(t, []string{"-L", socket, "--state-dir", open}, "state directory: "+open+": other users may write", "mode 0777", "chmod 700 "+open, "--state-dir")
	jobs := filepath.Join(privateDir(t), "jobs")
	if err := os.Mkdir(jobs, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(jobs, 0o770); err != nil {
		t.Fatal(err)
	}
	startRefused(t, []string{"-L", socket, "--state-dir", filepath.Dir(jobs)}, jobs+": other users may write", "chmod 700 "+jobs)
	if os.Geteuid() != 0 {
		t.Log("a state directory of uid 1234: skipped, os.Chown takes root")
		return
	}
	theirs := privateDir(t)
	if err := os.Chown(theirs, 1234, 1234); err != nil {
		t.Fatal(err)
	}
	startRefused(t, []string{"-L", socket, "--state-dir", theirs}, theirs+": a directory of another user", "uid 1234", "--state-dir")
	if _, err := os.Stat(filepath.Join(theirs, "jobs")); err == nil {
		t.Error("tmuxmcp wrote in the state directory it refused")
	}
}

func TestTheServerRefusesAPlantedHTTPToken(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("a token of uid 1234: os.Chown takes root")
	}
	target := tmuxtest.Server(t, "agent", 80, 24)
	state := privateDir(t)
	token := filepath.Join(state, "http-token")
	if err := os.WriteFile(token, []byte("planted-planted-planted\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(token, 1234, 1234); err != nil {
		t.Fatal(err)
	}
	startRefused(t, []string{"-L", target.SocketName, "--session", "agent", "--state-dir", state, "--http", "127.0.0.1:0"}, token+": a file of another user", "uid 1234", "rm "+token)
}
