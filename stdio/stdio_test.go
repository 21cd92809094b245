package stdio

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// session runs an MCP server on a Transport over pipes and returns a
// function writing raw lines to it and one reading its answers.
func session(t *testing.T, maxLine int) (write func(string), read func() map[string]any, in *io.PipeWriter) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	server := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "v0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- server.Run(ctx, &Transport{Reader: inR, Writer: outW, MaxLine: maxLine}) }()
	t.Cleanup(func() {
		cancel()
		_ = inW.Close()
		_ = outR.Close()
		<-done
	})
	lines := make(chan map[string]any, 64)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				var batch []map[string]any
				if json.Unmarshal(sc.Bytes(), &batch) != nil {
					m = map[string]any{"unparsable": sc.Text()}
				} else {
					m = map[string]any{"batch": batch}
				}
			}
			lines <- m
		}
		close(lines)
	}()
	write = func(s string) {
		t.Helper()
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatalf("write %.60q: %v", s, err)
		}
	}
	read = func() map[string]any {
		t.Helper()
		select {
		case m, ok := <-lines:
			if !ok {
				t.Fatal("the server closed its output")
			}
			return m
		case <-time.After(30 * time.Second):
			t.Fatal("no answer in 30 s")
		}
		return nil
	}
	write(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	if m := read(); m["id"] != "init" || m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	write(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return write, read, inW
}

// errorOf returns an answer's id and error code.
func errorOf(t *testing.T, m map[string]any) (id any, code float64) {
	t.Helper()
	e, ok := m["error"].(map[string]any)
	if !ok {
		t.Fatalf("not an error answer: %v", m)
	}
	if m["jsonrpc"] != "2.0" || e["message"] == "" {
		t.Fatalf("malformed error answer: %v", m)
	}
	return m["id"], e["code"].(float64)
}

func TestEveryBadLineGetsAnErrorAndTheSessionGoesOn(t *testing.T) {
	deep := strings.Repeat("[", 1500) + strings.Repeat("]", 1500)
	deepObj := strings.Repeat(`{"a":`, 1500) + "1" + strings.Repeat("}", 1500)
	cases := []struct {
		line string
		id   any // nil: the answer's id is null
		code float64
	}{
		{`this is not json`, nil, -32700},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"`, nil, -32700},
		{`{}`, nil, -32600},
		{`[]`, nil, -32600},
		{`"hello"`, nil, -32600},
		{`123`, nil, -32600},
		{`null`, nil, -32600},
		{`true`, nil, -32600},
		{`{"jsonrpc":"2.0","id":{},"method":"ping"}`, nil, -32600},
		{`{"jsonrpc":"2.0","id":[],"method":"ping"}`, nil, -32600},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, nil, -32600},
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, nil, -32600},
		{`{"jsonrpc":"1.0","id":11,"method":"ping"}`, 11.0, -32600},
		{`{"id":12,"method":"ping"}`, 12.0, -32600},
		{`{"jsonrpc":"2.0","id":13,"method":7}`, 13.0, -32600},
		{`{"jsonrpc":"2.0","id":"s14","method":""}`, "s14", -32600},
		{`{"jsonrpc":"2.0","id":15}`, 15.0, -32600},
		{`{"jsonrpc":"2.0","id":16,"result":{},"error":{"code":1,"message":"x"}}`, 16.0, -32600},
		{deep, nil, -32600},
		{`{"jsonrpc":"2.0","id":17,"method":"ping","params":` + deepObj + `}`, nil, 0}, // a message: the server answers it
	}
	write, read, _ := session(t, 0)
	for i, c := range cases {
		write(c.line)
		m := read()
		if c.code == 0 {
			if m["id"] != 17.0 {
				t.Errorf("case %d (%.40s): answer %v", i, c.line, m)
			}
		} else if id, code := errorOf(t, m); id != c.id || code != c.code {
			t.Errorf("case %d (%.40s): id %v code %v, want id %v code %v (%v)", i, c.line, id, code, c.id, c.code, m)
		}
		write(`{"jsonrpc":"2.0","id":1000,"method":"ping"}`)
		if m := read(); m["id"] != 1000.0 || m["result"] == nil {
			t.Fatalf("after case %d (%.40s) the session did not go on: %v", i, c.line, m)
		}
	}
	write(`{"jsonrpc":"2.0","id":2000,"method":"tools/call","params":{"name":"echo","arguments":{"text":"still here"}}}`)
	if m := read(); !strings.Contains(toJSON(m), "still here") {
		t.Fatalf("tools/call after the bad lines: %v", m)
	}
}

