// Package input is what tmuxmcp sends to a pane's keyboard: the one table
// of key names send_keys accepts and what each does to a line being edited,
// the model of the line tmuxmcp has typed into each pane, and the
// keystrokes that send keys exactly as judged (tmux.Fleet.PressKeys).
// It knows nothing of MCP, approval, policies or streams (a pane's output):
// the schema, the tool descriptions, the errors and the policy all read
// this table.
package input

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// Kind is what a key does to the line a program is editing.
type Kind int

// The kinds of keys.
const (
	// Text types characters (a string that is not a key name, Space, a
	// printable character).
	Text Kind = iota
	// Submit ends the line and runs it: Enter, C-m, C-j, KPEnter.
	Submit
	// Edit moves the cursor or edits the line without running it: arrows,
	// Home, BSpace, Tab completion, history recall, C-a, C-w, ...
	Edit
	// KillLine empties the line into the kill ring (C-u).
	KillLine
	// Abort drops the line (C-c).
	Abort
	// Yank puts the kill ring back (C-y).
	Yank
	// Meta starts a line-editor command (Escape, any M- key): Escape then
	// a key can run the line (M-# accepts it as a comment, M-C-e expands
	// command substitutions), and in vi mode every key after Escape is a
	// command. It counts as submitting.
	Meta
	// Control is any other key: it may run the line (C-o runs it and
	// fetches the next, C-x C-e opens an editor that runs what it saves)
	// or a binding may do anything. It counts as submitting.
	Control
)

