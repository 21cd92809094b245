package shell

import (
	"bytes"
	"strconv"
	"strings"
)

// Mark is one OSC 133 shell-integration mark found in a pane's raw output.
type Mark struct {
	// Kind is 'A' (prompt starts), 'B' (prompt ends, input starts),
	// 'C' (command output starts) or 'D' (command ended).
	Kind byte
	// Status is the exit status a D mark carries, or -1.
	Status int
	// Tag is the tmuxmcp=<tag> parameter: s<shell tag> for an integrated
	// shell's marks, the job id for a job script's, or "" for marks that are
	// not tmuxmcp's (a terminal's own integration).
	Tag string
	// ErrExit is set on a B mark of a shell running under set -e; Wrap on
	// a B mark of a shell that should get its commands from job scripts
	// rather than typed (zsh with spelling correction on). Both run
	// commands through job scripts.
	ErrExit, Wrap bool
	// Start and End are the raw stream offsets of the sequence.
	Start, End int64
}

var oscPrefix = []byte("\x1b]133;")

// MarkScanner finds OSC 133 marks in a byte stream fed in pieces; a mark
// split across pieces is found once its end arrives.
type MarkScanner struct {
	pending []byte // an unfinished sequence, from its ESC
	at      int64  // stream offset of pending[0], or of the next byte
}

// NewMarkScanner returns a scanner whose next byte is at offset at.
func NewMarkScanner(at int64) *MarkScanner { return &MarkScanner{at: at} }

// maxMark bounds an unfinished sequence kept across pieces.
const maxMark = 256

// Feed scans data (which continues the stream) and returns the marks that
// end within it.
func (s *MarkScanner) Feed(data []byte) []Mark {
	buf := data
	base := s.at
	if len(s.pending) > 0 {
		buf = append(s.pending, data...)
	}
	s.pending = nil
	var marks []Mark
	i := 0
	for {
		j := bytes.IndexByte(buf[i:], 0x1b)
		if j < 0 {
			break
		}
		j += i
		rest := buf[j:]
		if len(rest) < len(oscPrefix) {
			if bytes.HasPrefix(oscPrefix, rest) {
				s.pending = append([]byte(nil), rest...)
				s.at = base + int64(j)
				return marks
			}
			i = j + 1
			continue
		}
		if !bytes.HasPrefix(rest, oscPrefix) {
			i = j + 1
			continue
		}
		end, termLen := oscEnd(rest[len(oscPrefix):])
		if end == malformed {
			i = j + 1 // cut short by another sequence: not a mark
			continue
		}
		if end < 0 {
			if len(rest) > maxMark {
				i = j + 1
				continue
			}
			s.pending = append([]byte(nil), rest...)
			s.at = base + int64(j)
			return marks
		}
		body := string(rest[len(oscPrefix) : len(oscPrefix)+end])
		total := len(oscPrefix) + end + termLen
		if m, ok := parseMark(body); ok {
			m.Start = base + int64(j)
			m.End = m.Start + int64(total)
			marks = append(marks, m)
		}
		i = j + total
	}
	s.at = base + int64(len(buf))
	return marks
}

// malformed is what oscEnd returns for an OSC body cut short by another
// escape sequence.
const malformed = -2

// oscEnd finds the BEL or ESC \ ending an OSC body: its index and the
// terminator's length, -1 when the body is unfinished, or malformed.
func oscEnd(b []byte) (int, int) {
	for i := 0; i < len(b) && i < maxMark; i++ {
		switch b[i] {
		case 0x07:
			return i, 1
		case 0x1b:
			if i+1 < len(b) {
				if b[i+1] == '\\' {
					return i, 2
				}
				return malformed, 0 // a new sequence: this one is malformed
			}
			return -1, 0
		}
	}
	return -1, 0
}

func parseMark(body string) (Mark, bool) {
	parts := strings.Split(body, ";")
	if len(parts[0]) != 1 || !strings.Contains("ABCD", parts[0]) {
		return Mark{}, false
	}
	m := Mark{Kind: parts[0][0], Status: -1}
	for _, p := range parts[1:] {
		if t, ok := strings.CutPrefix(p, "tmuxmcp="); ok {
			m.Tag = t
			continue
		}
		if p == "e" && m.Kind == 'B' {
			m.ErrExit = true
			continue
		}
		if p == "w" && m.Kind == 'B' {
			m.Wrap = true
			continue
		}
		if m.Kind == 'D' && m.Status < 0 {
			if n, err := strconv.Atoi(p); err == nil && n >= 0 {
				m.Status = n
			}
		}
	}
	return m, true
}

// PromptState follows an integrated shell's marks to tell a real prompt
// from a line editor that a running command uses (fish's read builtin
// redraws its own prompt, end mark and all): a B mark counts only while
// the shell is prompting (after its A mark, or a B already), or before any
// mark was seen.
type PromptState struct{ last byte }

// Feed takes the shell's next mark and reports whether it counts.
func (p *PromptState) Feed(m Mark) bool {
	if m.Kind == 'B' && p.last != 0 && p.last != 'A' && p.last != 'B' {
		return false
	}
	p.last = m.Kind
	return true
}

// Last is the kind of the last mark that counted, or 0.
func (p *PromptState) Last() byte { return p.last }

// BlankTags overwrites, in place, the value of every tmuxmcp=<tag>
// parameter in data (a copy of a pane's raw output) with x's of the same
// length, so a recording a person saves — perhaps where the pane's
// programs can read it — carries no tag a program could forge an end
// mark with. Offsets do not move. With cut set (data begins where older
// output was evicted), a run of tag characters that begins data and ends
// at a mark's terminator is taken for the tail of a tag and blanked too.
func BlankTags(data []byte, cut bool) {
	blank := func(i int) int {
		for i < len(data) && isTagByte(data[i]) {
			data[i] = 'x'
			i++
		}
		return i
	}
	if cut {
		n := 0
		for n < len(data) && isTagByte(data[n]) {
			n++
		}
		if n > 0 && n < len(data) && (data[n] == '\a' || data[n] == '\x1b') {
			blank(0)
		}
	}
	key := []byte("tmuxmcp=")
	for i := 0; ; {
		j := bytes.Index(data[i:], key)
		if j < 0 {
			return
		}
		i = blank(i + j + len(key))
	}
}

func isTagByte(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b == '-' || b == '_'
}
