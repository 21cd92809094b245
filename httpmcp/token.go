package httpmcp

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
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
	path := TokenPath(stateDir)
	switch t, err := ReadToken(path); {
	case err == nil:
		return t, path, nil
	case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, ErrShortToken):
		return "", "", fmt.Errorf("the HTTP token file %s (under --state-dir): %w", path, err)
	}
	// None yet, or too short to be one of ours: a new one.
	t := rand.Text()
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return "", "", fmt.Errorf("write token: %w", err)
	}
	if err := os.WriteFile(path, []byte(t+"\n"), 0o600); err != nil {
		return "", "", fmt.Errorf("write token: %w", err)
	}
	return t, path, nil
}

// TokenPath is where LoadToken keeps the token it generates under
// stateDir.
func TokenPath(stateDir string) string { return filepath.Join(stateDir, "http-token") }

// ErrShortToken is ReadToken's error for a file too short to hold a token.
var ErrShortToken = fmt.Errorf("the token must be at least %d characters", MinToken)

// ReadToken reads a token file, refusing one other users can read (with
// the fix) and one shorter than MinToken (ErrShortToken).
func ReadToken(path string) (string, error) {
	if err := privateFile(path); err != nil {
		return "", err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	t := strings.TrimSpace(string(b))
	if len(t) < MinToken {
		return "", ErrShortToken
	}
	return t, nil
}

// privateFile returns an error naming the fix if path can be read (or
// written) by its group or other users.
func privateFile(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("mode %04o lets other users read the token and drive your shells; fix it with: chmod 600 %s", perm, path)
	}
	return nil
}