var kindNames = [...]string{"text", "submit", "edit", "kill-line", "abort", "yank", "meta", "control"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Submits reports whether a key of this kind may run the line being
// edited, so the line must be judged before it is sent.
func (k Kind) Submits() bool { return k == Submit || k == Meta || k == Control }

// Key is one element of send_keys, normalised.
type Key struct {
	// Name is the spelling sent to tmux as a key ("Enter", "C-c", "M-x",
	// "S-Left"); "" for text, which is sent literally.
	Name string
	// Text is what the key types: the literal text, " " for Space, the
	// character of a hex code; "" for keys that type nothing printable.
	Text string
	Kind Kind
	// Sequence says the terminal sends the key as an escape sequence
	// (arrows, Home, PageUp, F5, S-/C- forms): a shell in vi insert mode
	// that has no binding for it reads its ESC as "command mode".
	Sequence bool
}

// Keystrokes is keys as tmux sends them (tmux.Fleet.PressKeys): a key by
// its normalised name, text literally, so tmux sends exactly what was
// judged and never reads a spelling of its own.
func Keystrokes(keys []Key) []tmux.Keystroke {
	out := make([]tmux.Keystroke, len(keys))
	for i, k := range keys {
		out[i] = tmux.Keystroke{Name: k.Name}
		if k.Name == "" {
			out[i].Text = k.Text
		}
	}
	return out
}

// named is one row of the key table.
type named struct {
	name    string
	aliases []string
	kind    Kind
	text    string
	what    string
}

// table is every key name send_keys accepts, besides modifier forms
// (C-x, M-x, S-Left), ^x, hex codes and text.
var table = []named{
	{"Enter", nil, Submit, "", "submits the line"},
	{"KPEnter", nil, Submit, "", "keypad Enter: submits the line"},
	{"Escape", nil, Meta, "", "starts a line-editor command (vi command mode, M- bindings)"},
	{"Tab", nil, Control, "", "completion, which can run code: zsh expands $(…) on the line, programmable completion runs functions"},
	{"BTab", nil, Control, "", "Shift-Tab: reverse completion"},
	{"BSpace", nil, Edit, "", "deletes backwards"},
	{"Space", nil, Text, " ", "types a space"},
	{"Up", nil, Edit, "", "cursor up, previous history line"},
	{"Down", nil, Edit, "", "cursor down, next history line"},
	{"Left", nil, Edit, "", "cursor left"},
	{"Right", nil, Edit, "", "cursor right"},
	{"Home", nil, Edit, "", "start of line"},
	{"End", nil, Edit, "", "end of line"},
	{"PageUp", []string{"PgUp", "PPage"}, Edit, "", "page up"},
	{"PageDown", []string{"PgDn", "NPage"}, Edit, "", "page down"},
	{"IC", []string{"Insert"}, Edit, "", "Insert"},
	{"DC", []string{"Delete"}, Edit, "", "deletes forwards"},
}

func init() {
	for i := 1; i <= 12; i++ {
		table = append(table, named{"F" + strconv.Itoa(i), nil, Control, "", "function key"})
	}
}

// plainKeys are the named keys a terminal sends as one byte (or none).
var plainKeys = map[string]bool{"Enter": true, "Tab": true, "BSpace": true, "Space": true, "Escape": true, "KPEnter": true}

// ctrlKinds are the control keys whose effect on a shell's line is known;
// every other C- key is Control.
var ctrlKinds = map[rune]Kind{
	'm': Submit, 'j': Submit, 'c': Abort, 'u': KillLine, 'y': Yank, '[': Meta,
	'a': Edit, 'e': Edit, 'b': Edit, 'f': Edit, 'h': Edit, 'k': Edit, 'w': Edit,
	'l': Edit, 'p': Edit, 'n': Edit, 'r': Edit, 't': Edit, '_': Edit,
	// C-i is Tab and C-d lists completions in zsh (both expand $(…)), so
	// they are Control: judged.
}

// ctrlChars are the characters a C- key can take besides letters.
const ctrlChars = "@[\\]^_"

// mistakes are names people and agents use that tmux does not know (it
// would type them as text): each is refused with the name to use.
var mistakes = map[string]string{
	"return": "Enter", "cr": "Enter", "lf": "C-j", "newline": "Enter", "esc": "Escape",
	"backspace": "BSpace", "bs": "BSpace", "del": "DC", "ins": "IC", "pgup": "PageUp",
	"shift-tab": "BTab", "ctrl-c": "C-c", "ctrl+c": "C-c",
	"arrowup": "Up", "arrowdown": "Down", "arrowleft": "Left", "arrowright": "Right",
}

// reserved matches names tmux reads as keys that tmuxmcp does not send:
// keypad keys, mouse events, user keys, Any and None. tmux reads a user
// key with sscanf("User%u"), which skips white space (newlines too),
// takes a sign and ignores what follows the digits: "User 5", "User+5"
// and "User0\n" are keys, so all of those spellings are refused.
var reserved = regexp.MustCompile(`(?is)^(?:KP.|KP[0-9]|KP/|Any|None|User[ \t\n\v\f\r]*[+-]?\d.*|Paste(?:Start|End)|Focus(?:In|Out)|(?:Mouse|Wheel|Double|Triple|Second|Drag|Click)\w*)$`)

// modified matches modifier syntax tmux reads (C-, M-, S- in any case).
var modified = regexp.MustCompile(`(?i)^(?:[cms]-)+(.+)$`)

// hexCode matches a hex key code in the one spelling accepted: 0x and 1..6
// hex digits, nothing else (tmux reads "0xdg" and "0x0xd" as 0xd, so any
// other spelling is refused rather than guessed).
var hexCode = regexp.MustCompile(`^0x[0-9a-fA-F]{1,6}$`)

// Error is a key send_keys does not accept.
type Error struct {
	Key    string // as given
	Reason string // what is wrong and what to send instead
}

func (e *Error) Error() string { return fmt.Sprintf("%q %s", e.Key, e.Reason) }

// Accepted describes, in one line, every key spelling send_keys accepts.
const Accepted = "Enter, Escape, Tab, BTab, BSpace, Space, Up, Down, Left, Right, Home, End, PageUp (PgUp, PPage), PageDown (PgDn, NPage), IC (Insert), DC (Delete), KPEnter, F1..F12; " +
	"C-a..C-z and C-@ C-[ C-\\ C-] C-^ C-_ (also written ^a); M-x (Alt/Meta with a character or a key above), S- and C- with the keys above (S-Left, C-Right); " +
	"0x and hex digits for one character (0x41 types A, 0x0d is Enter); any other string is typed as text"

// Parse normalises one element of send_keys: a key from the table (any
// case), a modifier form, ^x, a hex code, or text. Spellings tmux would
// read as a key but not in one of those forms (0xdg, ^C-m, C-foo, User0,
// mouse keys) and common wrong names (Return, Esc) are an *Error.
func Parse(s string) (Key, error) {
	if s == "" {
		return Key{}, &Error{s, "is empty"}
	}
	if k, ok := lookup(s); ok {
		return k, nil
	}
	if to, ok := mistakes[strings.ToLower(s)]; ok {
		return Key{}, &Error{s, fmt.Sprintf("is not a tmux key name: send %q", to)}
	}
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		if hexCode.MatchString(s) {
			return fromHex(s)
		}
		return Key{}, &Error{s, "is not a hex key code: write 0x and hex digits only (0x0d is Enter, 0x41 types A); to type the text use type_text"}
	}
	if len(s) > 1 && s[0] == '^' {
		r, size := utf8.DecodeRuneInString(s[1:])
		if 1+size == len(s) {
			if k, ok := ctrl(unicode.ToLower(r), ""); ok {
				return k, nil
			}
		}
		return Key{}, &Error{s, "is not a key: ^ takes one character (^c is C-c); write modifiers as C-, M-, S- (C-M-x); to type the text use type_text"}
	}
	if m := modified.FindStringSubmatch(s); m != nil {
		if k, ok := withModifiers(s); ok {
			return k, nil
		}
		return Key{}, &Error{s, fmt.Sprintf("is not a key: %q after C-, M- or S- is not a key name or character this table has. Accepted: %s", m[1], Accepted)}
	}
	if reserved.MatchString(s) {
		return Key{}, &Error{s, "is a tmux key tmuxmcp does not send (keypad, mouse, user and Any/None keys); to type the text use type_text"}
	}
	if !utf8.ValidString(s) {
		return Key{}, &Error{s, "is not valid UTF-8"}
	}
	kind := Text
	if HasControl(s) {
		kind = Control // a CR, ESC or C-o inside text acts as a key
	}
	return Key{Text: s, Kind: kind}, nil
}

