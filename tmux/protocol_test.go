package tmux

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"
)

func TestParseGuard(t *testing.T) {
	tests := []struct {
		line string
		want guard
		ok   bool
	}{
		{"%begin 1796037597 270 1", guard{"begin", 1796037597, 270, 1}, true},
		{"%end 1796037597 270 1", guard{"end", 1796037597, 270, 1}, true},
		{"%error 1796037597 271 1", guard{"error", 1796037597, 271, 1}, true},
		{"%begin 1796037597 265 0", guard{"begin", 1796037597, 265, 0}, true},
		{"%end 0 0 0", guard{"end", 0, 0, 0}, true},
		{"%end 9223372036854775807 18446744073709551615 1", guard{"end", 1<<63 - 1, 1<<64 - 1, 1}, true},
		// Not guards.
		{"%end", guard{}, false},
		{"%end ", guard{}, false},
		{"%end 1 2", guard{}, false},
		{"%end 1 2 3 4", guard{}, false},
		{"%end a 2 1", guard{}, false},
		{"%end 1 b 1", guard{}, false},
		{"%end 1 2 c", guard{}, false},
		{"%end 1 -2 1", guard{}, false},
		{"%end 9223372036854775808 2 1", guard{}, false},
		{"%ending 1 2 1", guard{}, false},
		{"%endx 1 2 1", guard{}, false},
		{"%begun 1 2 1", guard{}, false},
		{"end 1 2 1", guard{}, false},
		{" %end 1 2 1", guard{}, false},
		{"%output %0 %end 1 2 1", guard{}, false},
		{"%exit", guard{}, false},
		{"", guard{}, false},
		{"%", guard{}, false},
	}
	for _, tt := range tests {
		got, ok := parseGuard([]byte(tt.line))
		if ok != tt.ok || got != tt.want {
			t.Errorf("parseGuard(%q) = %+v, %v; want %+v, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseOutput(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		pane    int
		payload string
		age     uint64
		ok      bool
	}{
		{"plain", `%output %0 hello`, 0, "hello", 0, true},
		{"escapes", `%output %12 a\015\012b\134`, 12, `a\015\012b\134`, 0, true},
		{"colon in payload", `%output %3 x : y`, 3, "x : y", 0, true},
		{"leading space kept", `%output %3  x`, 3, " x", 0, true},
		{"empty payload after space", `%output %3 `, 3, "", 0, true},
		{"empty payload no space", `%output %3`, 3, "", 0, true},
		{"raw high bytes", "%output %4 \xc3\xa9\xe6\x97\xa5\xf0\x9f\x98", 4, "\xc3\xa9\xe6\x97\xa5\xf0\x9f\x98", 0, true},
		{"max pane digits", `%output %999999999 x`, 999999999, "x", 0, true},

		{"ext", `%extended-output %0 0 : $ `, 0, "$ ", 0, true},
		{"ext age", `%extended-output %7 1234 : abc`, 7, "abc", 1234, true},
		{"ext colon in payload", `%extended-output %0 0 : \015\012x : y\015\012`, 0, `\015\012x : y\015\012`, 0, true},
		{"ext payload starts with colon", `%extended-output %0 5 : : x`, 0, ": x", 5, true},
		{"ext extra args", `%extended-output %1 9 future-arg : data`, 1, "data", 9, true},
		{"ext empty payload", `%extended-output %2 0 : `, 2, "", 0, true},
		{"ext empty payload trimmed", `%extended-output %2 0 :`, 2, "", 0, true},

		{"no pane", `%output`, 0, "", 0, false},
		{"no pane number", `%output % x`, 0, "", 0, false},
		{"pane not a number", `%output %x1 y`, 0, "", 0, false},
		{"pane without percent", `%output 1 y`, 0, "", 0, false},
		{"pane too long", `%output %1234567890 y`, 0, "", 0, false},
		{"other notification", `%outputs %1 y`, 0, "", 0, false},
		{"guard", `%end 1 2 1`, 0, "", 0, false},
		{"ext no colon", `%extended-output %1 0 data`, 0, "", 0, false},
		{"ext no args", `%extended-output %1 : data`, 0, "", 0, false},
		{"ext bad age", `%extended-output %1 x : data`, 0, "", 0, false},
		{"ext no space after pane", `%extended-output %1`, 0, "", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pane, payload, age, ok := parseOutput([]byte(tt.line))
			if ok != tt.ok {
				t.Fatalf("parseOutput(%q) ok = %v, want %v", tt.line, ok, tt.ok)
			}
			if !ok {
				return
			}
			if pane != tt.pane || string(payload) != tt.payload || age != tt.age {
				t.Errorf("parseOutput(%q) = %d, %q, %d; want %d, %q, %d", tt.line, pane, payload, age, tt.pane, tt.payload, tt.age)
			}
			if !bytes.HasSuffix([]byte(tt.line), payload) {
				t.Errorf("payload %q is not a suffix of %q", payload, tt.line)
			}
		})
	}
}

// tmuxEscape escapes p exactly as tmux 3.3a control.c does for %output:
// bytes below 0x20 and the backslash as \ooo, everything else raw.
func tmuxEscape(p []byte) []byte {
	b := make([]byte, 0, len(p))
	for _, c := range p {
		if c < ' ' || c == '\\' { // printf("\\%03o", c)
			b = append(b, '\\', '0'+c>>6, '0'+c>>3&7, '0'+c&7)
		} else {
			b = append(b, c)
		}
	}
	return b
}

func TestUnescapeAllBytes(t *testing.T) {
	var all []byte
	for i := 0; i < 256; i++ {
		c := byte(i)
		all = append(all, c)
		esc := tmuxEscape([]byte{c})
		if got := Unescape(nil, esc); !bytes.Equal(got, []byte{c}) {
			t.Errorf("Unescape(%q) = %q, want %q", esc, got, []byte{c})
		}
	}
	// One line, as tmux would send it, and with a prefix in dst.
	esc := tmuxEscape(all)
	if got := Unescape([]byte("pre"), esc); !bytes.Equal(got, append([]byte("pre"), all...)) {
		t.Errorf("Unescape(all 256 bytes) = %q", got)
	}
	// Every way to split the escaped line (tmux never splits an escape, but
	// a decoder applied per chunk must still agree on whole escapes).
	for _, chunk := range []int{1, 3, 4, 7, 64} {
		var got []byte
		for i := 0; i < len(all); i += chunk {
			got = Unescape(got, tmuxEscape(all[i:min(i+chunk, len(all))]))
		}
		if !bytes.Equal(got, all) {
			t.Errorf("chunks of %d: got %q", chunk, got)
		}
	}
}

// TestEscapeMatchesTmux checks the reference escaper (and so the round trip
// above) against the line real tmux 3.3a sent for bytes 0..255.
func TestEscapeMatchesTmux(t *testing.T) {
	data := readTranscripts(t)["basic.txt"]
	var all []byte
	for i := 0; i < 256; i++ {
		all = append(all, byte(i))
	}
	want := append(append([]byte("BEGIN"), all...), "END"...)
	for _, line := range transcriptLines(data) {
		pane, payload, _, ok := parseOutput(line)
		if !ok || pane != 1 || !bytes.HasPrefix(payload, []byte("BEGIN")) {
			continue
		}
		if !bytes.Equal(payload, tmuxEscape(want)) {
			t.Fatalf("tmux escaped bytes 0..255 as\n%q\nreference escaper gives\n%q", payload, tmuxEscape(want))
		}
		if got := Unescape(nil, payload); !bytes.Equal(got, want) {
			t.Fatalf("Unescape(tmux line) = %q, want %q", got, want)
		}
		return
	}
	t.Fatal("basic.txt has no output line of pane 1 with bytes 0..255")
}

func TestUnescape(t *testing.T) {
	tests := []struct{ in, want string }{
		{``, ``},
		{`plain`, `plain`},
		{`\000`, "\x00"},
		{`\033[?2004h`, "\x1b[?2004h"},
		{`a\015\012b`, "a\r\nb"},
		{`\134`, `\`},
		{`\134134`, `\134`}, // an escaped backslash followed by digits
		{`\0001`, "\x001"},
		{`\377`, "\xff"},
		{"\xc3\xa9\xe6\x97", "\xc3\xa9\xe6\x97"},
		// Malformed escapes are kept literally.
		{`\`, `\`},
		{`a\`, `a\`},
		{`\0`, `\0`},
		{`\01`, `\01`},
		{`\01x`, `\01x`},
		{`\8`, `\8`},
		{`\018`, `\018`},
		{`\x41`, `\x41`},
		{`\n`, `\n`},
		{`\\`, `\\`},
		{`\\012`, "\\\n"},
		{`\\\`, `\\\`},
		{`x\12`, `x\12`},
		{`\12\015`, "\\12\r"},
	}
	for _, tt := range tests {
		if got := Unescape(nil, []byte(tt.in)); string(got) != tt.want {
			t.Errorf("Unescape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestUnescapeOutOfRangeOctal: tmux never sends \4xx..\7xx (it escapes every
// backslash), and its own command parser rejects them as "invalid octal
// escape". Unescape's doc says malformed escapes are kept literally, but it
// decodes them with the top bit lost: `\400` becomes 0x00, `\777` 0xff.
func TestUnescapeOutOfRangeOctal(t *testing.T) {
	for _, in := range []string{`\400`, `\477`, `\777`} {
		if got := Unescape(nil, []byte(in)); string(got) != in {
			t.Errorf("Unescape(%q) = %q, want it kept literally", in, got)
		}
	}
}

func TestQuoteShape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", `""`},
		{"abc XYZ 019", `"abc XYZ 019"`},
		{"-,./_:%@=+", `"-,./_:%@=+"`},
		{"$HOME", `"\044HOME"`},
		{"~", `"\176"`},
		{"#{pane_id}", `"\043\173pane_id\175"`},
		{"a;b", `"a\073b"`},
		{`"'\`, `"\042\047\134"`},
		{"\n\t\x00\x7f", `"\012\011\000\177"`},
		{"é", `"\303\251"`},
	}
	for _, tt := range tests {
		if got := Quote(tt.in); got != tt.want {
			t.Errorf("Quote(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
	// Whatever the input, the result is one double-quoted printable-ASCII
	// word whose only backslashes start valid tmux octal escapes.
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 1000; i++ {
		b := make([]byte, r.Intn(40))
		r.Read(b)
		q := Quote(string(b))
		if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
			t.Fatalf("Quote(%q) = %s: not double quoted", b, q)
		}
		inner := q[1 : len(q)-1]
		var dec []byte
		for j := 0; j < len(inner); j++ {
			c := inner[j]
			if c < 0x20 || c >= 0x7f || strings.IndexByte("\"'$~#;{}", c) >= 0 {
				t.Fatalf("Quote(%q) = %s: unsafe byte %q", b, q, c)
			}
			if c == '\\' {
				if j+3 >= len(inner) || inner[j+1] < '0' || inner[j+1] > '3' || !isOct(inner[j+2]) || !isOct(inner[j+3]) {
					t.Fatalf("Quote(%q) = %s: bad escape at %d", b, q, j)
				}
				dec = append(dec, (inner[j+1]-'0')<<6|(inner[j+2]-'0')<<3|(inner[j+3]-'0'))
				j += 3
				continue
			}
			dec = append(dec, c)
		}
		if !bytes.Equal(dec, b) {
			t.Fatalf("Quote(%q) = %s decodes to %q", b, q, dec)
		}
	}
}

// TestQuoteRoundTripThroughTmux sends Quote(s) to a real tmux 3.3a command
// parser (set-buffer over a control connection, which quotes every argument
// with Quote) and reads the buffer back raw with `save-buffer -` (show-buffer
// would vis-encode it in control mode).
func TestQuoteRoundTripThroughTmux(t *testing.T) {
	t.Parallel()
	tg := newTestServer(t)
	ctx := testCtx(t)
	c, err := dial(ctx, tg, "main", newRecordSink(), discardLog)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	var allBytes strings.Builder
	for i := 1; i < 256; i++ { // NUL cannot pass: tmux arguments are C strings
		allBytes.WriteByte(byte(i))
	}
	r := rand.New(rand.NewSource(2))
	long := make([]byte, 4096)
	for i := range long {
		long[i] = byte(1 + r.Intn(255))
	}
	for _, s := range []string{
		`plain`,
		`"double" 'single' "unbalanced`,
		`$HOME ${HOME} $(echo no) ~ ~root`,
		`#{pane_id} #[fg=red] ## #(echo no)`,
		`a;b ; c \; d;`,
		"line1\nline2\n",
		"tab\there\r\x1b[31m\x7f",
		`back\slash \\ \012 \n`,
		"é日😀",
		"%end 1 2 1",
		"%if 1",
		"-starts-with-dash",
		"{ braces }",
		allBytes.String(),
		string(long),
	} {
		if _, err := c.Exec(ctx, "set-buffer", "-b", "t", "--", s); err != nil {
			t.Errorf("set-buffer %s: %v", Quote(s), err)
			continue
		}
		got, err := tg.Command(ctx, "save-buffer", "-b", "t", "-").Output()
		if err != nil {
			t.Fatalf("save-buffer: %v", err)
		}
		if string(got) != s {
			t.Errorf("Quote(%q) = %s came back as %q", s, Quote(s), got)
		}
	}
}

func TestParseNotification(t *testing.T) {
	tests := []struct {
		line string
		want Notification
		ok   bool
	}{
		{"%sessions-changed", Notification{"sessions-changed", ""}, true},
		{"%exit", Notification{"exit", ""}, true},
		{"%exit too far behind", Notification{"exit", "too far behind"}, true},
		{"%window-add @1", Notification{"window-add", "@1"}, true},
		{"%window-renamed @0 my window", Notification{"window-renamed", "@0 my window"}, true},
		{"%layout-change @0 4196,80x24,0,0[80x12,0,0,0,80x11,0,13,2] 4196,80x24,0,0[80x12,0,0,0,80x11,0,13,2] *",
			Notification{"layout-change", "@0 4196,80x24,0,0[80x12,0,0,0,80x11,0,13,2] 4196,80x24,0,0[80x12,0,0,0,80x11,0,13,2] *"}, true},
		{"%subscription-changed dead $0 @0 0 %0 : 0", Notification{"subscription-changed", "dead $0 @0 0 %0 : 0"}, true},
		{"%pause %3", Notification{"pause", "%3"}, true},
		{"%x  two spaces", Notification{"x", " two spaces"}, true},
		{"%x ", Notification{"x", ""}, true},
		{"%1", Notification{"1", ""}, true}, // a body line; only callers know
		{"", Notification{}, false},
		{"%", Notification{}, false},
		{"% x", Notification{}, false},
		{"hello", Notification{}, false},
		{"PANE-EXITED %5", Notification{}, false},
	}
	for _, tt := range tests {
		got, ok := parseNotification([]byte(tt.line))
		if ok != tt.ok || got != tt.want {
			t.Errorf("parseNotification(%q) = %+v, %v; want %+v, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
}

func TestNotificationPaneArg(t *testing.T) {
	tests := []struct {
		args string
		pane int
		ok   bool
	}{
		{"%0", 0, true},
		{"%42", 42, true},
		{"%42 extra", 42, true},
		{"%999999999", 999999999, true},
		{"", 0, false},
		{"%", 0, false},
		{"% 1", 0, false},
		{"@1", 0, false},
		{"$1", 0, false},
		{"42", 0, false},
		{"%4x", 0, false},
		{"%-1", 0, false},
		{"%1234567890", 0, false},
		{" %1", 0, false},
	}
	for _, tt := range tests {
		pane, ok := Notification{Name: "pause", Args: tt.args}.PaneArg()
		if pane != tt.pane || ok != tt.ok {
			t.Errorf("PaneArg(%q) = %d, %v; want %d, %v", tt.args, pane, ok, tt.pane, tt.ok)
		}
	}
}
