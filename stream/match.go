package stream

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

// Limits of the pattern grammar, enforced by NewMatcher.
const (
	MaxPatterns      = 64
	MaxPatternLength = 1024
	// DefaultRegexTimeout bounds one regex evaluation against one line.
	DefaultRegexTimeout = 100 * time.Millisecond
	// maxLine bounds the text of one line kept for matching; a longer line
	// is matched in pieces of this size.
	maxLine = 32 << 10
)

// Match is one pattern match within a line.
type Match struct {
	Index      int    // which pattern matched
	Start, End int    // byte offsets in the line text
	Text       string // the matched text
	Groups     map[string]string
}

// Matcher finds literal or regex patterns within one line of plain text.
type Matcher struct {
	lits [][]byte
	res  []*regexp2.Regexp
	// reLits holds, per regex, text every match contains (nil: unknown):
	// a line without it skips that regex.
	reLits [][]byte
	maxLit int
	minLit int
	// byPrefix indexes literals of two or more bytes by their first two
	// bytes, so many literals cost one pass over the line, not one each.
	byPrefix map[uint16][]int
	short    []int     // literals of one byte
	first    [256]bool // bytes a literal starts with

	// runes holds *[]rune buffers for the line as regexp2 reads it, reused
	// across lines (a Matcher may serve several waits at once).
	runes sync.Pool
}

// manyLiterals is how many literals make the one-pass search worthwhile.
const manyLiterals = 4

// PatternError says which pattern is unusable and why.
type PatternError struct {
	Index   int
	Pattern string
	Reason  string
}

func (e *PatternError) Error() string {
	p := e.Pattern
	if len(p) > 80 {
		p = p[:80] + "…"
	}
	return fmt.Sprintf("patterns[%d] %q %s", e.Index, p, e.Reason)
}

// NewMatcher compiles patterns: literal substrings, or regular expressions
// (regexp2 syntax, each evaluation bounded by timeout) when regex is true.
func NewMatcher(patterns []string, regex bool, timeout time.Duration) (*Matcher, error) {
	if len(patterns) == 0 || len(patterns) > MaxPatterns {
		return nil, fmt.Errorf("patterns: %d given, want 1..%d", len(patterns), MaxPatterns)
	}
	if timeout <= 0 {
		timeout = DefaultRegexTimeout
	}
	m := &Matcher{}
	defer func() {
		if len(m.lits) >= manyLiterals {
			m.byPrefix, m.short, m.first = prefixIndex(m.lits)
		}
	}()
	for i, p := range patterns {
		switch {
		case p == "":
			return nil, &PatternError{i, p, "is empty: give at least one character"}
		case utf8.RuneCountInString(p) > MaxPatternLength:
			return nil, &PatternError{i, p, fmt.Sprintf("is %d characters long, over the limit of %d", utf8.RuneCountInString(p), MaxPatternLength)}
		case !utf8.ValidString(p):
			return nil, &PatternError{i, p, "is not valid UTF-8"}
		case bytes.ContainsAny([]byte(p), "\n\r"):
			return nil, &PatternError{i, p, "contains a line break, but patterns match within one line: split it into one pattern per line"}
		}
		if !regex {
			m.lits = append(m.lits, []byte(p))
			m.maxLit = max(m.maxLit, len(p))
			if m.minLit == 0 || len(p) < m.minLit {
				m.minLit = len(p)
			}
			continue
		}
		re, err := regexp2.Compile(p, regexp2.None)
		if err != nil {
			return nil, &PatternError{i, p, "is not a valid regular expression: " + err.Error()}
		}
		re.MatchTimeout = timeout
		m.res = append(m.res, re)
		m.reLits = append(m.reLits, requiredLiteral(p))
	}
	return m, nil
}

// Regex reports whether the matcher uses regular expressions.
func (m *Matcher) Regex() bool { return m.res != nil }

// Find returns the match that ends first in line (ties go to the lower
// pattern index). Literal patterns skip text before checked, which earlier
// calls on the same growing line already ruled out.
func (m *Matcher) Find(line []byte, checked int) (Match, bool, error) {
	return m.FindAt(line, checked, 0)
}

