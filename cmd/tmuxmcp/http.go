package main

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxRequestBody caps an HTTP request body.
const maxRequestBody = 4 << 20

// httpHandler serves server over Streamable HTTP at /mcp: stateful
// sessions closed after idle, DNS-rebinding protection (the SDK's), bodies
// capped, and every request carrying the bearer token (compared in constant
// time).
func httpHandler(server *mcp.Server, token string, idle time.Duration, log *slog.Logger) http.Handler {
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{SessionTimeout: idle, Logger: log})
	verify := func(_ context.Context, got string, _ *http.Request) (*auth.TokenInfo, error) {
		if subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
			return nil, auth.ErrInvalidToken
		}
		// UserID binds each session to the token holder.
		return &auth.TokenInfo{UserID: "tmuxmcp-token", Expiration: time.Now().Add(24 * time.Hour)}, nil
	}
	var protected http.Handler = mcpHandler
	if token != "" { // "" only with --no-auth on loopback
		protected = auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{})(mcpHandler)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", http.MaxBytesHandler(protected, maxRequestBody))
	return mux
}

// loopback reports whether addr's host is a loopback address or localhost.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// minToken is the shortest bearer token accepted.
const minToken = 16

// loadToken returns the bearer token: $TMUXMCP_TOKEN, the --token-file,
// or a new one written with mode 0600 under stateDir. It also says where
// the token can be found.

func loadToken(tokenFile, stateDir string, log *slog.Logger) (token, where string, err error) {
	env := strings.TrimSpace(os.Getenv("TMUXMCP_TOKEN"))
	if tokenFile != "" { // the explicit flag wins
		if env != "" {
			log.Warn("both --token-file and $TMUXMCP_TOKEN are set; using --token-file")
		}
		b, err := os.ReadFile(tokenFile)
		if err != nil {
			return "", "", fmt.Errorf("--token-file: %w", err)
		}
		if st, err := os.Stat(tokenFile); err == nil && st.Mode().Perm()&0o077 != 0 {
			log.Warn("the token file is readable by other users: chmod 600 " + tokenFile)
		}
		t := strings.TrimSpace(string(b))
		if len(t) < minToken {
			return "", "", fmt.Errorf("--token-file %s: the token must be at least %d characters", tokenFile, minToken)
		}
		return t, tokenFile, nil
	}
	if env != "" {
		if len(env) < minToken {
			return "", "", fmt.Errorf("$TMUXMCP_TOKEN must be at least %d characters", minToken)
		}
		return env, "$TMUXMCP_TOKEN", nil
	}
	path := filepath.Join(stateDir, "http-token")
	if b, err := os.ReadFile(path); err == nil {
		if t := strings.TrimSpace(string(b)); len(t) >= minToken {
			return t, path, nil
		}
	}
	t := rand.Text()
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return "", "", fmt.Errorf("write token: %w", err)
	}
	if err := os.WriteFile(path, []byte(t+"\n"), 0o600); err != nil {
		return "", "", fmt.Errorf("write token: %w", err)
	}
	return t, path, nil
}

// serveHTTP runs the HTTP server on ln until ctx ends.
func serveHTTP(ctx context.Context, ln net.Listener, handler http.Handler) error {
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		return nil
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	}
}
