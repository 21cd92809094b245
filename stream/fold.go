package stream

import (
	"bytes"
	"slices"
	"unicode/utf8"
)

// FoldSink receives the lines a Fold settles.
type FoldSink interface {
	// Line takes one settled line, its line feed included (the last
	// line of a Flush, and the part of a very long line given while it is
	// still drawn, have none).
	Line(line []byte)
	// Retract takes back the last n bytes given to Line: the cursor went
	// up into lines already given, and they are being drawn again. n is
	// at most FoldReach.
	Retract(n int)
}

// FoldReach is how many bytes of lines already given to the sink a Fold
// may take back (a cursor moving up into them: the multi-line progress of
// docker, pip or npm); the rows further up are final.
const FoldReach = 32 << 10

const (
	foldRows = 256      // rows the cursor can reach back into, at most
	foldLine = 64 << 10 // a longer line is given as it grows
	foldKeep = 4 << 10  // a row's buffer bigger than this is not reused
)

// foldRow is one row of the terminal: its text and, once given to the
// sink, how many bytes it took there.
type foldRow struct {
	text []byte
	size int
}

// Fold keeps a program's output as a terminal shows it, line by line: a
// line redrawn with a carriage return, a backspace or the cursor moved
// back, erased (EL, ED), or reached again with the cursor moved up is
// given to its sink once, in its final state, when the cursor leaves it
// for a new line below; text written over a longer line keeps the longer
// line's tail (abcdef, CR, XY shows XYcdef). Lines drawn by a full-screen
// program (alternate screen, cursor placed or screen cleared) lose the
// blanks that pad them. A column is a character (wide characters are not
// measured). Feed it the text and controls of Plain.FeedTerminal.
type Fold struct {
	sink FoldSink
	// ring holds the rows the cursor can reach, oldest first from head:
	// row i is ring[(head+i)%foldRows] (foldRows a power of 2), n of them; each slot keeps its
	// buffer for the rows that come after.
	ring    [foldRows]foldRow
	head, n int
	out     int // rows [0, out) are given to the sink
	given   int // bytes of those rows in the sink
	row     int // the cursor's row; rows [row, n) are never given
	pos     int // the cursor's byte in its row's text
	pad     int // columns the cursor is past the end of its row
	back    bool
	redraws int64
	screen  bool   // a full-screen program draws: trailing blanks are padding
	alt     bool   // the alternate screen is up: what is drawn there is not output
	line    []byte // a row being given without its padding
}

// NewFold returns a Fold giving its lines to sink.
func NewFold(sink FoldSink) *Fold {
	return &Fold{sink: sink, n: 1}
}

// at is row i.
func (f *Fold) at(i int) *foldRow { return &f.ring[(f.head+i)&(foldRows-1)] }

// Redraws is how many times a line was drawn again before it was settled:
// the cursor went back (a carriage return, a backspace, left, to a column
// before it, up) or down into a row with text, and text was then written
// or erased there. A progress bar of 100 steps on one line is 99 redraws.
func (f *Fold) Redraws() int64 { return f.redraws }

// Text takes one unit of plain text (an Emit).
func (f *Fold) Text(text []byte, _, _ int64) {
	if f.alt {
		return
	}
	if text[0] == '\n' {
		f.newline()
		return
	}
	if r := f.at(f.row); !f.back && f.pad == 0 && f.pos == len(r.text) && len(r.text)+len(text) <= foldLine {
		r.text = append(r.text, text...) // the common case: more of the line
		f.pos = len(r.text)
		return
	}
	for len(text) > 0 {
		r := f.at(f.row)
		f.redrawn()
		if f.pad > 0 {
			r.text = append(r.text, bytes.Repeat([]byte{' '}, f.pad)...)
			f.pos, f.pad = len(r.text), 0
		}
		if f.pos < len(r.text) {
			f.overwrite(r, text)
			return
		}
		n := min(len(text), foldLine-len(r.text))
		if n < len(text) && text[0] >= utf8.RuneSelf {
			n = 0 // one character, that does not fit
		}
		r.text = append(r.text, text[:n]...)
		f.pos, text = len(r.text), text[n:]
		if len(text) > 0 {
			f.long()
		}
	}
}

