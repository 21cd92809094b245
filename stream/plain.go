package stream

import (
	"encoding/binary"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi/parser"
)

// maxSequence bounds how long an escape string (OSC, DCS, APC, ...) may run
// before the decoder gives up on it and returns to text, so a program that
// never terminates one cannot hide the rest of its output.
const maxSequence = 64 << 10

// Emit receives one unit of plain text: a rune's UTF-8 bytes, "\n" or "\t",
// and the raw byte range [start, end) it came from. text is only valid during
// the call.
type Emit func(text []byte, start, end int64)

// Plain is the stateful decoder from a pane's raw byte stream to its plain
// view: escape sequences (CSI, OSC, DCS, SOS, PM, APC, charset switches) are
// removed using the DEC/VT500 state table of charmbracelet/x/ansi, CR LF and
// lone CR become "\n", other C0 controls are dropped, and invalid UTF-8
// becomes U+FFFD. Sequences and runes split across Feed calls decode as if
// the bytes had come in one piece.
type Plain struct {
	off    int64 // raw offset of the next byte
	clean  int64 // offset after the last byte that left no pending state
	state  parser.State
	seqLen int

	cr        bool // a CR waits to learn whether LF follows
	crStart   int64
	lineStart bool // nothing but line ends emitted since the last "\n"

	rune    [utf8.UTFMax]byte
	runeN   int
	runeLen int
	runeAt  int64

	// ctl, during FeedTerminal, receives the line controls; csi* is the
	// CSI sequence being read: its first parameter (-1: none), whether
	// it has more, and its private marker or intermediate byte.
	ctl     func(Control)
	csiN    int
	csiMore bool
	csiMark byte
}

// NewPlain returns a decoder whose first byte is at raw offset off, assumed
// to be in the ground state (outside any escape sequence) at a line start.
func NewPlain(off int64) *Plain { return &Plain{off: off, clean: off, lineStart: true} }

// NewPlainAt is NewPlain for a position that may be in the middle of a line.
func NewPlainAt(off int64, lineStart bool) *Plain {
	return &Plain{off: off, clean: off, lineStart: lineStart}
}

// Offset is the raw offset of the next byte Feed expects.
func (p *Plain) Offset() int64 { return p.off }

// Clean is the raw offset after the last byte whose effect is complete: no
// escape sequence, partial rune or CR is pending there. A new decoder
// started at Clean continues exactly where this one would.
func (p *Plain) Clean() int64 { return p.clean }

var (
	nl      = []byte{'\n'}
	tab     = []byte{'\t'}
	invalid = []byte(string(utf8.RuneError))
)

// maxRun bounds the printable ASCII runs FeedRuns emits, so a reader that
// matches line pieces sees pieces of about the size it asked for.
const maxRun = 4096

// Feed decodes raw, which starts at p.Offset(), calling emit for each unit.
func (p *Plain) Feed(raw []byte, emit Emit) { p.feed(raw, emit, false) }

// FeedRuns is Feed, except that a run of printable ASCII bytes (up to 4 KiB)
// may come as one call: then len(text) == end-start and text[k] came from
// raw offset start+k. Readers that copy or match text take far fewer calls.
func (p *Plain) FeedRuns(raw []byte, emit Emit) { p.feed(raw, emit, true) }

// FeedTerminal is FeedRuns for a reader that keeps a terminal's lines
// (Fold): a carriage return that no line feed follows, a backspace and
// the sequences that move the cursor on its line, up and down, or erase
// (see ControlOp) go to ctl, in order with the text, instead of becoming
// a line end or nothing.
func (p *Plain) FeedTerminal(raw []byte, emit Emit, ctl func(Control)) {
	p.ctl = ctl
	p.feed(raw, emit, true)
	p.ctl = nil
}

// FlushTerminal is Flush for a decoder fed by FeedTerminal.
func (p *Plain) FlushTerminal(emit Emit, ctl func(Control)) {
	p.ctl = ctl
	p.Flush(emit)
	p.ctl = nil
}

func printable(b byte) bool { return b >= 0x20 && b < 0x7f }

// printableRun returns how many leading bytes of p are printable ASCII,
// eight at a time: a word has a byte outside 0x20..0x7e when one has its
// top bit set, is below 0x20, or is 0x7f.
func printableRun(p []byte) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	n := 0
	for ; n+8 <= len(p); n += 8 {
		w := binary.LittleEndian.Uint64(p[n:])
		below := (w - 0x20*ones) & ^w
		del := w ^ 0x7f*ones
		del = (del - ones) & ^del
		if (w|below|del)&highs != 0 {
			break
		}
	}
	for n < len(p) && printable(p[n]) {
		n++
	}
	return n
}

