package httpmcp

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/internal/mcptest"
)

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`

// rawPost sends one JSON-RPC message to srvURL/mcp and returns the
// response with its body read.
func rawPost(t *testing.T, client *http.Client, srvURL, body string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", srvURL+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+testToken)
	for k, v := range header {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Error(err)
		return nil, ""
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

// slowBody opens a raw connection to addr and sends a POST's headers and
// the first bytes of a body promised to be 1000 bytes long.
func slowBody(addr, token string) (net.Conn, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	auth := ""
	if token != "" {
		auth = "Authorization: Bearer " + token + "\r\n"
	}
	_, err = fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n%sContent-Length: 1000\r\n\r\n{\"jsonrpc\":", addr, auth)
	if err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// answerAndClose reads the response on conn and then waits for the server
// to close the connection, both by deadline.
func answerAndClose(conn net.Conn, deadline time.Time) (resp *http.Response, closed bool, err error) {
	_ = conn.SetReadDeadline(deadline)
	br := bufio.NewReader(conn)
	resp, err = http.ReadResponse(br, nil)
	if err != nil {
		return nil, false, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	_, err = br.ReadByte()
	return resp, err == io.EOF, nil
}

func TestHTTPAnswersSlowBodyStrangersFromTheirHeaders(t *testing.T) {
	srv, _ := httpEnvWith(t, Config{SessionTimeout: time.Minute, TokenWhere: "/state/http-token"})
	addr := strings.TrimPrefix(srv.URL, "http://")
	const strangers = 400
	conns := make([]net.Conn, 0, strangers)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	start := time.Now()
	for range strangers {
		c, err := slowBody(addr, "")
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	var (
		wg                           sync.WaitGroup
		answered, closed, challenged atomic.Int32
		slowest                      atomic.Int64
		firstErr                     sync.Once
	)
	deadline := start.Add(20 * time.Second)
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, isClosed, err := answerAndClose(c, deadline)
			if err != nil {
				firstErr.Do(func() { t.Errorf("a stranger got no answer: %v", err) })
				return
			}
			for d := int64(time.Since(start)); ; {
				if old := slowest.Load(); d <= old || slowest.CompareAndSwap(old, d) {
					break
				}
			}
			if resp.StatusCode == http.StatusUnauthorized {
				answered.Add(1)
			}
			if resp.Header.Get("WWW-Authenticate") == `Bearer realm="tmuxmcp"` {
				challenged.Add(1)
			}
			if isClosed {
				closed.Add(1)
			}
		}()
	}
	// Strangers that have not finished their headers yet stay open (until
	// the header timeout) while a real client is served.
	for range 100 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		if _, err := fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Len", addr); err != nil {
			t.Fatal(err)
		}
	}
	clientStart := time.Now()
	cs, err := httpClient(t, srv.URL, testToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil || len(tools.Tools) == 0 {
		t.Fatalf("tools/list: %v %v", tools, err)
	}
	clientTook := time.Since(clientStart)
	wg.Wait()
	t.Logf("%d strangers: %d answered 401, %d with the challenge, %d closed; last answer after %v; the real client initialized and listed tools in %v",
		strangers, answered.Load(), challenged.Load(), closed.Load(), time.Duration(slowest.Load()), clientTook)
	if answered.Load() != strangers || challenged.Load() != strangers || closed.Load() != strangers {
		t.Errorf("want all %d answered 401 with WWW-Authenticate and closed", strangers)
	}
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("the strangers took %v to be answered", took)
	}
	if clientTook > 10*time.Second {
		t.Errorf("the real client took %v", clientTook)
	}

	// A wrong token: the challenge says so, and the body says where the token is.
	resp, body := rawPost(t, http.DefaultClient, srv.URL, initializeBody, map[string]string{"Authorization": "Bearer wrong-token-wrong-token"})
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != `Bearer realm="tmuxmcp", error="invalid_token"` || !strings.Contains(body, "/state/http-token") || !resp.Close {
		t.Errorf("wrong token: %d %q %q", resp.StatusCode, resp.Header, body)
	}
}

func TestHTTPCutsOffASlowBodyAtTheBodyDeadline(t *testing.T) {
	srv, _ := httpEnvWith(t, Config{SessionTimeout: time.Minute, BodyTimeout: time.Second})
	addr := strings.TrimPrefix(srv.URL, "http://")
	c, err := slowBody(addr, testToken)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	resp, closed, err := answerAndClose(c, start.Add(20*time.Second))
	took := time.Since(start)
	t.Logf("slow authenticated body answered %v after %v; connection closed: %v", resp.Status, took, closed)
	if err != nil || resp.StatusCode != http.StatusRequestTimeout || !closed {
		t.Fatalf("%v %v closed=%v", resp, err, closed)
	}
	if took < 900*time.Millisecond || took > 10*time.Second {
		t.Errorf("took %v with a 1s body deadline", took)
	}

	// A body declared too big is refused before it is read.
	big, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer big.Close()
	fmt.Fprintf(big, "POST /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{", addr, testToken, 5<<20)
	if resp, closed, err := answerAndClose(big, time.Now().Add(20*time.Second)); err != nil || resp.StatusCode != http.StatusRequestEntityTooLarge || !closed {
		t.Errorf("a 5 MiB body: %v %v closed=%v", resp, err, closed)
	}

	// The deadline is lifted once the body is in: a call that outlasts
	// it, and the client's GET stream, are not cut.
	cs, err := httpClient(t, srv.URL, testToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res := call(t, cs, "wait", map[string]any{"timeoutMs": 2500})
	if res["outcome"] != "timed_out" {
		t.Errorf("a 2.5 s wait: %v", res)
	}
	if _, err := cs.ListTools(t.Context(), nil); err != nil {
		t.Errorf("after the long wait: %v", err)
	}
}

func TestHTTPServesOnlyItsOwnOrAllowedOrigins(t *testing.T) {
	srv, _ := httpEnvWith(t, Config{SessionTimeout: time.Minute, AllowOrigins: []string{"https://app.example"}})
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	for _, tc := range []struct {
		origin string
		want   int
	}{
		{"http://evil.example", http.StatusForbidden},
		{"null", http.StatusForbidden},
		{"http://localhost:1", http.StatusForbidden},
		{"https://127.0.0.1:" + port, http.StatusForbidden}, // not the scheme served
		{"https://app.example.evil", http.StatusForbidden},
		{srv.URL, http.StatusOK},
		{"http://localhost:" + port, http.StatusOK},
		{"https://app.example", http.StatusOK},
		{"HTTPS://APP.example", http.StatusOK},
		{"", http.StatusOK},
	} {
		resp, body := rawPost(t, http.DefaultClient, srv.URL, initializeBody, map[string]string{"Origin": tc.origin})
		if resp == nil {
			continue
		}
		if resp.StatusCode != tc.want {
			t.Errorf("Origin %q: %d, want %d: %s", tc.origin, resp.StatusCode, tc.want, body)
		}
		if tc.want == http.StatusForbidden && !strings.Contains(body, "--allow-origin") {
			t.Errorf("Origin %q: the 403 does not name --allow-origin: %s", tc.origin, body)
		}
		if id := resp.Header.Get(sessionIDHeader); id != "" {
			deleteSession(t, srv.URL, id)
		}
	}
}

func deleteSession(t *testing.T, srvURL, id string) {
	t.Helper()
	del, _ := http.NewRequest("DELETE", srvURL+"/mcp", nil)
	del.Header.Set("Authorization", "Bearer "+testToken)
	del.Header.Set(sessionIDHeader, id)
	if r, err := http.DefaultClient.Do(del); err == nil {
		r.Body.Close()
	}
}

func countSessions(server *mcp.Server) int {
	n := 0
	for range server.Sessions() {
		n++
	}
	return n
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

func TestHTTPBoundsAbandonedSessionsByTheCap(t *testing.T) {
	const maxSessions, abandoned, workers = 64, 3000, 12
	srv, server := httpEnvWith(t, Config{SessionTimeout: 30 * time.Minute, MaxSessions: maxSessions})
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
	defer client.CloseIdleConnections()
	// Warm up, so that the first session's one-time costs are not counted.
	resp, _ := rawPost(t, client, srv.URL, initializeBody, nil)
	deleteSession(t, srv.URL, resp.Header.Get(sessionIDHeader))
	heapBefore, goroutinesBefore := heapInUse(), runtime.NumGoroutine()

	var (
		next, ok, refused, badRetry, most atomic.Int64
		wg                                sync.WaitGroup
	)
	start := time.Now()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= abandoned {
				resp, body := rawPost(t, client, srv.URL, initializeBody, nil)
				if resp == nil {
					return
				}
				switch resp.StatusCode {
				case http.StatusOK:
					ok.Add(1)
				case http.StatusServiceUnavailable:
					refused.Add(1)
					if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || s < 1 || s > 300 || !strings.Contains(body, "--max-sessions") {
						badRetry.Add(1)
					}
				default:
					t.Errorf("initialize: %d %s", resp.StatusCode, body)
					return
				}
				if n := int64(countSessions(server)); n > most.Load() {
					most.Store(n) // racy max: each worker also checks below
				}
				if n := countSessions(server); n > maxSessions {
					t.Errorf("%d live sessions, cap %d", n, maxSessions)
					return
				}
			}
		}()
	}
	wg.Wait()
	took := time.Since(start)
	heapAfter, goroutinesAfter := heapInUse(), runtime.NumGoroutine()
	growth := int64(heapAfter) - int64(heapBefore)
	t.Logf("%d abandoned initializes in %v: %d sessions opened, %d refused with 503; at most %d live; heap in use %+.1f MiB (%.1f → %.1f MiB); goroutines %d → %d",
		abandoned, took, ok.Load(), refused.Load(), most.Load(), float64(growth)/(1<<20), float64(heapBefore)/(1<<20), float64(heapAfter)/(1<<20), goroutinesBefore, goroutinesAfter)
	if ok.Load() != maxSessions || refused.Load() != abandoned-maxSessions {
		t.Errorf("want %d opened and %d refused", maxSessions, abandoned-maxSessions)
	}
	if badRetry.Load() > 0 {
		t.Errorf("%d refusals without a Retry-After of 1..300 s or without naming --max-sessions", badRetry.Load())
	}
	if n := countSessions(server); n != maxSessions {
		t.Errorf("%d live sessions at the end, want %d", n, maxSessions)
	}
	if growth > 16<<20 {
		t.Errorf("heap in use grew by %d MiB", growth>>20)
	}
	if d := goroutinesAfter - goroutinesBefore; d > maxSessions*10+100 {
		t.Errorf("%d more goroutines", d)
	}
}

// testClock is a settable clock.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// openStream opens session id's GET stream and returns once its headers
// have arrived; closing the body ends it.
func openStream(t *testing.T, srvURL, id string) io.Closer {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), "GET", srvURL+"/mcp", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set(sessionIDHeader, id)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: %v %v", resp, err)
	}
	return resp.Body
}

func TestHTTPEvictsTheLeastRecentlyActiveIdleSessionButNotOneInFlight(t *testing.T) {
	clock := &testClock{now: time.Now()}
	srv, server := httpEnvWith(t, Config{SessionTimeout: time.Hour, MaxSessions: 2, EvictIdle: 5 * time.Minute, Now: clock.Now})
	open := func() (*http.Response, string) {
		return rawPost(t, http.DefaultClient, srv.URL, initializeBody, nil)
	}
	live := func(id string) bool {
		for ss := range server.Sessions() {
			if ss.ID() == id {
				return true
			}
		}
		return false
	}
	a, _ := open()
	clock.advance(time.Minute)
	b, _ := open()
	idA, idB := a.Header.Get(sessionIDHeader), b.Header.Get(sessionIDHeader)
	if idA == "" || idB == "" {
		t.Fatal("no session ids")
	}
	streamB := openStream(t, srv.URL, idB) // B has a request in flight from now on
	defer streamB.Close()

	clock.advance(10 * time.Minute)
	c, body := open()
	idC := c.Header.Get(sessionIDHeader)
	if c.StatusCode != http.StatusOK || idC == "" {
		t.Fatalf("C was not admitted: %d %s", c.StatusCode, body)
	}
	if live(idA) {
		t.Error("A, idle for 11 minutes, was not closed to admit C")
	}
	if !live(idB) {
		t.Error("B, with its stream open, was closed")
	}
	if resp, _ := rawPost(t, http.DefaultClient, srv.URL, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, map[string]string{sessionIDHeader: idA}); resp.StatusCode != http.StatusNotFound {
		t.Errorf("A after eviction: %d", resp.StatusCode)
	}

	// B is in flight and C is fresh: D waits for C to have idled 5 minutes.
	clock.advance(time.Minute)
	d, body := open()
	if d.StatusCode != http.StatusServiceUnavailable || d.Header.Get("Retry-After") != "240" {
		t.Errorf("D: %d Retry-After %q: %s", d.StatusCode, d.Header.Get("Retry-After"), body)
	}
	if !strings.Contains(body, "--max-sessions 2") {
		t.Errorf("the 503 does not name the cap and the flag: %s", body)
	}

	// With every session in flight nothing can be evicted, however long idle.
	streamC := openStream(t, srv.URL, idC)
	defer streamC.Close()
	clock.advance(time.Hour)
	e, _ := open()
	if e.StatusCode != http.StatusServiceUnavailable || e.Header.Get("Retry-After") != "30" {
		t.Errorf("E: %d Retry-After %q", e.StatusCode, e.Header.Get("Retry-After"))
	}
	if !live(idB) || !live(idC) {
		t.Error("a session with its stream open was closed")
	}
}

func TestHTTPRefusesATokenFileOthersCanRead(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "token")
	if err := os.WriteFile(file, []byte(testToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(file, 0o644); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	o := SetupOptions{Addr: "127.0.0.1:0", TokenFile: file, StateDir: dir}
	if _, err := Prepare(o, log); err == nil || !strings.Contains(err.Error(), "--token-file") || !strings.Contains(err.Error(), "chmod 600 "+file) {
		t.Errorf("--token-file with mode 0644: %v", err)
	}
	if err := os.Chmod(file, 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err := Prepare(o, log); err != nil || s.Token != testToken {
		t.Errorf("--token-file with mode 0600: %v", err)
	}

	// The generated token under the state dir, made readable since.
	t.Setenv("TMUXMCP_TOKEN", "")
	o = SetupOptions{Addr: "127.0.0.1:0", StateDir: dir}
	s, err := Prepare(o, log)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(s.TokenWhere, 0o640); err != nil {
		t.Fatal(err)
	}
	if _, err := Prepare(o, log); err == nil || !strings.Contains(err.Error(), "chmod 600 "+s.TokenWhere) {
		t.Errorf("http-token with mode 0640: %v", err)
	}
}

// selfSigned writes a certificate for 127.0.0.1 and its key to dir.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "tmuxmcp test"}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}

func TestHTTPTLSAndTheClearTextWarning(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := selfSigned(t, dir)

	t.Setenv("TMUXMCP_TOKEN", testToken)
	prepare := func(o SetupOptions) (*Setup, string, error) {
		var logs bytes.Buffer
		o.StateDir = dir
		s, err := Prepare(o, slog.New(slog.NewTextHandler(&logs, nil)))
		return s, logs.String(), err
	}
	_, logs, err := prepare(SetupOptions{Addr: "0.0.0.0:8765"})
	if err != nil || !strings.Contains(logs, "clear text") || !strings.Contains(logs, "--tls-cert FILE --tls-key FILE") {
		t.Errorf("--allow-remote without TLS: %v, logged %q", err, logs)
	}
	if _, logs, _ := prepare(SetupOptions{Addr: "127.0.0.1:8765"}); strings.Contains(logs, "clear text") {
		t.Errorf("loopback without TLS warned: %q", logs)
	}
	s, logs, err := prepare(SetupOptions{Addr: "0.0.0.0:8765", TLSCert: certFile, TLSKey: keyFile})
	if err != nil || s.TLS == nil || strings.Contains(logs, "clear text") {
		t.Errorf("--allow-remote with TLS: %v, logged %q", err, logs)
	}
	if _, _, err := prepare(SetupOptions{Addr: "0.0.0.0:8765", TLSCert: keyFile, TLSKey: keyFile}); err == nil || !strings.Contains(err.Error(), "--tls-cert "+keyFile) {
		t.Errorf("a key as --tls-cert: %v", err)
	}
	if _, _, err := prepare(SetupOptions{Addr: "0.0.0.0:8765", TLSCert: certFile, TLSKey: filepath.Join(dir, "missing")}); err == nil || !strings.Contains(err.Error(), "--tls-key") {
		t.Errorf("a missing --tls-key: %v", err)
	}
	_, otherKey := selfSigned(t, t.TempDir())
	if _, _, err := prepare(SetupOptions{Addr: "0.0.0.0:8765", TLSCert: certFile, TLSKey: otherKey}); err == nil || !strings.Contains(err.Error(), "--tls-key "+otherKey) {
		t.Errorf("a key that does not match: %v", err)
	}
}

func TestHTTPServesTLSWithTheGivenCertificate(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := selfSigned(t, dir)
	tlsConfig, err := LoadTLS(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	srv, server := httpEnvWith(t, Config{SessionTimeout: time.Minute})
	srv.Close() // only its tools are used: served over TLS below
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, ln, Handler(server, Config{Token: testToken, TokenWhere: "the test"}), tlsConfig, slog.New(slog.DiscardHandler))
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	pool := x509.NewCertPool()
	pemBytes, _ := os.ReadFile(certFile)
	pool.AppendCertsFromPEM(pemBytes)
	base := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	defer base.CloseIdleConnections()
	tr := &mcp.StreamableClientTransport{Endpoint: "https://" + ln.Addr().String() + "/mcp", HTTPClient: &http.Client{Transport: mcptest.Bearer{Token: testToken, Base: base}}, MaxRetries: -1}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v0"}, nil).Connect(t.Context(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
}
