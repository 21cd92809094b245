package main

import (
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmuxmcp/tmuxmcp/httpmcp"
)

func TestHTTPAllowOriginFlag(t *testing.T) {
	for _, bad := range []string{"app.example", "https://app.example/path", "ftp://app.example"} {
		if _, err := parseFlags("tmuxmcp", []string{"--http", "127.0.0.1:8765", "--allow-origin", bad}, io.Discard); err == nil || !strings.Contains(err.Error(), "allow-origin") || !strings.Contains(err.Error(), "scheme://host[:port]") {
			t.Errorf("--allow-origin %s: %v", bad, err)
		}
	}
	c, err := parseFlags("tmuxmcp", []string{"--http", "127.0.0.1:8765", "--allow-origin", "https://a.example, http://b.example:8080", "--allow-origin", "HTTPS://C.example"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.origins, " "); got != "https://a.example http://b.example:8080 https://c.example" {
		t.Errorf("origins %q", got)
	}
}

func TestHTTPMaxSessionsFlag(t *testing.T) {
	for _, bad := range []string{"0", "10001", "-1"} {
		if _, err := parseFlags("tmuxmcp", []string{"--http", "127.0.0.1:8765", "--max-sessions", bad}, io.Discard); err == nil || !strings.Contains(err.Error(), "--max-sessions "+bad+": must be 1..10000") {
			t.Errorf("--max-sessions %s: %v", bad, err)
		}
	}
	for arg, want := range map[string]int{"": httpmcp.DefaultMaxSessions, "1": 1, "10000": 10000} {
		args := []string{"--http", "127.0.0.1:8765"}
		if arg != "" {
			args = append(args, "--max-sessions", arg)
		}
		if c, err := parseFlags("tmuxmcp", args, io.Discard); err != nil || c.maxSess != want {
			t.Errorf("--max-sessions %q: %v %v", arg, c, err)
		}
	}
}

// The TLS files themselves are loaded by httpmcp.Prepare (tested there);
// the flags must come as a pair.
func TestHTTPTLSFlags(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	for _, args := range [][]string{
		{"--http", "0.0.0.0:8765", "--allow-remote", "--tls-cert", certFile},
		{"--http", "0.0.0.0:8765", "--allow-remote", "--tls-key", keyFile},
	} {
		if _, err := parseFlags("tmuxmcp", args, io.Discard); err == nil || !strings.Contains(err.Error(), "--tls-cert") || !strings.Contains(err.Error(), "--tls-key") || !strings.Contains(err.Error(), "both") {
			t.Errorf("%v: %v", args, err)
		}
	}
}

// The --http flags reach httpmcp.Prepare as given.
func TestHTTPOptionsFromTheFlags(t *testing.T) {
	dir := t.TempDir()
	c, err := parseFlags("tmuxmcp", []string{"--http", "0.0.0.0:8765", "--allow-remote", "--token-file", "tok", "--tls-cert", "c.pem", "--tls-key", "k.pem", "--state-dir", dir}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := httpmcp.SetupOptions{Addr: "0.0.0.0:8765", TokenFile: "tok", StateDir: dir, TLSCert: "c.pem", TLSKey: "k.pem"}
	if got := c.httpOptions(); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if c, err = parseFlags("tmuxmcp", []string{"--http", "127.0.0.1:8765", "--no-auth", "--state-dir", dir}, io.Discard); err != nil || !c.httpOptions().NoAuth {
		t.Errorf("--no-auth: %v %+v", err, c)
	}
}