func (p *Plain) feed(raw []byte, emit Emit, runs bool) {
	for i := 0; i < len(raw); i++ {
		b := raw[i]
		if runs && printable(b) && p.state == parser.GroundState && !p.cr && p.runeN == 0 {
			j := i + printableRun(raw[i:min(len(raw), i+maxRun)])
			at := p.off
			p.off += int64(j - i)
			p.lineStart = false
			emit(raw[i:j], at, p.off)
			p.clean = p.off
			i = j - 1
			continue
		}
		at := p.off
		p.off++
		if p.state != parser.GroundState {
			if p.ctl != nil {
				p.csiByte(b)
			}
			p.sequenceByte(b, at, emit)
		} else {
			p.groundByte(b, at, emit)
		}
		if p.state == parser.GroundState && !p.cr && p.runeN == 0 {
			p.clean = p.off
		}
	}
}

// flushCR settles a CR that no LF followed: after text it ends the line
// (a progress bar redrawing itself), at the start of a line it is only a
// carriage return (bash writes one after every command line) and shows
// nothing.
func (p *Plain) flushCR(emit Emit) {
	if p.cr {
		p.settleCR(emit) // out of line: flushCR is inlined on every byte
	}
}

func (p *Plain) settleCR(emit Emit) {
	p.cr = false
	if p.ctl != nil {
		p.ctl(Control{Op: CarriageReturn})
		return
	}
	if !p.lineStart {
		p.lineStart = true
		emit(nl, p.crStart, p.crStart+1)
	}
}

func (p *Plain) flushRune(emit Emit) {
	if p.runeN > 0 {
		p.lineStart = false
		emit(invalid, p.runeAt, p.runeAt+int64(p.runeN))
		p.runeN = 0
	}
}

func (p *Plain) groundByte(b byte, at int64, emit Emit) {
	if p.runeN > 0 {
		if b&0xC0 == 0x80 {
			p.rune[p.runeN] = b
			p.runeN++
			if p.runeN == p.runeLen {
				r, size := utf8.DecodeRune(p.rune[:p.runeN])
				p.lineStart = false
				if r == utf8.RuneError && size <= 1 {
					emit(invalid, p.runeAt, at+1)
				} else {
					emit(p.rune[:p.runeN], p.runeAt, at+1)
				}
				p.runeN = 0
			}
			return
		}
		p.flushRune(emit) // a rune cut short
	}
	if b == '\n' {
		p.lineStart = true
		if p.cr {
			p.cr = false
			emit(nl, p.crStart, at+1)
			return
		}
		emit(nl, at, at+1)
		return
	}
	if b == '\r' && p.cr {
		return // CR CR LF (a program's CRLF through the tty's ONLCR) is one line end
	}
	p.flushCR(emit)
	switch {
	case b == '\r':
		p.cr, p.crStart = true, at
	case b == '\t':
		p.lineStart = false
		emit(tab, at, at+1)
	case b >= 0x20 && b < 0x7f:
		p.lineStart = false
		p.rune[0] = b
		emit(p.rune[:1], at, at+1)
	case b == 0x1b:
		p.state, _ = parser.Table.Transition(parser.GroundState, b)
		p.seqLen = 0
	case b == 0x08 && p.ctl != nil:
		p.ctl(Control{Op: CursorBack, N: 1})
	case b < 0x80:
		// Other C0 controls and DEL: BEL, BS, SO/SI... nothing to show.
	case b >= 0xC2 && b <= 0xDF:
		p.startRune(b, 2, at)
	case b >= 0xE0 && b <= 0xEF:
		p.startRune(b, 3, at)
	case b >= 0xF0 && b <= 0xF4:
		p.startRune(b, 4, at)
	default:
		// A stray continuation byte, C1 control or impossible lead byte.
		p.lineStart = false
		emit(invalid, at, at+1)
	}
}

func (p *Plain) startRune(b byte, n int, at int64) {
	p.rune[0], p.runeN, p.runeLen, p.runeAt = b, 1, n, at
}

func (p *Plain) sequenceByte(b byte, at int64, emit Emit) {
	next, action := parser.Table.Transition(p.state, b)
	p.seqLen++
	switch {
	case b >= 0x80 && isStringState(p.state):
		// Non-ASCII text inside a title or other string belongs to it; in
		// UTF-8 a byte such as 0x9C is part of a character, not an 8-bit ST.
		if p.seqLen > maxSequence {
			p.state = parser.GroundState
		}
		return
	case next == parser.Utf8State:
		// A UTF-8 lead byte aborts a CSI or ESC sequence; decode it as text.
		p.state = parser.GroundState
		p.groundByte(b, at, emit)
		return
	case action == parser.ExecuteAction && next == p.state:
		// C0 controls inside a sequence are not text: dropping them keeps
		// every emitted unit outside any sequence, so a page of output can
		// always end after one.
		return
	}
	p.state = next
	if p.state != parser.GroundState && p.seqLen > maxSequence {
		p.state = parser.GroundState
	}
}

