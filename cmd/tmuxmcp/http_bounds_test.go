package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
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
	srv, _, _ := httpEnvWith(t, httpConfig{sessionTimeout: time.Minute, tokenWhere: "/state/http-token"})
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
	srv, _, _ := httpEnvWith(t, httpConfig{sessionTimeout: time.Minute, bodyTimeout: time.Second})
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
	cp := call(t, cs, "create_pane", map[string]any{})
	res := call(t, cs, "wait_for_text", map[string]any{"paneId": cp["paneId"], "patterns": []string{"never-printed"}, "timeoutMs": 2500})
	if res["outcome"] != "timed_out" {
		t.Errorf("a 2.5 s wait: %v", res)
	}
	if _, err := cs.ListTools(t.Context(), nil); err != nil {
		t.Errorf("after the long wait: %v", err)
	}
}

func TestHTTPServesOnlyItsOwnOrAllowedOrigins(t *testing.T) {
	srv, _, _ := httpEnvWith(t, httpConfig{sessionTimeout: time.Minute, allowOrigins: []string{"https://app.example"}})
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
		if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
			deleteSession(t, srv.URL, id)
		}
	}
}

func deleteSession(t *testing.T, srvURL, id string) {
	t.Helper()
	del, _ := http.NewRequest("DELETE", srvURL+"/mcp", nil)
	del.Header.Set("Authorization", "Bearer "+testToken)
	del.Header.Set("Mcp-Session-Id", id)
	if r, err := http.DefaultClient.Do(del); err == nil {
		r.Body.Close()
	}
}

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
