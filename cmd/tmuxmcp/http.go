package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
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

// The HTTP bounds' defaults.
const (
	// defaultMaxSessions and maxMaxSessions are --max-sessions' default
	// and ceiling.
	defaultMaxSessions = 64
	maxMaxSessions     = 10000
	// defaultBodyTimeout is how long a request's whole body may take to
	// arrive once its headers have been read and its token checked.
	defaultBodyTimeout = 10 * time.Second
	// defaultEvictIdle is how long a session must have been idle before a
	// new session may take its place when --max-sessions is reached.
	defaultEvictIdle = 5 * time.Minute
	// idleConnTimeout closes keep-alive connections that carry no request.
	idleConnTimeout = 60 * time.Second
	// readHeaderTimeout bounds the TLS handshake and the request headers.
	readHeaderTimeout = 10 * time.Second
)

// httpConfig configures httpHandler. Zero durations and counts get the
// defaults above.
type httpConfig struct {
	token          string        // "" only with --no-auth on loopback
	tokenWhere     string        // where a person finds the token, for 401 answers
	sessionTimeout time.Duration // the SDK closes sessions idle this long (0: never)
	maxSessions    int           // live sessions at most
	bodyTimeout    time.Duration // a request body must arrive within this
	evictIdle      time.Duration // a session idle this long may be evicted at the cap
	allowOrigins   []string      // extra origins served, normalised scheme://host[:port]
	now            func() time.Time
	log            *slog.Logger
}

func (c httpConfig) withDefaults() httpConfig {
	if c.maxSessions <= 0 {
		c.maxSessions = defaultMaxSessions
	}
	if c.bodyTimeout <= 0 {
		c.bodyTimeout = defaultBodyTimeout
	}
	if c.evictIdle <= 0 {
		c.evictIdle = defaultEvictIdle
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	return c
}

// httpHandler serves server over Streamable HTTP at /mcp. Before any body
// is read, a request must carry the bearer token (compared in constant
// time) and, if it has an Origin, come from tmuxmcp's own origin or an
// allowed one; its body must then arrive within the body timeout. New
// sessions past the cap evict a long-idle one or are refused. The SDK adds
// DNS-rebinding protection and closes sessions idle for sessionTimeout.
func httpHandler(server *mcp.Server, cfg httpConfig) http.Handler {
	cfg = cfg.withDefaults()
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{SessionTimeout: cfg.sessionTimeout, Logger: cfg.log, MaxRequestBodyBytes: maxRequestBody})
	if cfg.token != "" {
		// The guard has checked the token already; this adds the TokenInfo
		// that binds each session to the token holder.
		verify := func(_ context.Context, got string, _ *http.Request) (*auth.TokenInfo, error) {
			if !sameToken(got, cfg.token) {
				return nil, auth.ErrInvalidToken
			}
			return &auth.TokenInfo{UserID: "tmuxmcp-token", Expiration: time.Now().Add(24 * time.Hour)}, nil
		}
		h = auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{})(h)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", newSessionCap(server, cfg, h))
	return &guard{cfg: cfg, next: mux}
}

// guard answers, from the headers alone, requests without the token or
// from a foreign origin, and reads the bodies of the others under a
// deadline before passing them on.
type guard struct {
	cfg  httpConfig
	next http.Handler
}

// ServeHTTP refuses r or passes it on with its body read.
func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if g.cfg.token != "" {
		got, sent := bearerToken(r)
		if !sameToken(got, g.cfg.token) {
			challenge := `Bearer realm="tmuxmcp"`
			msg := "Unauthorized: no bearer token"
			if sent {
				challenge += `, error="invalid_token"`
				msg = "Unauthorized: wrong bearer token"
			}
			w.Header().Set("WWW-Authenticate", challenge)
			g.cfg.log.Debug("HTTP request refused: "+msg, "remote", r.RemoteAddr)
			reject(w, http.StatusUnauthorized, msg+`; send the header "Authorization: Bearer <token>" with the token from `+g.cfg.tokenWhere)
			return
		}
	}
	if origin := r.Header.Get("Origin"); origin != "" && !originAllowed(r, origin, g.cfg.allowOrigins) {
		g.cfg.log.Debug("HTTP request refused: foreign origin", "origin", origin, "remote", r.RemoteAddr)
		reject(w, http.StatusForbidden, fmt.Sprintf("Forbidden: origin %q is not tmuxmcp's own; to serve it, start tmuxmcp with --allow-origin %s", origin, origin))
		return
	}
	if r.ContentLength > maxRequestBody {
		reject(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("Request Entity Too Large: the body exceeds %d bytes", maxRequestBody))
		return
	}
	if r.Body != nil && r.Body != http.NoBody {
		body, err := g.readBody(w, r)
		if err != nil {
			var tooBig *http.MaxBytesError
			switch {
			case errors.As(err, &tooBig):
				reject(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("Request Entity Too Large: the body exceeds %d bytes", maxRequestBody))
			case errors.Is(err, os.ErrDeadlineExceeded):
				g.cfg.log.Debug("HTTP request body too slow", "remote", r.RemoteAddr, "timeout", g.cfg.bodyTimeout)
				reject(w, http.StatusRequestTimeout, fmt.Sprintf("Request Timeout: the body did not arrive within %v", g.cfg.bodyTimeout))
			default:
				reject(w, http.StatusBadRequest, "Bad Request: reading the body: "+err.Error())
			}
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	g.next.ServeHTTP(w, r)
}

// readBody reads r's capped body within the body timeout, then lifts the
// deadline so that a long answer (a wait, an SSE stream) is not cut.
func (g *guard) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	rc := http.NewResponseController(w)
	if err := rc.SetReadDeadline(time.Now().Add(g.cfg.bodyTimeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return nil, err
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBody))
	if err != nil {
		return nil, err
	}
	if err := rc.SetReadDeadline(time.Time{}); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return nil, err
	}
	return body, nil
}

