// Package httpmcp is tmuxmcp's Streamable HTTP transport. It serves an
// *mcp.Server at /mcp behind a guard that decides from the headers alone:
// a request without the bearer token gets 401 with WWW-Authenticate and
// its connection closed without its body being read, and one from a
// foreign Origin gets 403. The body of a request that passes must then
// arrive within a deadline (408). The live sessions are capped: a new one
// past the cap replaces a long-idle one or is refused with 503 and
// Retry-After. The package also loads the bearer token file and the TLS
// certificate, and runs the HTTP server until its context ends, then
// drains it.
//
// It knows nothing of tmux (nor its panes) or the tools: it serves any
// *mcp.Server.
package httpmcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxRequestBody caps an HTTP request body.
const maxRequestBody = 4 << 20

// The HTTP bounds' defaults.
const (
	// DefaultMaxSessions and MaxSessionsLimit are --max-sessions' default
	// and ceiling.
	DefaultMaxSessions = 64
	MaxSessionsLimit   = 10000
	// DefaultBodyTimeout is how long a request's whole body may take to
	// arrive once its headers have been read and its token checked.
	DefaultBodyTimeout = 10 * time.Second
	// DefaultEvictIdle is how long a session must have been idle before a
	// new session may take its place when --max-sessions is reached.
	DefaultEvictIdle = 5 * time.Minute
	// IdleConnTimeout closes keep-alive connections that carry no request.
	IdleConnTimeout = 60 * time.Second
	// ReadHeaderTimeout bounds the TLS handshake and the request headers.
	ReadHeaderTimeout = 10 * time.Second
)

// Config configures Handler. Zero durations and counts get the defaults
// above.
type Config struct {
	Token          string        // the bearer token; "" only with --no-auth on loopback
	TokenWhere     string        // where a person finds the token, for 401 answers
	SessionTimeout time.Duration // the SDK closes sessions idle this long (0: never)
	MaxSessions    int           // live sessions at most
	BodyTimeout    time.Duration // a request body must arrive within this
	EvictIdle      time.Duration // a session idle this long may be evicted at the cap
	AllowOrigins   []string      // extra origins served, normalised scheme://host[:port] (see Origins)
	Now            func() time.Time
	Log            *slog.Logger
}

func (c Config) withDefaults() Config {
	if c.MaxSessions <= 0 {
		c.MaxSessions = DefaultMaxSessions
	}
	if c.BodyTimeout <= 0 {
		c.BodyTimeout = DefaultBodyTimeout
	}
	if c.EvictIdle <= 0 {
		c.EvictIdle = DefaultEvictIdle
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	return c
}

// Handler serves server over Streamable HTTP at /mcp. Before any body is
// read, a request must carry the bearer token (compared in constant time)
// and, if it has an Origin, come from the server's own origin or an
// allowed one; its body must then arrive within the body timeout. New
// sessions past the cap evict a long-idle one or are refused. The SDK adds
// DNS-rebinding protection and closes sessions idle for SessionTimeout.
func Handler(server *mcp.Server, cfg Config) http.Handler {
	cfg = cfg.withDefaults()
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{SessionTimeout: cfg.SessionTimeout, Logger: cfg.Log, MaxRequestBodyBytes: maxRequestBody})
	if cfg.Token != "" {
		// The guard has checked the token already; this adds the TokenInfo
		// that binds each session to the token holder.
		verify := func(_ context.Context, got string, _ *http.Request) (*auth.TokenInfo, error) {
			if !sameToken(got, cfg.Token) {
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
	cfg  Config
	next http.Handler
}

// ServeHTTP refuses r or passes it on with its body read.
func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if g.cfg.Token != "" {
		got, sent := bearerToken(r)
		if !sameToken(got, g.cfg.Token) {
			challenge := `Bearer realm="tmuxmcp"`
			msg := "Unauthorized: no bearer token"
			if sent {
				challenge += `, error="invalid_token"`
				msg = "Unauthorized: wrong bearer token"
			}
			w.Header().Set("WWW-Authenticate", challenge)
			g.cfg.Log.Debug("HTTP request refused: "+msg, "remote", r.RemoteAddr)
			reject(w, http.StatusUnauthorized, msg+`; send the header "Authorization: Bearer <token>" with the token from `+g.cfg.TokenWhere)
			return
		}
	}
	if origin := r.Header.Get("Origin"); origin != "" && !originAllowed(r, origin, g.cfg.AllowOrigins) {
		g.cfg.Log.Debug("HTTP request refused: foreign origin", "origin", origin, "remote", r.RemoteAddr)
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
				g.cfg.Log.Debug("HTTP request body too slow", "remote", r.RemoteAddr, "timeout", g.cfg.BodyTimeout)
				reject(w, http.StatusRequestTimeout, fmt.Sprintf("Request Timeout: the body did not arrive within %v", g.cfg.BodyTimeout))
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
	if err := rc.SetReadDeadline(time.Now().Add(g.cfg.BodyTimeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
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