func isStringState(st parser.State) bool {
	switch st {
	case parser.OscStringState, parser.DcsEntryState, parser.DcsIntermediateState, parser.DcsParamState,
		parser.DcsStringState, parser.SosStringState, parser.PmStringState, parser.ApcStringState:
		return true
	}
	return false
}

// Flush ends the input: a pending CR becomes a line end, a partial rune
// U+FFFD, an unfinished sequence is dropped. Clean is then Offset.
func (p *Plain) Flush(emit Emit) {
	p.flushRune(emit)
	p.flushCR(emit)
	p.state = parser.GroundState
	p.clean = p.off
}

// ControlOp is what a terminal control does to the cursor or the text of
// the lines it is on.
type ControlOp byte

// The controls FeedTerminal reports. N is the sequence's count, 1 when it
// has none (for EraseLine and EraseDisplay, the mode: 0 from the cursor
// on, 1 up to it, 2 all).
const (
	CarriageReturn ControlOp = iota + 1 // CR with no LF after it: column 1
	CursorBack                          // BS, CSI n D: n columns left
	CursorForward                       // CSI n C: n columns right
	CursorColumn                        // CSI n G: column n
	CursorUp                            // CSI n A (and CSI n F, then a CarriageReturn)
	CursorDown                          // CSI n B (and CSI n E, then a CarriageReturn)
	CursorPosition                      // CSI row;col H: a full-screen program places the cursor
	EraseLine                           // CSI n K
	EraseDisplay                        // CSI n J
	AltScreen                           // CSI ? 1049 h / l (also 1047, 47): N 1 enters, 0 leaves
)

// Control is one terminal control, as FeedTerminal reports it.
type Control struct {
	Op ControlOp
	N  int
}

// csiByte follows byte b of a CSI sequence (before sequenceByte takes
// it): the parameter, the marker, and at the final byte the control.
func (p *Plain) csiByte(b byte) {
	switch p.state {
	case parser.EscapeState:
		if b == '[' {
			p.csiN, p.csiMore, p.csiMark = -1, false, 0
		}
	case parser.CsiEntryState, parser.CsiParamState, parser.CsiIntermediateState:
		switch {
		case b >= '0' && b <= '9':
			if !p.csiMore {
				p.csiN = min(max(p.csiN, 0)*10+int(b-'0'), 1<<20)
			}
		case b == ';' || b == ':':
			p.csiMore = true
		case b >= 0x3c && b <= 0x3f, b >= 0x20 && b <= 0x2f:
			p.csiMark = b
		case b >= 0x40 && b <= 0x7e && b != 'm': // SGR (colours) is the most common, and nothing here
			p.csiDispatch(b)
		}
	}
}

// csiDispatch reports the control a CSI sequence ending in final is, if
// it is one FeedTerminal reports.
func (p *Plain) csiDispatch(final byte) {
	n, one := p.csiN, max(p.csiN, 1)
	if p.csiMark == '?' {
		if (final == 'h' || final == 'l') && (n == 1049 || n == 1047 || n == 47) && !p.csiMore {
			on := 0
			if final == 'h' {
				on = 1
			}
			p.ctl(Control{Op: AltScreen, N: on})
		}
	}
	if p.csiMark != 0 {
		p.csiN, p.csiMore, p.csiMark = -1, false, 0
		return
	}
	switch final {
	case 'K':
		p.ctl(Control{Op: EraseLine, N: max(n, 0)})
	case 'J':
		p.ctl(Control{Op: EraseDisplay, N: max(n, 0)})
	case 'G', '`':
		p.ctl(Control{Op: CursorColumn, N: one})
	case 'D':
		p.ctl(Control{Op: CursorBack, N: one})
	case 'C', 'a':
		p.ctl(Control{Op: CursorForward, N: one})
	case 'A':
		p.ctl(Control{Op: CursorUp, N: one})
	case 'B', 'e':
		p.ctl(Control{Op: CursorDown, N: one})
	case 'F':
		p.ctl(Control{Op: CursorUp, N: one})
		p.ctl(Control{Op: CarriageReturn})
	case 'E':
		p.ctl(Control{Op: CursorDown, N: one})
		p.ctl(Control{Op: CarriageReturn})
	case 'H', 'f':
		p.ctl(Control{Op: CursorPosition, N: one})
	}
	p.csiN, p.csiMore, p.csiMark = -1, false, 0
}
