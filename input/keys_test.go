package input

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEverySpellingOfAKeyIsNormalised(t *testing.T) {
	cases := []struct {
		in   string
		name string // "" with text: typed literally
		text string
		kind Kind
	}{
		{in: "Enter", name: "Enter", kind: Submit},
		{in: "enter", name: "Enter", kind: Submit},
		{in: "ENTER", name: "Enter", kind: Submit},
		{in: "C-m", name: "C-m", kind: Submit},
		{in: "c-M", name: "C-m", kind: Submit},
		{in: "^M", name: "C-m", kind: Submit},
		{in: "^m", name: "C-m", kind: Submit},
		{in: "C-j", name: "C-j", kind: Submit},
		{in: "0xd", name: "C-m", kind: Submit},
		{in: "0x0d", name: "C-m", kind: Submit},
		{in: "0xa", name: "C-j", kind: Submit},
		{in: "0x03", name: "C-c", kind: Abort},
		{in: "0x1b", name: "Escape", kind: Meta},
		{in: "0x0f", name: "C-o", kind: Control},
		{in: "0x1c", name: `C-\`, kind: Control},
		{in: "0x7f", name: "BSpace", kind: Edit},
		{in: "0x41", text: "A", kind: Text},
		{in: "0x6d", text: "m", kind: Text},
		{in: "0x20AC", text: "€", kind: Text},
		{in: "KPEnter", name: "KPEnter", kind: Submit},
		{in: "Escape", name: "Escape", kind: Meta},
		{in: "C-[", name: "C-[", kind: Meta},
		{in: "M-#", name: "M-#", kind: Meta},
		{in: "m-x", name: "M-x", kind: Meta},
		{in: "M-Enter", name: "M-Enter", kind: Meta},
		{in: "C-M-e", name: "M-C-e", kind: Meta},
		{in: "M-C-e", name: "M-C-e", kind: Meta},
		{in: "C-c", name: "C-c", kind: Abort},
		{in: "^C", name: "C-c", kind: Abort},
		{in: "C-u", name: "C-u", kind: KillLine},
		{in: "C-y", name: "C-y", kind: Yank},
		{in: "C-o", name: "C-o", kind: Control},
		{in: "C-x", name: "C-x", kind: Control},
		{in: "C-a", name: "C-a", kind: Edit},
		{in: "C-A", name: "C-a", kind: Edit},
		{in: "C-r", name: "C-r", kind: Edit},
		{in: "Up", name: "Up", kind: Edit},
		{in: "PgUp", name: "PageUp", kind: Edit},
		{in: "NPage", name: "PageDown", kind: Edit},
		{in: "Delete", name: "DC", kind: Edit},
		{in: "S-Left", name: "S-Left", kind: Edit},
		{in: "C-Right", name: "C-Right", kind: Edit},
		{in: "S-Tab", name: "BTab", kind: Control},
		{in: "Tab", name: "Tab", kind: Control},
		{in: "C-d", name: "C-d", kind: Control},
		{in: "C-i", name: "C-i", kind: Control},
		{in: "0x09", name: "Tab", kind: Control},
		{in: "x\ty", text: "x\ty", kind: Control},
		{in: "C-Enter", name: "C-Enter", kind: Control},
		{in: "F5", name: "F5", kind: Control},
		{in: "Space", name: "Space", text: " ", kind: Text},
		{in: "SPACE", name: "Space", text: " ", kind: Text},
		{in: "ls -la", text: "ls -la", kind: Text},
		{in: "q", text: "q", kind: Text},
		{in: "é", text: "é", kind: Text},
		{in: "a-b", text: "a-b", kind: Text},
		{in: "C-", text: "C-", kind: Text},
		{in: "^", text: "^", kind: Text},
		{in: "rm -rf x\r", text: "rm -rf x\r", kind: Control},
		{in: "x\x1b", text: "x\x1b", kind: Control},
		{in: "x-Enter", text: "x-Enter", kind: Text},
	}
	for _, c := range cases {
		k, err := Parse(c.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if k.Name != c.name || k.Text != c.text || k.Kind != c.kind {
			t.Errorf("Parse(%q) = {%q %q %v}, want {%q %q %v}", c.in, k.Name, k.Text, k.Kind, c.name, c.text, c.kind)
		}
	}
}

// Spellings tmux would read leniently as some key (a control key, a user
// key, a mouse event), names it does not know, and what is not text are
// refused.
func TestSpellingsTmuxWouldMisreadAreRefused(t *testing.T) {
	for _, in := range []string{
		// tmux's lenient spellings: it would read each as a control key.
		"0xdg", "0x0dz", "0xd.", "0xaq", "0x0xd", "0x d", "0x+d", "0X0d", "0x",
		"0x9f", "0xd800", // a C1 control, a surrogate
		"^C-m", "^M-x", "^ab", "C-foo", "C-C-m", "S-a",
		"Return", "Esc", "Backspace", // names tmux does not know
		"User0",
		"User 5",  // sscanf's %u skips the space: tmux reads User5
		"User+5",  // and takes a sign
		"User0\n", // and ignores what follows the digits
		"user12x", "Any", "None", "KP5", "KP*", "MouseDown1Pane", "WheelUpPane",
		"", "\xff",
	} {
		k, err := Parse(in)
		var e *Error
		if !errors.As(err, &e) || e.Reason == "" {
			t.Errorf("Parse(%q) = %+v, %v; want a refusal", in, k, err)
		}
	}
}

func TestARefusalSaysWhatToSend(t *testing.T) {
	for in, want := range map[string]string{
		"Return": `"Enter"`,
		"0xdg":   "0x0d is Enter",
		"^C-m":   "C-M-x",
		"C-foo":  "Accepted:",
	} {
		_, err := Parse(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) error %v, want it to mention %q", in, err, want)
		}
	}
}

// tmuxReadsAsKey mirrors tmux 3.3a's key_string_lookup_string: whether
// send-keys (without -l) would send s as a key rather than type it.
func tmuxReadsAsKey(s string) bool {
	if strings.EqualFold(s, "None") {
		return false
	}
	if strings.EqualFold(s, "Any") {
		return true
	}
	if strings.HasPrefix(s, "0x") {
		v, ok := scanHex(s[2:])
		return ok && v <= utf8.MaxRune && !(v >= 0xd800 && v <= 0xdfff)
	}
	if len(s) >= 2 && s[0] == '^' {
		if len(s) == 2 {
			return true
		}
		s = s[1:]
	}
	for len(s) >= 2 && s[1] == '-' {
		if !strings.ContainsRune("cCmMsS", rune(s[0])) {
			return false
		}
		s = s[2:]
	}
	switch {
	case s == "":
		return false
	case len(s) == 1 && s[0] <= 127:
		return s[0] >= 32
	case s[0] >= 0xc0:
		r, n := utf8.DecodeRuneInString(s)
		return r != utf8.RuneError && n == len(s)
	}
	names := []string{"KP/", "KP*", "KP-", "KP+", "KP.", "KPEnter", "MouseDown1Pane", "WheelUpPane", "PgUp", "PgDn", "NPage", "PPage", "Insert", "Delete"}
	for _, n := range table {
		names = append(names, n.name)
	}
	for i := 0; i <= 9; i++ {
		names = append(names, "KP"+strconv.Itoa(i))
	}
	for _, n := range names {
		if strings.EqualFold(s, n) {
			return true
		}
	}
	return isUserKey(s)
}

// isUserKey is tmux's sscanf(s, "User%u", &n) == 1 && n < KEYC_NUSER
// (1000): "User" in that case, then %u's white space, sign and digits,
// anything after them ignored.
func isUserKey(s string) bool {
	rest, ok := strings.CutPrefix(s, "User")
	if !ok {
		return false
	}
	rest = strings.TrimLeft(rest, " \t\n\v\f\r")
	neg := false
	if rest != "" && (rest[0] == '+' || rest[0] == '-') {
		neg, rest = rest[0] == '-', rest[1:]
	}
	n := 0
	var v uint64
	for ; n < len(rest) && rest[n] >= '0' && rest[n] <= '9'; n++ {
		v = min(v*10+uint64(rest[n]-'0'), 1<<32)
	}
	if n == 0 {
		return false
	}
	if neg {
		v = uint64(uint32(-int64(v)))
	}
	return v < 1000
}

// scanHex is C's sscanf("%x"): leading space, a sign, an optional 0x,
// then at least one hex digit; anything after is ignored.
func scanHex(s string) (uint64, bool) {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg, s = s[0] == '-', s[1:]
	}
	if len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X") && strings.ContainsRune("0123456789abcdefABCDEF", rune(s[2])) {
		s = s[2:]
	}
	var v uint64
	n := 0
	for ; n < len(s) && strings.ContainsRune("0123456789abcdefABCDEF", rune(s[n])); n++ {
		d, _ := strconv.ParseUint(s[n:n+1], 16, 8)
		v = v*16 + d
		if v > 0xffffffff {
			v = 0xffffffff
		}
	}
	if neg {
		v = uint64(uint32(-int64(v)))
	}
	return v, n > 0
}

// checkParse is the property every spelling keeps: Parse never passes a
// spelling tmux would read as a key through as text (only one character,
// which types itself either way), and a normalised name parses back to
// the same key.
func checkParse(t *testing.T, s string) {
	k, err := Parse(s)
	if err != nil {
		return
	}
	if k.Name == "" && k.Text == s && tmuxReadsAsKey(s) && utf8.RuneCountInString(s) != 1 {
		t.Fatalf("Parse(%q) types it as text, but tmux reads it as a key", s)
	}
	if k.Name != "" {
		again, err := Parse(k.Name)
		if err != nil || again.Name != k.Name || again.Kind != k.Kind {
			t.Fatalf("Parse(%q) = %+v, but its name parses as %+v, %v", s, k, again, err)
		}
	}
	if k.Name == "" && HasControl(k.Text) && k.Kind != Control {
		t.Fatalf("Parse(%q): text with a control character is %v, want control", s, k.Kind)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"Enter", "0xdg", "^C-m", "C-M-e", "M-#", "0x0x0d", "S-Left", "User1", "ls\r", "é", "^ab", "c-m-s-Up"} {
		f.Add(s)
	}
	f.Fuzz(checkParse)
}
