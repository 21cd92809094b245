package input

import (
	"fmt"
	"sync"
)

// Line is tmuxmcp's model of the line a pane's program is editing, built
// from what tmuxmcp typed into it since the line began, so that an Enter
// (in any spelling) and every other key that may run the line is judged
// on what the program will run.
type Line struct {
	// Text is what tmuxmcp typed since the line began.
	Text string
	// Kill is the last text C-u killed, which C-y brings back.
	Kill string
	// Anchor is 1 + the absolute row (history size + cursor row) where
	// tmuxmcp first typed into the line, or 0: the screen from there to
	// the cursor holds the whole edit buffer, even a multi-line one.
	Anchor int
	// EditedBy is the key after which the model no longer knows the line
	// (a cursor move, a deletion, history recall, a yank, any key with an
	// unknown effect), or "".
	EditedBy string
	// Escaped says Escape or a Meta key was sent: every key after it is a
	// line-editor command (vi command mode), until C-c ends the line.
	Escaped bool
	// Unsure is the key after which tmuxmcp cannot vouch for the line
	// editor's state although the screen may show nothing: Escape or a
	// Meta key (a pending Meta prefix, vi command mode), a control key (a
	// pending C-x prefix, a quoted insert waiting for its character), a
	// key sent as an escape sequence to a shell; "" when only text,
	// Enter, C-c, C-u and plain editing keys were sent since the line
	// began. Only a line's end (Enter, C-c) clears it: before a command is
	// typed into such a line, the line editor is reset with C-c.
	Unsure string
	// EscapeLast says the last key sent was a lone Escape: a program
	// reads a key that follows it within its escape delay (fish's
	// fish_escape_delay_ms, vim's ttimeoutlen) as Alt with that key, so
	// the next input waits that delay out (EscapeGap).
	EscapeLast bool
	// Open says Enter handed the shell a line it keeps editing (fish,
	// with an unclosed quote or block): Text is that unfinished command,
	// which only C-c discards.
	Open bool
}

// Step is what a batch of input does to the line.
type Step struct {
	// Judge is each line the input may run, in order, to be judged before
	// anything is sent.
	Judge []string
	// Echo is the text the input types, for the echo ledger.
	Echo string
	// Submitted says a key ended or discarded the typed text (Enter, C-c,
	// C-d, C-u, Escape): the echo ledger stops waiting for its echo.
	Submitted bool
	// Sent says a key that submits a line (Enter, C-m, C-j, KPEnter) was
	// sent, whatever state the line editor was in: what a result's
	// "submitted" reports.
	Sent bool
	// Ended says a line ended (Enter, C-c): the next one starts wherever
	// the output leaves the cursor.
	Ended bool
	// Cleared says the input left the line empty (its last key is C-u or
	// C-c): what the screen shows up to the cursor is then the prompt.
	Cleared bool
	// Entered says the last line-ending key was Enter (false after C-c):
	// the shell was handed a line to run.
	Entered bool
}

// EditedError is a key that may run the line sent after keys the model
// does not follow: under a policy such a line cannot be judged before it
// runs.
type EditedError struct {
	Key     string // the key that may run the line ("" for typed text)
	After   string // the key after which the line is unknown
	Escaped bool   // After is Escape or a Meta key
}

func (e *EditedError) Error() string {
	what := fmt.Sprintf("%q", e.Key)
	if e.Key == "" {
		what = "typed text"
	}
	if e.Escaped {
		return fmt.Sprintf("%s comes after %q: after Escape, a Meta (M-) key, or in a shell a key sent as an escape sequence (arrows, Home, PageUp, F-keys, which a vi-mode editor may read as Escape), every key but C-c is a line-editor command (vi command mode, M-# accepts the line, M-C-e expands $(…)) that a command policy cannot check", what, e.After)
	}
	return fmt.Sprintf("%s comes after the editing key %q: a line changed with editing keys (arrows, BSpace, C-a, history Up, C-y, C-r, Tab) cannot be checked before it runs under a command policy", what, e.After)
}

