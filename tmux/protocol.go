package tmux

import (
	"bytes"
	"strconv"
)

// guard is a parsed %begin, %end or %error line.
type guard struct {
	kind   string // "begin", "end" or "error"
	time   int64
	number uint64
	flags  int
}

// parseGuard parses "%begin T N F", "%end T N F" or "%error T N F".
func parseGuard(line []byte) (guard, bool) {
	var g guard
	switch {
	case bytes.HasPrefix(line, []byte("%begin ")):
		g.kind, line = "begin", line[len("%begin "):]
	case bytes.HasPrefix(line, []byte("%end ")):
		g.kind, line = "end", line[len("%end "):]
	case bytes.HasPrefix(line, []byte("%error ")):
		g.kind, line = "error", line[len("%error "):]
	default:
		return guard{}, false
	}
	f := bytes.Fields(line)
	if len(f) != 3 {
		return guard{}, false
	}
	var err error
	if g.time, err = strconv.ParseInt(string(f[0]), 10, 64); err != nil {
		return guard{}, false
	}
	if g.number, err = strconv.ParseUint(string(f[1]), 10, 64); err != nil {
		return guard{}, false
	}
	if g.flags, err = strconv.Atoi(string(f[2])); err != nil {
		return guard{}, false
	}
	return g, true
}

// parseOutput parses a "%output %<pane> <escaped>" or
// "%extended-output %<pane> <age> ... : <escaped>" line. It returns the pane
// number, the still-escaped payload and the age in milliseconds (0 for
// %output).
func parseOutput(line []byte) (pane int, payload []byte, ageMs uint64, ok bool) {
	switch {
	case bytes.HasPrefix(line, []byte("%output %")):
		rest := line[len("%output %"):]
		sp := bytes.IndexByte(rest, ' ')
		if sp < 0 {
			// "%output %3" with nothing after it: an empty payload.
			sp = len(rest)
		}
		n, ok := parsePaneNumber(rest[:sp])
		if !ok {
			return 0, nil, 0, false
		}
		if sp < len(rest) {
			rest = rest[sp+1:]
		} else {
			rest = nil
		}
		return n, rest, 0, true
	case bytes.HasPrefix(line, []byte("%extended-output %")):
		rest := line[len("%extended-output %"):]
		sp := bytes.IndexByte(rest, ' ')
		if sp < 0 {
			return 0, nil, 0, false
		}
		n, ok := parsePaneNumber(rest[:sp])
		if !ok {
			return 0, nil, 0, false
		}
		rest = rest[sp+1:]
		// Arguments up to a lone ":" then the payload. The first argument is
		// the age; later tmux versions may add more.
		sep := bytes.Index(rest, []byte(" : "))
		var args []byte
		switch {
		case sep >= 0:
			args, rest = rest[:sep], rest[sep+3:]
		case bytes.HasSuffix(rest, []byte(" :")):
			args, rest = rest[:len(rest)-2], nil
		default:
			return 0, nil, 0, false
		}
		fields := bytes.Fields(args)
		if len(fields) == 0 {
			return 0, nil, 0, false
		}
		age, err := strconv.ParseUint(string(fields[0]), 10, 64)
		if err != nil {
			return 0, nil, 0, false
		}
		return n, rest, age, true
	}
	return 0, nil, 0, false
}

func parsePaneNumber(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// Unescape decodes a %output payload into dst and returns it. tmux escapes
// bytes below 0x20 and the backslash as a backslash and exactly three octal
// digits; every other byte is passed raw. A malformed escape is kept
// literally, so no input byte is ever silently dropped.
func Unescape(dst, p []byte) []byte {
	for {
		i := bytes.IndexByte(p, '\\')
		if i < 0 {
			return append(dst, p...)
		}
		dst = append(dst, p[:i]...)
		p = p[i:]
		if len(p) >= 4 && p[1] >= '0' && p[1] <= '3' && isOct(p[2]) && isOct(p[3]) {
			dst = append(dst, (p[1]-'0')<<6|(p[2]-'0')<<3|(p[3]-'0'))
			p = p[4:]
			continue
		}
		dst = append(dst, '\\')
		p = p[1:]
	}
}

func isOct(c byte) bool { return c >= '0' && c <= '7' }

// Quote returns s as one tmux command-language argument: double quoted, with
// every byte outside a small safe set written as a three-digit octal escape,
// so newlines, quotes, $, ~, #, ; and non-ASCII pass through unchanged.
func Quote(s string) string {
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == ' ' || c == ',' || c == '.' || c == '/' || c == '_' || c == '-' || c == ':' || c == '%' || c == '@' || c == '=' || c == '+' {
			b = append(b, c)
			continue
		}
		b = append(b, '\\', '0'+c>>6, '0'+(c>>3)&7, '0'+c&7)
	}
	return string(append(b, '"'))
}

// Notification is one control-mode notification line other than %output,
// %extended-output and the %begin/%end/%error guards.
type Notification struct {
	// Name is the word after '%', e.g. "layout-change" or "pause".
	Name string
	// Args is the rest of the line after the name and one space.
	Args string
}

// parseNotification splits "%name args" into a Notification.
func parseNotification(line []byte) (Notification, bool) {
	if len(line) < 2 || line[0] != '%' {
		return Notification{}, false
	}
	name, args, _ := bytes.Cut(line[1:], []byte(" "))
	if len(name) == 0 {
		return Notification{}, false
	}
	return Notification{Name: string(name), Args: string(args)}, true
}

// PaneArg returns the pane number of a notification whose first argument is
// "%N" (%pause, %continue, %pane-mode-changed).
func (n Notification) PaneArg() (int, bool) {
	a, _, _ := bytes.Cut([]byte(n.Args), []byte(" "))
	if len(a) < 2 || a[0] != '%' {
		return 0, false
	}
	return parsePaneNumber(a[1:])
}
