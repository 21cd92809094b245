// Package cursor encodes, parses and validates ltxc1 cursors: positions in a
// pane's recorded output stream.
//
// A cursor is "ltxc1.<32 lowercase hex: the stream id's 16 bytes>.<decimal
// byte offset>". It names the position after the last byte a result covered.
// The package knows nothing of tmux (nor its panes) or MCP: it only owns
// the text form.
package cursor

import (
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Pattern is the JSON-schema pattern every cursor matches.
const Pattern = `^ltxc1\.[0-9a-f]{32}\.(?:0|[1-9][0-9]*)$`

const prefix = "ltxc1."

var re = regexp.MustCompile(Pattern)

// StreamID is the 128-bit id of one recording of one pane.
type StreamID [16]byte

// String returns the 32 lowercase hex digits of the id.
func (s StreamID) String() string { return hex.EncodeToString(s[:]) }

// Cursor is a decoded position in a pane's output stream.
type Cursor struct {
	Stream StreamID
	Offset int64
}

// String encodes c in its ltxc1 text form.
func (c Cursor) String() string {
	return prefix + c.Stream.String() + "." + strconv.FormatInt(c.Offset, 10)
}

// Parse decodes an ltxc1 cursor. The error says what is wrong and what a
// valid cursor looks like, so it can be shown to the caller as is.
func Parse(s string) (Cursor, error) {
	if !re.MatchString(s) {
		return Cursor{}, fmt.Errorf("%q is not a cursor: expected ltxc1.<32 lowercase hex>.<decimal offset>, exactly as an earlier result returned it", truncate(s))
	}
	rest := strings.TrimPrefix(s, prefix)
	hexID, off, _ := strings.Cut(rest, ".")
	var c Cursor
	if _, err := hex.Decode(c.Stream[:], []byte(hexID)); err != nil {
		return Cursor{}, fmt.Errorf("cursor %q: stream id: %w", truncate(s), err)
	}
	n, err := strconv.ParseInt(off, 10, 64)
	if err != nil {
		return Cursor{}, fmt.Errorf("cursor %q: offset out of range: %w", truncate(s), err)
	}
	c.Offset = n
	return c, nil
}

func truncate(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