// Keys replays keys on l. With strict (a command policy is active), a key
// that may run the line after the model lost track of it is refused with
// an *EditedError, and l is returned unchanged. shell says a shell's line
// editor reads the keys: a key sent as an escape sequence may then put a
// vi-mode editor in command mode, so it counts as Escape.
func (l Line) Keys(keys []Key, strict, shell bool) (Line, Step, error) {
	orig := l
	var st Step
	for i, k := range keys {
		kind := k.Kind
		st.Sent = st.Sent || kind == Submit
		if l.Escaped && kind != Abort {
			kind = Control // a vi command, or the second half of M-x
		}
		if strict && l.EditedBy != "" && kind.Submits() {
			return orig, Step{}, &EditedError{Key: spelling(k), After: l.EditedBy, Escaped: l.Escaped}
		}
		st.Echo += k.Text
		switch kind {
		case Submit:
			st.Judge = append(st.Judge, l.Text)
			l = Line{Kill: l.Kill}
			st.Submitted, st.Ended, st.Entered = true, true, true
		case KillLine:
			l.Kill, l.Text = l.Text, ""
			st.Submitted = true
		case Abort:
			l = Line{Kill: l.Kill}
			st.Submitted, st.Ended, st.Entered = true, true, false
		case Yank:
			// The kill ring may hold what someone else killed.
			l.Text += l.Kill
			l.EditedBy = spelling(k)
		case Edit:
			l.EditedBy = spelling(k)
			if k.Sequence && shell {
				l.Escaped = true // vi insert mode may read its ESC as Escape
			}
			if k.Sequence || k.Name == "C-r" {
				// A vi-mode editor may read the sequence's ESC as Escape;
				// an incremental search takes the text typed next.
				l = l.unsure(k)
			}
		case Meta:
			st.Judge = append(st.Judge, l.Text)
			l.EditedBy, l.Escaped, st.Submitted = spelling(k), true, true
			l = l.unsure(k)
		case Control:
			st.Judge = append(st.Judge, l.Text+k.Text)
			l.EditedBy = spelling(k)
			l = l.unsure(k)
			l.Escaped = l.Escaped || k.Sequence && shell
			st.Submitted = st.Submitted || k.Name == "C-d"
		default:
			l.Text += k.Text
		}
		st.Cleared = i == len(keys)-1 && (kind == KillLine || kind == Abort)
		l.EscapeLast = k.Kind == Meta && k.Name == "Escape"
	}
	return l, st, nil
}

// Type replays text typed literally (type_text), then Enter when submit.
// A line break, TAB or other control character in the text can run the
// line by itself, so under strict it is judged as a submit.
func (l Line) Type(text string, submit, strict bool) (Line, Step, error) {
	runs := submit || strict && HasControl(text)
	if strict && l.EditedBy != "" && (runs || l.Escaped) {
		k := ""
		if submit {
			k = "Enter"
		}
		return l, Step{}, &EditedError{Key: k, After: l.EditedBy, Escaped: l.Escaped}
	}
	st := Step{Echo: text, Sent: submit}
	l.EscapeLast = l.EscapeLast && text == "" && !submit
	if runs {
		st.Judge = []string{l.Text + text}
	}
	l.Text += text
	if submit {
		l = Line{Kill: l.Kill}
		st.Submitted, st.Ended, st.Entered = true, true, true
	}
	return l, st, nil
}

// unsure returns l with Unsure set to k, unless an earlier key already
// left the line editor's state unknown.
func (l Line) unsure(k Key) Line {
	if l.Unsure == "" {
		l.Unsure = spelling(k)
	}
	return l
}

// spelling names a key in an error: its tmux name, or its text.
func spelling(k Key) string {
	if k.Name != "" {
		return k.Name
	}
	return k.Text
}

// Lines holds every pane's Line, each tied to the recording of the pane
// it was typed into (rec: any name that changes when the pane number
// starts a new recording, such as its stream id): a line typed into an earlier recording of the same
// pane number (a pane killed, a tmux server restarted, whose new pane
// reuses the id) is forgotten, never inherited. It is safe for
// concurrent use.
type Lines struct {
	mu sync.Mutex
	m  map[int]recorded
}

// recorded is a line and the recording it was typed into.
type recorded struct {
	rec  string
	line Line
}

// NewLines returns an empty set of lines.
func NewLines() *Lines { return &Lines{m: map[int]recorded{}} }

// Get returns pane's line in recording rec (empty when nothing was typed
// into that recording).
func (ls *Lines) Get(pane int, rec string) Line {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	r, ok := ls.m[pane]
	if ok && r.rec != rec {
		delete(ls.m, pane)
		return Line{}
	}
	return r.line
}

// Set records pane's line in recording rec.
func (ls *Lines) Set(pane int, rec string, l Line) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.m[pane] = recorded{rec, l}
}

// Submitted records that a whole line was typed and submitted in pane's
// recording rec (by run_shell_command): the next line starts empty. The
// kill ring is kept.
func (ls *Lines) Submitted(pane int, rec string) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	var kill string
	if r, ok := ls.m[pane]; ok && r.rec == rec {
		kill = r.line.Kill
	}
	ls.m[pane] = recorded{rec, Line{Kill: kill}}
}

// Forget drops pane's line (the pane is gone).
func (ls *Lines) Forget(pane int) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	delete(ls.m, pane)
}