// lookup finds s in the table, in any case.
func lookup(s string) (Key, bool) {
	for _, n := range table {
		if strings.EqualFold(s, n.name) || slices.ContainsFunc(n.aliases, func(a string) bool { return strings.EqualFold(s, a) }) {
			return Key{Name: n.name, Text: n.text, Kind: n.kind, Sequence: !plainKeys[n.name]}, true
		}
	}
	return Key{}, false
}

// ctrl is C- with one character (lower-cased letters, or one of
// ctrlChars), with extra modifiers before it ("M-" or "").
func ctrl(r rune, more string) (Key, bool) {
	if !(r >= 'a' && r <= 'z' || strings.ContainsRune(ctrlChars, r)) {
		return Key{}, false
	}
	kind, ok := ctrlKinds[r]
	if !ok {
		kind = Control
	}
	if more != "" {
		kind = Meta
	}
	return Key{Name: more + "C-" + string(r), Kind: kind}, true
}

// withModifiers parses C-, M- and S- prefixes (any case, any order, each
// once) before a table key or one printable character.
func withModifiers(s string) (Key, bool) {
	var c, m, sh bool
	rest := s
	for len(rest) > 2 && rest[1] == '-' {
		var seen *bool
		switch rest[0] {
		case 'c', 'C':
			seen = &c
		case 'm', 'M':
			seen = &m
		case 's', 'S':
			seen = &sh
		default:
			return Key{}, false
		}
		if *seen {
			return Key{}, false
		}
		*seen = true
		rest = rest[2:]
	}
	if rest == "" || !(c || m || sh) {
		return Key{}, false
	}
	prefix := ""
	if m {
		prefix = "M-"
	}
	if base, ok := lookup(rest); ok {
		name := prefix
		if c {
			name += "C-"
		}
		if sh {
			name += "S-"
		}
		name += base.Name
		kind := Control
		switch {
		case m:
			kind = Meta
		case base.Kind == Edit && !(c && sh):
			kind = Edit // C-Left, S-Up, C-BSpace: still editing
		}
		if name == "S-Tab" {
			name, kind = "BTab", Control // what a terminal sends for it
		}
		return Key{Name: name, Kind: kind, Sequence: true}, true
	}
	r, size := utf8.DecodeRuneInString(rest)
	if size != len(rest) || r == utf8.RuneError || !unicode.IsPrint(r) || r == ' ' {
		return Key{}, false
	}
	switch {
	case sh:
		return Key{}, false // S-a: type the capital letter as text
	case c:
		return ctrl(unicode.ToLower(r), prefix)
	}
	return Key{Name: "M-" + string(r), Kind: Meta}, true
}

