package httpmcp

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/tmuxmcp/tmuxmcp/private"
)

// MinToken is the shortest bearer token accepted.
const MinToken = 16

// LoadToken returns the bearer token: the --token-file, $TMUXMCP_TOKEN,
// or the token saved (or generated and written with mode 0600) under
// stateDir. It also says where the token can be found. A token file
// other users can read is refused.
func LoadToken(tokenFile, stateDir string, log *slog.Logger) (token, where string, err error) {
	env := strings.TrimSpace(os.Getenv("TMUXMCP_TOKEN"))
	if tokenFile != "" { // the explicit flag wins
		if env != "" {
			log.Warn("both --token-file and $TMUXMCP_TOKEN are set; using --token-file")
		}
		t, err := ReadToken(tokenFile)
		if err != nil {
			return "", "", fmt.Errorf("--token-file %s: %w", tokenFile, err)
		}
		return t, tokenFile, nil
	}
	if env != "" {
		if len(env) < MinToken {
			return "", "", fmt.Errorf("$TMUXMCP_TOKEN must be at least %d characters", MinToken)
		}
		return env, "$TMUXMCP_TOKEN", nil
	}
	// The state directory must be private before a token in it means
	// anything: in one another user may write, they could have planted it.
	if err := private.Dir(stateDir); err != nil {
		return "", "", fmt.Errorf("the state directory, which holds the HTTP token: %w", err)
	}
	path := TokenPath(stateDir)
	switch t, err := ReadToken(path); {
	case err == nil:
		return t, path, nil
	case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, ErrShortToken):
		return "", "", fmt.Errorf("the HTTP token file %s (under --state-dir): %w", path, err)
	}
	// None yet, or too short to be one of ours: a new one.
	t := rand.Text()
	if err := private.WriteFile(path, []byte(t+"\n")); err != nil {
		return "", "", fmt.Errorf("write token: %w", err)
	}
	return t, path, nil
}

// TokenPath is where LoadToken keeps the token it generates under
// stateDir.
func TokenPath(stateDir string) string { return filepath.Join(stateDir, "http-token") }

// ErrShortToken is ReadToken's error for a file too short to hold a token.
var ErrShortToken = fmt.Errorf("the token must be at least %d characters", MinToken)

// ReadToken reads a token file, refusing one that is not the user's
// private file (another user's, or one others may read or write: with
// the fix) and one shorter than MinToken (ErrShortToken). A symbolic link
// is followed; the file it names is checked.
func ReadToken(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if err := private.CheckOpen(f); err != nil {
		return "", err // whoever else can read or write it can drive your shells
	}
	b, err := io.ReadAll(io.LimitReader(f, 64<<10))
	if err != nil {
		return "", err
	}
	t := strings.TrimSpace(string(b))
	if len(t) < MinToken {
		return "", ErrShortToken
	}
	return t, nil
}
