package stdio

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// DefaultMaxLine is the longest line read as a message (4 MiB, the same
// bound as an HTTP request body); a longer line is discarded as it is
// read and answered with an error.
const DefaultMaxLine = 4 << 20

// idPrefix is how much of an oversize line is kept to find its id in.
const idPrefix = 64 << 10

// frameReader reads newline-delimited lines of at most max bytes. A
// longer line is read to its end without being kept: only its first
// idPrefix bytes and its length are returned.
type frameReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

func newFrameReader(r io.Reader, max int) *frameReader {
	if max <= 0 {
		max = DefaultMaxLine
	}
	return &frameReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// frame is one line of input: the whole line (without its newline), or,
// when it was longer than the bound, its head and its length.
type frame struct {
	line     []byte // valid until the next read
	oversize bool
	length   int64 // bytes in the line, without the newline
}

// next returns the next line. At the end of the input it returns the last
// unterminated line, if any, and then io.EOF (or the read error).
func (f *frameReader) next() (frame, error) {
	f.buf = f.buf[:0]
	var n int64
	over := false
	for {
		chunk, err := f.r.ReadSlice('\n')
		n += int64(len(chunk))
		if !over {
			if len(f.buf)+len(chunk) > f.max+1 { // +1: the newline
				over = true
				keep := min(idPrefix, len(f.buf)+len(chunk))
				if len(f.buf) < keep {
					f.buf = append(f.buf, chunk[:keep-len(f.buf)]...)
				}
				f.buf = f.buf[:keep]
			} else {
				f.buf = append(f.buf, chunk...)
			}
		}
		switch {
		case err == nil:
			line := bytes.TrimSuffix(f.buf, []byte("\n"))
			return frame{line: line, oversize: over, length: n - 1}, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			if n == 0 {
				return frame{}, err
			}
			// The last line had no newline: still a line. The error comes
			// again on the next read.
			if !over && len(f.buf) > f.max {
				over = true
				f.buf = f.buf[:min(idPrefix, len(f.buf))]
			}
			return frame{line: f.buf, oversize: over, length: n}, nil
		}
	}
}

// verdict is what to do with one line: pass msg to the server, write
// reply, or (both nil) nothing, for a blank line.
type verdict struct {
	msg   jsonrpc.Message
	reply []byte // an encoded JSON-RPC error answer, or a batch of them
	why   string // for the log, with reply
}

// judge decides what a line is. Only a line that is one valid JSON-RPC
// 2.0 message reaches the server; anything else is answered with a
// JSON-RPC error: -32700 when the line is not JSON, -32600 when it is
// JSON but not a message. The error carries the line's id when one can
// be read from it, else null.
func judge(f frame, max int) verdict {
	if f.oversize {
		id := idIn(f.line)
		msg := fmt.Sprintf("Invalid Request: a line of %d bytes is longer than the %d-byte limit; it was discarded unread. Send large input in smaller calls", f.length, max)
		return refuse(id, jsonrpc.CodeInvalidRequest, msg)
	}
	line := bytes.TrimSpace(f.line)
	if len(line) == 0 {
		return verdict{}
	}
	if line[0] == '{' {
		// The common case, parsed once more by check; json.Valid only
		// runs on a line that is refused, to say which error it gets.
		msg, err := jsonrpc.DecodeMessage(line)
		if err == nil {
			if err = check(line, msg); err == nil {
				return verdict{msg: msg}
			}
		}
		if json.Valid(line) {
			return refuse(idIn(line), jsonrpc.CodeInvalidRequest, "Invalid Request: "+err.Error())
		}
	}
	if !json.Valid(line) {
		return refuse(jsonrpc.ID{}, jsonrpc.CodeParseError, "Parse error: the line is not JSON. Send one JSON-RPC 2.0 message per line")
	}
	if line[0] == '[' {
		return refuseBatch(line)
	}
	return refuse(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "Invalid Request: a JSON-RPC message is a JSON object, got "+kind(line))
}

// envelope is the part of a message checked beyond what DecodeMessage
// checks.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method json.RawMessage `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// check refuses what DecodeMessage lets through but the server cannot
// take: a request with an empty method, an id that is neither a string
// nor a whole number, a response with neither or both of result and
// error.
func check(line []byte, msg jsonrpc.Message) error {
	var e envelope
	if err := json.Unmarshal(line, &e); err != nil {
		return err
	}
	if len(e.ID) > 0 && !bytes.Equal(e.ID, []byte("null")) {
		var id any
		if err := json.Unmarshal(e.ID, &id); err != nil {
			return err
		}
		switch v := id.(type) {
		case string:
		case float64:
			if v != float64(int64(v)) {
				return fmt.Errorf("id %s: an id is a string or a whole number", e.ID)
			}
		default:
			return fmt.Errorf("id %s: an id is a string or a whole number", e.ID)
		}
	}
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if m.Method == "" {
			return errors.New(`"method" is empty`)
		}
	case *jsonrpc.Response:
		hasResult, hasError := len(e.Result) > 0, len(e.Error) > 0 && !bytes.Equal(e.Error, []byte("null"))
		if hasResult == hasError {
			return errors.New(`a message has a "method" (a request) or exactly one of "result" and "error" (a response)`)
		}
	}
	return nil
}

// refuseBatch answers a JSON array. Batches are not supported (MCP
// dropped them in 2025-06-18): every request in the array that has an id
// gets its own error, in one array, so a client can match them; an array
// with none gets a single error.
func refuseBatch(line []byte) verdict {
	var items []json.RawMessage
	_ = json.Unmarshal(line, &items)
	const msg = "Invalid Request: JSON-RPC batches are not supported; send one message per line"
	var replies []json.RawMessage
	for _, it := range items {
		var e envelope
		if json.Unmarshal(it, &e) != nil || len(e.Method) == 0 {
			continue
		}
		if id := idIn(it); id.IsValid() {
			replies = append(replies, refuse(id, jsonrpc.CodeInvalidRequest, msg).reply)
		}
	}
	if len(replies) == 0 {
		return refuse(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, msg)
	}
	b, _ := json.Marshal(replies)
	return verdict{reply: b, why: msg}
}

// refuse builds an error answer with id (null when invalid).
func refuse(id jsonrpc.ID, code int64, msg string) verdict {
	type wireErr struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}
	b, _ := json.Marshal(struct {
		Version string  `json:"jsonrpc"`
		ID      any     `json:"id"`
		Error   wireErr `json:"error"`
	}{"2.0", id.Raw(), wireErr{code, msg}})
	return verdict{reply: b, why: msg}
}

// kind names the JSON type of a value, for an error.
func kind(v []byte) string {
	switch v[0] {
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	case '[':
		return "an array"
	default:
		return "a number"
	}
}

// idIn reads the top-level "id" of a JSON object from data, which may be
// only the head of a longer line. It returns an invalid ID when there is
// none, or when it is not a string or a whole number.
func idIn(data []byte) jsonrpc.ID {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return jsonrpc.ID{}
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return jsonrpc.ID{}
		}
		if key != "id" {
			if skip(dec) != nil {
				return jsonrpc.ID{}
			}
			continue
		}
		t, err := dec.Token()
		if err != nil {
			return jsonrpc.ID{}
		}
		switch v := t.(type) {
		case string:
			id, _ := jsonrpc.MakeID(v)
			return id
		case json.Number:
			if i, err := v.Int64(); err == nil {
				id, _ := jsonrpc.MakeID(float64(i))
				return id
			}
		}
		return jsonrpc.ID{}
	}
	return jsonrpc.ID{}
}

// skip reads past one value.
func skip(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}