// long lets a row that grew to foldLine go: on the bottom row its text is
// given to the sink as it is, without a line feed (a long line stays one
// line; a carriage return then goes back only to where this leaves off),
// elsewhere the row wraps to the next.
func (f *Fold) long() {
	if f.row < f.n-1 {
		f.newline()
		return
	}
	f.restart(true)
}

// overwrite writes text over the characters at the cursor.
func (f *Fold) overwrite(r *foldRow, text []byte) {
	e := f.pos
	for k := utf8.RuneCount(text); k > 0 && e < len(r.text); k-- {
		_, s := utf8.DecodeRune(r.text[e:])
		e += s
	}
	r.text = slices.Replace(r.text, f.pos, e, text...)
	f.pos += len(text)
}

// Control takes one terminal control.
func (f *Fold) Control(c Control) {
	if c.Op == AltScreen {
		f.altScreen(c.N == 1)
		return
	}
	if f.alt {
		return
	}
	switch c.Op {
	case CarriageReturn:
		f.moveTo(0)
	case CursorBack:
		f.moveTo(f.column() - c.N)
	case CursorForward:
		f.moveTo(f.column() + c.N)
	case CursorColumn:
		f.moveTo(c.N - 1)
	case CursorUp:
		f.up(c.N)
	case CursorDown:
		col, from := f.column(), f.row
		f.row = min(f.row+c.N, f.n-1)
		f.back = f.back || f.row > from && len(f.at(f.row).text) > 0
		f.place(col)
		f.settle()
	case EraseLine:
		f.eraseLine(c.N)
	case EraseDisplay:
		if c.N == 0 {
			f.eraseLine(0)
			f.n = f.row + 1 // the rows below are erased (never given)
		} else {
			f.screen = true
		}
	case CursorPosition:
		f.screen = true
	}
}

// AltScreenLine stands in the output for what a full-screen program drew
// on the alternate screen, which a terminal no longer shows once the
// program leaves it.
const AltScreenLine = "[… a full-screen program drew on the alternate screen here: not kept as output; capture_pane shows its screen while it runs …]"

// altScreen enters (on) or leaves the alternate screen: on entering, the
// rows so far are given and AltScreenLine after them; what is drawn until
// it is left is dropped.
func (f *Fold) altScreen(on bool) {
	if on == f.alt {
		return
	}
	if on {
		line := AltScreenLine + "\n"
		if len(f.shown(f.at(f.n-1).text)) > 0 {
			line = "\n" + line // after the last row, given without its line feed
		}
		f.restart(true)
		f.sink.Line([]byte(line))
	}
	f.alt, f.screen = on, on
}

// redrawn counts a redraw when the cursor went back before this write or
// erase.
func (f *Fold) redrawn() {
	if f.back {
		f.redraws++
		f.back = false
	}
}

// column is the cursor's column.
func (f *Fold) column() int {
	return utf8.RuneCount(f.at(f.row).text[:f.pos]) + f.pad
}

// moveTo moves the cursor to column col of its row.
func (f *Fold) moveTo(col int) {
	col = min(max(col, 0), foldLine)
	if col < f.column() {
		f.back = true
	}
	f.place(col)
}

// place puts the cursor at column col of its row.
func (f *Fold) place(col int) {
	t := f.at(f.row).text
	f.pos, f.pad = 0, 0
	for ; col > 0 && f.pos < len(t); col-- {
		_, s := utf8.DecodeRune(t[f.pos:])
		f.pos += s
	}
	f.pad = col
}

// up moves the cursor n rows up, as far as the rows kept reach, taking
// back from the sink the rows it reaches again.
func (f *Fold) up(n int) {
	col := f.column()
	to := max(f.row-n, 0)
	if to == f.row {
		return
	}
	if to < f.out {
		took := 0
		for i := to; i < f.out; i++ {
			took += f.at(i).size
		}
		f.sink.Retract(took)
		f.given -= took
		f.out = to
	}
	f.row, f.back = to, true
	f.place(col)
}

// eraseLine erases the cursor's row from the cursor on (mode 0), up to it
// (1), or all of it (2); the cursor stays in its column.
func (f *Fold) eraseLine(mode int) {
	r := f.at(f.row)
	f.redrawn()
	col := f.column()
	switch mode {
	case 0:
		r.text = r.text[:f.pos]
	case 1:
		e := f.pos
		if e < len(r.text) {
			_, s := utf8.DecodeRune(r.text[e:])
			e += s
		}
		n := utf8.RuneCount(r.text[:e])
		r.text = slices.Replace(r.text, 0, e, bytes.Repeat([]byte{' '}, n)...)
	default:
		r.text = r.text[:0]
	}
	f.place(col)
}

