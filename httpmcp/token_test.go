package httpmcp

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// plantedStateDir is a state directory with a token someone put there.
func plantedStateDir(t *testing.T, mode os.FileMode) (dir, token string) {
	t.Helper()
	base := t.TempDir()
	if err := os.Chmod(base, 0o700); err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(base, "state")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	token = TokenPath(dir)
	if err := os.WriteFile(token, []byte(testToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(token, mode); err != nil {
		t.Fatal(err)
	}
	return dir, token
}

// refusedToken fails unless Prepare refuses the token with each of want,
// and accepts no token.
func refusedToken(t *testing.T, o SetupOptions, want ...string) {
	t.Helper()
	s, err := Prepare(o, slog.New(slog.DiscardHandler))
	if err == nil {
		t.Fatalf("the planted token was accepted: %q from %s", s.Token, s.TokenWhere)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("the refusal %q does not say %q", err, w)
		}
	}
}

func TestATokenAnotherUserPlantedIsNeverAccepted(t *testing.T) {
	t.Setenv("TMUXMCP_TOKEN", "")
	if os.Geteuid() != 0 {
		t.Skip("giving a token file to uid 1234 takes root (os.Chown); run the tests as root to cover another owner")
	}
	dir, token := plantedStateDir(t, 0o600)
	if err := os.Chown(token, 1234, 1234); err != nil {
		t.Fatal(err)
	}
	refusedToken(t, SetupOptions{Addr: "127.0.0.1:0", StateDir: dir}, token+": a file of another user", "uid 1234", "rm "+token)
	refusedToken(t, SetupOptions{Addr: "127.0.0.1:0", TokenFile: token, StateDir: dir}, "--token-file", "uid 1234")
	// In a state directory of theirs, a token of yours is not trusted
	// either: they could have put it there.
	dir2, _ := plantedStateDir(t, 0o600)
	if err := os.Chown(dir2, 1234, 1234); err != nil {
		t.Fatal(err)
	}
	refusedToken(t, SetupOptions{Addr: "127.0.0.1:0", StateDir: dir2}, dir2+":", "uid 1234")
}

func TestATokenInAStateDirectoryOthersMayWriteIsRefused(t *testing.T) {
	t.Setenv("TMUXMCP_TOKEN", "")
	dir, token := plantedStateDir(t, 0o600)
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	refusedToken(t, SetupOptions{Addr: "127.0.0.1:0", StateDir: dir}, dir+":", "chmod 700 "+dir)
	if b, err := os.ReadFile(token); err != nil || string(b) != testToken+"\n" {
		t.Errorf("the refused directory's token was changed: %q %v", b, err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(token, 0o644); err != nil {
		t.Fatal(err)
	}
	refusedToken(t, SetupOptions{Addr: "127.0.0.1:0", StateDir: dir}, token+": other users may read or write it", "mode 0644", "chmod 600 "+token)
	if err := os.Chmod(token, 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err := Prepare(SetupOptions{Addr: "127.0.0.1:0", StateDir: dir}, slog.New(slog.DiscardHandler)); err != nil || s.Token != testToken {
		t.Errorf("your own token, mode 0600, in your own state directory: %+v %v", s, err)
	}
}