// bearerToken returns the request's bearer token and whether it sent an
// Authorization header at all.
func bearerToken(r *http.Request) (token string, sent bool) {
	h := strings.TrimSpace(r.Header.Get("Authorization"))
	scheme, rest, _ := strings.Cut(h, " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(rest), true
}

// sameToken compares tokens in constant time, their lengths included.
func sameToken(got, want string) bool {
	a, b := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(want))
	return got != "" && subtle.ConstantTimeCompare(a[:], b[:]) == 1
}

// reject answers a request that goes no further with status and a
// one-line JSON-RPC error (which the Go SDK's client shows its user), and
// closes the connection. net/http would otherwise read what is left of
// the body, for as long as the sender takes: before it writes the answer
// unless it says "Connection: close", and before it closes the
// connection unless reading has already failed (the expired deadline).
func reject(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Connection", "close")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	writeJSONRPCError(w, msg)
	_ = http.NewResponseController(w).SetReadDeadline(time.Now())
}

// writeJSONRPCError writes a JSON-RPC error with no id, on one line.
func writeJSONRPCError(w io.Writer, msg string) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": -32001, "message": msg}})
}

// loopback reports whether addr's host is a loopback address or localhost.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	return loopbackHost(host)
}

// loopbackHost reports whether host (no port) is a loopback address or
// localhost.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// minToken is the shortest bearer token accepted.
const minToken = 16

// loadToken returns the bearer token: the --token-file, $TMUXMCP_TOKEN,
// or the token saved (or generated and written with mode 0600) under
// stateDir. It also says where the token can be found. A token file
// other users can read is refused.
func loadToken(tokenFile, stateDir string, log *slog.Logger) (token, where string, err error) {
	env := strings.TrimSpace(os.Getenv("TMUXMCP_TOKEN"))
	if tokenFile != "" { // the explicit flag wins
		if env != "" {
			log.Warn("both --token-file and $TMUXMCP_TOKEN are set; using --token-file")
		}
		t, err := readToken(tokenFile)
		if err != nil {
			return "", "", fmt.Errorf("--token-file %s: %w", tokenFile, err)
		}
		return t, tokenFile, nil
	}
	if env != "" {
		if len(env) < minToken {
			return "", "", fmt.Errorf("$TMUXMCP_TOKEN must be at least %d characters", minToken)
		}
		return env, "$TMUXMCP_TOKEN", nil
	}
	path := generatedTokenPath(stateDir)
	switch t, err := readToken(path); {
	case err == nil:
		return t, path, nil
	case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, errShortToken):
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

// generatedTokenPath is where tmuxmcp keeps the token it generates.
func generatedTokenPath(stateDir string) string { return filepath.Join(stateDir, "http-token") }

// errShortToken is readToken's error for a file too short to hold a token.
var errShortToken = fmt.Errorf("the token must be at least %d characters", minToken)

// readToken reads a token file, refusing one other users can read (with
// the fix) and one shorter than minToken (errShortToken).
func readToken(path string) (string, error) {
	if err := privateFile(path); err != nil {
		return "", err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	t := strings.TrimSpace(string(b))
	if len(t) < minToken {
		return "", errShortToken
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

// loadTLS reads the --tls-cert and --tls-key files, naming the flag at
// fault when one cannot be used.
func loadTLS(certFile, keyFile string) (*tls.Config, error) {
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return nil, fmt.Errorf("--tls-cert: %w", err)
	}
	if b, _ := pem.Decode(certPEM); b == nil || b.Type != "CERTIFICATE" {
		return nil, fmt.Errorf("--tls-cert %s: no PEM CERTIFICATE block; give the server's certificate (chain) in PEM", certFile)
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, fmt.Errorf("--tls-key: %w", err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("--tls-cert %s --tls-key %s: %w (give the certificate and its own private key, both PEM)", certFile, keyFile, err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// serveHTTP runs the HTTP server on ln until ctx ends, over TLS when
// tlsConfig is not nil. There is no overall read timeout, which would cut
// long waits and SSE streams: bodies have their own deadline (guard).
func serveHTTP(ctx context.Context, ln net.Listener, handler http.Handler, tlsConfig *tls.Config, log *slog.Logger) error {
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: readHeaderTimeout,
		IdleTimeout:       idleConnTimeout,
		TLSConfig:         tlsConfig,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
	errc := make(chan error, 1)
	go func() {
		if tlsConfig != nil {
			errc <- srv.ServeTLS(ln, "", "")
		} else {
			errc <- srv.Serve(ln)
		}
	}()
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