// fromHex is the key a hex code sends: a control character becomes its C-
// key (0x0d is C-m), a printable one text.
func fromHex(s string) (Key, error) {
	n, _ := strconv.ParseUint(s[2:], 16, 32)
	r := rune(n)
	switch {
	case r == 0x7f:
		return Key{Name: "BSpace", Kind: Edit}, nil
	case r == 0x09:
		return Key{Name: "Tab", Kind: Control}, nil
	case r == 0x1b:
		return Key{Name: "Escape", Kind: Meta}, nil
	case r == 0x00:
		k, _ := ctrl('@', "")
		return k, nil
	case r < 0x1c:
		k, _ := ctrl(r+0x60, "") // 0x01 is C-a
		return k, nil
	case r < 0x20:
		k, _ := ctrl(r+0x40, "") // 0x1c is C-\
		return k, nil
	case !utf8.ValidRune(r) || r >= 0x80 && r < 0xa0 || !unicode.IsPrint(r) && r != ' ':
		return Key{}, &Error{s, "is not a character tmuxmcp sends (a C1 control, an invisible or invalid code point); to type text use type_text"}
	}
	return Key{Text: string(r), Kind: Text}, nil
}

// HasControl reports whether s holds a control character: typed into a
// program, it may act as a key (CR submits, C-o runs the line, ESC starts
// a sequence, TAB completes — and zsh's completion expands $(…)).
func HasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool {
		return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0)
	})
}

// Markdown renders the key table as docs/tools.md shows it: every name
// send_keys accepts, what it does, and whether a command policy judges it
// as running the line.
func Markdown() string {
	var b strings.Builder
	b.WriteString("| key | kind | what it does | judged as running the line |\n|---|---|---|---|\n")
	row := func(name string, kind Kind, what string) {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", name, kind, what, judged(kind))
	}
	for _, n := range table {
		if strings.HasPrefix(n.name, "F") && n.name != "F1" {
			continue // one row for F1..F12
		}
		name := "`" + n.name + "`"
		if n.name == "F1" {
			name = "`F1` … `F12`"
		}
		for _, a := range n.aliases {
			name += ", `" + a + "`"
		}
		row(name, n.kind, n.what)
	}
	row("`C-m`, `C-j` (`^M`, `0x0d`, `0x0a`)", Submit, "Enter, newline")
	row("`C-c` (`^C`, `0x03`)", Abort, "drops the line (interrupts a program)")
	row("`C-u`", KillLine, "kills the line into the kill ring")
	row("`C-y`", Yank, "yanks the kill ring back: the line is no longer known")
	row("`C-a` `C-b` `C-e` `C-f` `C-h` `C-k` `C-l` `C-n` `C-p` `C-r` `C-t` `C-w` `C-_`", Edit, "line editing, history, search, clear screen")
	row("`C-d`, `C-i` (= Tab)", Control, "delete / end of input / list completions; completion (zsh expands $(…) for both)")
	row("`C-[` (`0x1b`), any `M-` key (`M-x`, `M-C-e`, `M-Enter`)", Meta, "Escape: a line-editor command; under a policy every key after it but C-c is refused")
	row("every other `C-` key (`C-o`, `C-x`, `C-v`, `C-z`, `C-\\`, `C-@` ...)", Control, "may run the line (C-o runs it, C-x C-e opens an editor) or anything a binding does")
	row("`S-` and `C-` with an editing key (`S-Left`, `C-Right`, `C-BSpace`); `S-Tab` is `BTab`", Edit, "word moves, selection")
	row("`0x` and 1–6 hex digits of a printable character (`0x41`)", Text, "types it")
	row("any other string (`ls -la`, `q`, `:wq`)", Text, "typed literally (a control character inside makes it control)")
	b.WriteString("\nRefused, with the spelling to use: hex with anything after the digits (`0xdg`, `0x0xd`, `0x d`), `^` before more than one character (`^C-m`), modifiers before something that is not a key or one character (`C-foo`, `S-a`), repeated modifiers (`C-C-m`), `User0`…, `Any`, `None`, keypad and mouse keys, and the names tmux does not know: `Return`, `Esc`, `Backspace`, `Del`, `Ctrl-C`, ...\n")
	return b.String()
}

func judged(k Kind) string {
	switch {
	case k.Submits():
		return "yes"
	case k == Edit || k == Yank:
		return "no, but a later Enter is refused under a policy"
	}
	return "no"
}
