package httpmcp

import (
	"context"
	"crypto/tls"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"
)

// SetupOptions are the settings Prepare reads: tmuxmcp's --http,
// --no-auth, --token-file, --tls-cert and --tls-key, and the state
// directory a generated token is kept in.
type SetupOptions struct {
	Addr      string // the address served (--http)
	NoAuth    bool   // serve without a bearer token (--no-auth)
	TokenFile string // "" for $TMUXMCP_TOKEN or the generated token
	StateDir  string // where the generated token is kept
	TLSCert   string // "" for plain HTTP
	TLSKey    string
}

// Setup is what the transport needs before it listens.
type Setup struct {
	Token      string      // "" with --no-auth
	TokenWhere string      // where a person finds the token
	TLS        *tls.Config // nil: plain HTTP
}

// Prepare loads the bearer token and the TLS certificate, and warns when
// the token would cross the network in clear text.
func Prepare(o SetupOptions, log *slog.Logger) (*Setup, error) {
	s := &Setup{TokenWhere: "none (--no-auth)"}
	if !o.NoAuth {
		var err error
		if s.Token, s.TokenWhere, err = LoadToken(o.TokenFile, o.StateDir, log); err != nil {
			return nil, err
		}
	}
	if o.TLSCert != "" {
		var err error
		if s.TLS, err = LoadTLS(o.TLSCert, o.TLSKey); err != nil {
			return nil, err
		}
	}
	if s.TLS == nil && !Loopback(o.Addr) {
		log.Warn("INSECURE: --http " + o.Addr + " is reachable from the network over plain HTTP, so the bearer token travels in clear text and anyone who can watch the traffic can take it and drive your shells; " +
			"serve TLS with --tls-cert FILE --tls-key FILE, or listen on 127.0.0.1 and connect through an SSH tunnel (ssh -L PORT:127.0.0.1:PORT host)")
	}
	return s, nil
}

// LoadTLS reads the --tls-cert and --tls-key files, naming the flag at
// fault when one cannot be used.
func LoadTLS(certFile, keyFile string) (*tls.Config, error) {
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

// Loopback reports whether addr's host is a loopback address or localhost.
func Loopback(addr string) bool {
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

// Serve runs the HTTP server on ln until ctx ends, over TLS when
// tlsConfig is not nil; then it shuts the server down, giving open
// requests 5 s. There is no overall read timeout, which would cut long
// waits and SSE streams: bodies have their own deadline (the guard).
func Serve(ctx context.Context, ln net.Listener, handler http.Handler, tlsConfig *tls.Config, log *slog.Logger) error {
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: ReadHeaderTimeout,
		IdleTimeout:       IdleConnTimeout,
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