// FindAt is Find on a piece of a long line whose first carry bytes are
// context from the previous piece: regex matches start after them, so ^
// anchors only at the real start of the line.
func (m *Matcher) FindAt(line []byte, checked, carry int) (Match, bool, error) {
	best := Match{Index: -1}
	if m.res == nil {
		from := max(0, checked-m.maxLit+1)
		if m.byPrefix != nil {
			m.findMany(line, from, &best)
		} else {
			for i, p := range m.lits {
				if j := bytes.Index(line[from:], p); j >= 0 {
					best.offer(i, from+j, from+j+len(p))
				}
			}
		}
		if best.Index < 0 {
			return Match{}, false, nil
		}
		best.Text = string(line[best.Start:best.End])
		return best, true, nil
	}
	var bp *[]rune // the line's runes, converted once when a regex may match
	defer func() {
		if bp != nil {
			*bp = (*bp)[:0]
			m.runes.Put(bp)
		}
	}()
	startAt := 0
	var groups map[string]string
	for i, re := range m.res {
		if lit := m.reLits[i]; lit != nil && !bytes.Contains(line, lit) {
			continue
		}
		if bp == nil {
			bp, _ = m.runes.Get().(*[]rune)
			if bp == nil {
				bp = new([]rune)
			}
			*bp = appendRunes((*bp)[:0], line)
			if carry > 0 {
				startAt = utf8.RuneCount(line[:carry])
			}
		}
		mt, err := re.FindRunesMatchStartingAt(*bp, startAt)
		for err == nil && mt != nil && mt.Length == 0 {
			// An empty match (x*, ^, a lookahead alone) says nothing was
			// printed: look for a match of at least one character.
			mt, err = re.FindNextMatch(mt)
		}
		if err != nil {
			return Match{}, false, &PatternError{i, re.String(), fmt.Sprintf("took longer than %v to match one line (%v): simplify it, e.g. avoid nested quantifiers such as (a+)+", re.MatchTimeout, err)}
		}
		if mt == nil {
			continue
		}
		start := runeToByte(line, mt.Index)
		end := start + runeToByte(line[start:], mt.Length)
		if best.Index < 0 || end < best.End {
			best.offer(i, start, end)
			groups = namedGroups(re, mt)
		}
	}
	if best.Index < 0 {
		return Match{}, false, nil
	}
	best.Text = string(line[best.Start:best.End])
	best.Groups = groups
	return best, true, nil
}

// offer keeps the match of pattern i at [s, e) if it ends before the best
// so far (ties go to the lower pattern index).
func (best *Match) offer(i, s, e int) {
	if best.Index < 0 || e < best.End || e == best.End && i < best.Index {
		*best = Match{Index: i, Start: s, End: e}
	}
}

// prefixIndex indexes literals for a one-pass search: those of two or more
// bytes by their first two bytes, the one-byte ones apart, and the bytes
// any literal starts with.
func prefixIndex(lits [][]byte) (byPrefix map[uint16][]int, short []int, first [256]bool) {
	byPrefix = map[uint16][]int{}
	for i, l := range lits {
		first[l[0]] = true
		if len(l) == 1 {
			short = append(short, i)
			continue
		}
		k := uint16(l[0])<<8 | uint16(l[1])
		byPrefix[k] = append(byPrefix[k], i)
	}
	return byPrefix, short, first
}

// findMany finds the earliest-ending literal in one pass over line[from:].
func (m *Matcher) findMany(line []byte, from int, best *Match) {
	for i := from; i < len(line); i++ {
		if !m.first[line[i]] {
			continue
		}
		if best.Index >= 0 && i+m.minLit > best.End {
			return // nothing starting here can end earlier
		}
		for _, k := range m.short {
			if line[i] == m.lits[k][0] {
				best.offer(k, i, i+1)
			}
		}
		if i+1 >= len(line) {
			continue
		}
		for _, k := range m.byPrefix[uint16(line[i])<<8|uint16(line[i+1])] {
			if l := m.lits[k]; bytes.HasPrefix(line[i:], l) {
				best.offer(k, i, i+len(l))
			}
		}
	}
}

func namedGroups(re *regexp2.Regexp, m *regexp2.Match) map[string]string {
	var out map[string]string
	for _, name := range re.GetGroupNames() {
		if name == "" || (name[0] >= '0' && name[0] <= '9') {
			continue
		}
		if g := m.GroupByName(name); g != nil && len(g.Captures) > 0 {
			if out == nil {
				out = map[string]string{}
			}
			out[name] = g.String()
		}
	}
	return out
}

// runeToByte converts a rune index in line to a byte offset.
func runeToByte(line []byte, runes int) int {
	i := 0
	for n := 0; n < runes && i < len(line); n++ {
		if line[i] < utf8.RuneSelf {
			i++
			continue
		}
		_, size := utf8.DecodeRune(line[i:])
		i += size
	}
	return i
}

// appendRunes appends line's runes to dst, as []rune(string(line)) would
// (an invalid byte is one U+FFFD), without the intermediate string.
func appendRunes(dst []rune, line []byte) []rune {
	for i := 0; i < len(line); {
		if c := line[i]; c < utf8.RuneSelf {
			dst = append(dst, rune(c))
			i++
			continue
		}
		r, size := utf8.DecodeRune(line[i:])
		dst = append(dst, r)
		i += size
	}
	return dst
}

// requiredLiteral returns text that every match of the regex p contains,
// found conservatively: the plain characters at its start (after an
// optional ^), when p has no alternation anywhere. It returns nil when
// unsure or when the text would be under two bytes.
func requiredLiteral(p string) []byte {
	if strings.Contains(p, "|") {
		return nil
	}
	s := strings.TrimPrefix(p, "^")
	n := 0
	for n < len(s) && plainRegexByte(s[n]) {
		n++
	}
	lit := s[:n]
	if n < len(s) && n > 0 && strings.IndexByte("*?{(", s[n]) >= 0 {
		// The last character may be optional or repeated: by a quantifier,
		// or by one after an inline comment such as ab(?#note)*.
		lit = lit[:n-1]
	}
	if len(lit) < 2 {
		return nil
	}
	return []byte(lit)
}

// plainRegexByte says b stands for itself in a regex outside a class.
func plainRegexByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || strings.IndexByte(" -_:=/,;'\"<>!@%&~`", b) >= 0
}