// newline moves the cursor to the start of the next row: a new one at
// the bottom, which settles the rows above it.
func (f *Fold) newline() {
	f.pos, f.pad, f.back = 0, 0, false
	if f.row < f.n-1 {
		f.row++
		f.back = len(f.at(f.row).text) > 0
		f.settle()
		return
	}
	if f.n == foldRows {
		f.forget(1) // the cursor is on the bottom row: the rows above are given
	}
	r := f.at(f.n)
	if cap(r.text) > foldKeep {
		r.text = nil
	}
	r.text, r.size = r.text[:0], 0
	f.n++
	f.row++
	f.settle()
	for f.given > FoldReach {
		f.forget(1)
	}
}

// settle gives the sink every row above the cursor when the cursor is on
// the bottom row: no row above it is being drawn.
func (f *Fold) settle() {
	if f.row != f.n-1 {
		return
	}
	for ; f.out < f.row; f.out++ {
		r := f.at(f.out)
		if f.screen {
			f.line = append(append(f.line[:0], f.shown(r.text)...), '\n')
			r.size = len(f.line)
			f.sink.Line(f.line)
		} else {
			// The row's own buffer, its line feed after it for the call.
			r.text = append(r.text, '\n')
			r.size = len(r.text)
			f.sink.Line(r.text)
			r.text = r.text[:len(r.text)-1]
		}
		f.given += r.size
	}
}

// shown is a row's text as given: without the blanks that pad a
// full-screen program's row.
func (f *Fold) shown(t []byte) []byte {
	if f.screen {
		t = bytes.TrimRight(t, " ")
	}
	return t
}

// forget lets the k oldest rows go (given ones): the cursor no longer
// reaches them.
func (f *Fold) forget(k int) {
	for ; k > 0 && f.out > 0 && f.row > 0; k-- {
		f.given -= f.at(0).size
		f.head = (f.head + 1) & (foldRows - 1)
		f.n--
		f.out--
		f.row--
	}
}

// Pending is the text of the rows not settled yet (the line being drawn,
// and those between the cursor and the bottom when it went up), as a
// terminal shows them now.
func (f *Fold) Pending() []byte {
	var b []byte
	for i := f.out; i < f.n; i++ {
		b = append(b, f.shown(f.at(i).text)...)
		if i < f.n-1 {
			b = append(b, '\n')
		}
	}
	return b
}

// Flush settles every row, the last without a line feed (nothing when it
// is empty), and starts again on a new row.
func (f *Fold) Flush() { f.restart(true) }

// Discard settles every row but the last, which it drops, and starts
// again on a new row: the line being drawn is not output (a shell's
// prompt, drawn without the marks that would have told it apart).
func (f *Fold) Discard() { f.restart(false) }

// restart settles every row but the last, gives the last (without a line
// feed, nothing when empty) when give is set, and starts on a new row.
func (f *Fold) restart(give bool) {
	f.row = f.n - 1
	f.settle()
	r := f.at(f.row)
	if last := f.shown(r.text); give && len(last) > 0 {
		f.sink.Line(last)
	}
	r.text, r.size = r.text[:0], 0
	f.head, f.n = (f.head+f.row)&(foldRows-1), 1
	f.out, f.given, f.row, f.pos, f.pad, f.back = 0, 0, 0, 0, 0, false
}

// FoldText is the plain text of raw as a terminal shows it, and the
// redraws folded away: Plain and Fold on the whole of raw at once.
func FoldText(raw []byte) ([]byte, int64) {
	var s bufferSink
	f := NewFold(&s)
	p := NewPlain(0)
	p.FeedTerminal(raw, f.Text, f.Control)
	p.FlushTerminal(f.Text, f.Control)
	f.Flush()
	return s.b, f.Redraws()
}

// bufferSink collects a Fold's lines.
type bufferSink struct{ b []byte }

func (s *bufferSink) Line(l []byte) { s.b = append(s.b, l...) }
func (s *bufferSink) Retract(n int) { s.b = s.b[:len(s.b)-n] }