func TestABatchGetsAnErrorPerRequest(t *testing.T) {
	write, read, _ := session(t, 0)
	write(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":"two","method":"ping"}]`)
	m := read()
	batch, _ := m["batch"].([]map[string]any)
	if len(batch) != 2 {
		t.Fatalf("want an array of 2 errors, got %v", m)
	}
	for i, want := range []any{1.0, "two"} {
		if id, code := errorOf(t, batch[i]); id != want || code != -32600 {
			t.Errorf("batch answer %d: id %v code %v", i, id, code)
		}
	}
}

func TestAnOversizeLineIsDiscardedWhileItIsReadAndAnsweredWithItsID(t *testing.T) {
	const maxLine = 1 << 20
	write, read, in := session(t, maxLine)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	// 100 MiB, written in pieces: the line is never whole anywhere.
	const size = 100 << 20
	if _, err := io.WriteString(in, `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`); err != nil {
		t.Fatal(err)
	}
	chunk := []byte(strings.Repeat("A", 1<<20))
	for range size / len(chunk) {
		if _, err := in.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	write(`"}}}`)
	m := read()
	runtime.ReadMemStats(&after)
	if id, code := errorOf(t, m); id != 42.0 || code != -32600 {
		t.Fatalf("id %v code %v: %v", id, code, m)
	}
	if msg := m["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "limit") {
		t.Errorf("the error does not say why: %q", msg)
	}
	// The test's own chunk is 1 MiB; the reader may keep at most the
	// limit plus its buffer.
	grown := after.TotalAlloc - before.TotalAlloc
	t.Logf("a %d MiB line: %.1f MiB allocated while reading and answering it", size>>20, float64(grown)/(1<<20))
	if grown > 16<<20 {
		t.Errorf("reading a 100 MiB line allocated %d MiB", grown>>20)
	}
	write(`{"jsonrpc":"2.0","id":43,"method":"ping"}`)
	if m := read(); m["id"] != 43.0 {
		t.Fatalf("after the long line: %v", m)
	}
	// A line just under the limit is still a message.
	text := strings.Repeat("B", maxLine-200)
	write(`{"jsonrpc":"2.0","id":44,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + text + `"}}}`)
	if m := read(); m["id"] != 44.0 || m["error"] != nil {
		t.Fatalf("a line under the limit was refused: %.200v", m)
	}
}

func TestCallsReadBeforeTheInputEndsAreAnswered(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	server := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "v0"}, nil)
	release := make(chan struct{})
	mcp.AddTool(server, &mcp.Tool{Name: "slow"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		<-release
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "slow done"}}}, nil, nil
	})
	ended := make(chan struct{})
	tr := &Transport{Reader: inR, Writer: outW, Ended: func() { close(ended) }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- server.Run(ctx, tr) }()
	answers := make(chan string, 8)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			answers <- sc.Text()
		}
		close(answers)
	}()
	_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}}`+"\n"+
		`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`) // no newline: still a line
	_ = inW.Close()
	select {
	case <-ended:
	case <-time.After(30 * time.Second):
		t.Fatal("Ended was not called at the end of the input")
	}
	got := map[float64]bool{}
	read := func() {
		select {
		case a := <-answers:
			var m map[string]any
			_ = json.Unmarshal([]byte(a), &m)
			got[m["id"].(float64)] = true
		case <-time.After(30 * time.Second):
			t.Fatalf("answers so far %v", got)
		}
	}
	read()
	read()
	if !got[1] || !got[3] {
		t.Fatalf("initialize and tools/list were not answered after the input ended: %v", got)
	}
	wctx, wcancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	if tr.WaitAnswered(wctx) {
		t.Error("WaitAnswered returned true with a call still open")
	}
	wcancel()
	close(release)
	read()
	if !got[2] {
		t.Fatalf("the slow call was not answered: %v", got)
	}
	wctx, wcancel = context.WithTimeout(context.Background(), 30*time.Second)
	defer wcancel()
	if !tr.WaitAnswered(wctx) {
		t.Error("WaitAnswered did not return once every call was answered")
	}
	cancel()
	<-done
	_ = outR.Close()
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
