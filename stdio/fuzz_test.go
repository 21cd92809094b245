package stdio

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzJudge: whatever a line holds, it is either a message the SDK can
// encode again or an error answer that is valid JSON-RPC (-32700 or
// -32600, id null or the line's own), and nothing panics.
func FuzzJudge(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{}`, `[]`, `"x"`, `1`, `null`,
		`{"jsonrpc":"2.0","id":{},"method":"ping"}`, `{"jsonrpc":"1.0","id":1,"method":"x"}`,
		`{"jsonrpc":"2.0","id":2,"method":7}`, `[{"jsonrpc":"2.0","id":1,"method":"a"}]`,
		`{"jsonrpc":"2.0","id":3,"result":null}`, `{"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"m"}}`,
		"{\"jsonrpc\":\"2.0\",\"id\":\"\\u0000\",\"method\":\"x\"}", `{"id":1e400,"jsonrpc":"2.0","method":"x"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.IndexByte(line, '\n') >= 0 {
			return // one line at a time
		}
		v := judge(frame{line: line, length: int64(len(line))}, DefaultMaxLine)
		switch {
		case v.msg != nil && v.reply != nil:
			t.Fatal("both a message and a reply")
		case v.msg != nil:
			if _, err := jsonrpc.EncodeMessage(v.msg); err != nil {
				t.Fatalf("passed a message that cannot be encoded: %v", err)
			}
			if r, ok := v.msg.(*jsonrpc.Request); ok && r.Method == "" {
				t.Fatal("passed a request without a method")
			}
		case v.reply != nil:
			checkReply(t, v.reply)
		default:
			if len(bytes.TrimSpace(line)) != 0 {
				t.Fatalf("a non-blank line got no answer: %q", line)
			}
		}
	})
}

func checkReply(t *testing.T, reply []byte) {
	t.Helper()
	var batch []json.RawMessage
	if json.Unmarshal(reply, &batch) == nil {
		if len(batch) == 0 {
			t.Fatal("an empty batch answer")
		}
		for _, r := range batch {
			checkReply(t, r)
		}
		return
	}
	var m struct {
		Version string `json:"jsonrpc"`
		ID      any    `json:"id"`
		Error   *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(reply, &m); err != nil || m.Version != "2.0" || m.Error == nil || m.Error.Message == "" {
		t.Fatalf("not a JSON-RPC error: %s (%v)", reply, err)
	}
	if m.Error.Code != jsonrpc.CodeParseError && m.Error.Code != jsonrpc.CodeInvalidRequest {
		t.Fatalf("code %d", m.Error.Code)
	}
	switch m.ID.(type) {
	case nil, string, float64:
	default:
		t.Fatalf("id %v", m.ID)
	}
}

// FuzzFrames: lines under the bound come out exactly as they went in;
// longer ones come out as a bounded head and their true length.
func FuzzFrames(f *testing.F) {
	f.Add([]byte("a\nbb\n\nccc"), 2)
	f.Add([]byte("{\"x\":1}\r\n"), 100)
	f.Add(bytes.Repeat([]byte("z"), 70000), 10)
	f.Fuzz(func(t *testing.T, data []byte, max int) {
		if max < 1 || max > 1<<20 {
			return
		}
		fr := newFrameReader(bytes.NewReader(data), max)
		want := bytes.Split(data, []byte("\n"))
		if len(want) > 0 && len(want[len(want)-1]) == 0 {
			want = want[:len(want)-1]
		}
		for i := 0; ; i++ {
			fm, err := fr.next()
			if err != nil {
				if !errors.Is(err, io.EOF) || i != len(want) {
					t.Fatalf("after %d lines of %d: %v", i, len(want), err)
				}
				return
			}
			if i >= len(want) {
				t.Fatalf("line %d of %d", i, len(want))
			}
			if fm.length != int64(len(want[i])) {
				t.Fatalf("line %d: length %d, want %d", i, fm.length, len(want[i]))
			}
			if over := len(want[i]) > max; over != fm.oversize {
				t.Fatalf("line %d (%d bytes, max %d): oversize %v", i, len(want[i]), max, fm.oversize)
			}
			if !fm.oversize && !bytes.Equal(fm.line, want[i]) {
				t.Fatalf("line %d: %q, want %q", i, fm.line, want[i])
			}
			if fm.oversize && (len(fm.line) > idPrefix || !bytes.HasPrefix(want[i], fm.line)) {
				t.Fatalf("line %d: a head of %d bytes that is not the line's", i, len(fm.line))
			}
		}
	})
}
