package policy

import (
	"regexp/syntax"
	"slices"
	"unicode/utf8"
)

// holeProg compiles expr for mayMatch: an unanchored search (any text may
// come before a match, as with regexp's MatchString), with the flags
// regexp.Compile uses.
func holeProg(expr string) (*syntax.Prog, error) {
	re, err := syntax.Parse(`(?s:.*?)(?:`+expr+`)`, syntax.Perl)
	if err != nil {
		return nil, err
	}
	return syntax.Compile(re.Simplify())
}

// mayMatch reports whether prog matches text when each hole (a byte offset
// in text, sorted) stands for any text at all, empty or not: whether some
// value of the holes makes the regular expression match. Where a hole is
// next to an assertion (^, $, \b, \B) the assertion is taken as holding,
// so the answer errs towards a match.
func mayMatch(prog *syntax.Prog, text string, holes []int) bool {
	m := &sim{prog: prog}
	cur := m.closure([]uint32{uint32(prog.Start)}, m.flags(-1, text, 0, holes))
	prev := rune(-1)
	for i := 0; ; {
		for len(holes) > 0 && holes[0] == i {
			cur = m.hole(cur)
			holes = holes[1:]
			prev = -2
		}
		if m.matched {
			return true
		}
		if i >= len(text) {
			return false
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		var next []uint32
		for _, pc := range cur {
			inst := &prog.Inst[pc]
			switch inst.Op {
			case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
				if inst.MatchRune(r) {
					next = append(next, inst.Out)
				}
			}
		}
		i += size
		prev = r
		cur = m.closure(next, m.flags(prev, text, i, holes))
	}
}

// sim is one run of mayMatch.
type sim struct {
	prog    *syntax.Prog
	matched bool
}

// anyFlags is every assertion holding: next to a hole, any could.
const anyFlags = syntax.EmptyBeginLine | syntax.EmptyEndLine | syntax.EmptyBeginText | syntax.EmptyEndText | syntax.EmptyWordBoundary | syntax.EmptyNoWordBoundary

// flags are the assertions that hold at offset i of text, after prev (-1
// at the start, -2 after a hole).
func (m *sim) flags(prev rune, text string, i int, holes []int) syntax.EmptyOp {
	if prev == -2 || len(holes) > 0 && holes[0] == i {
		return anyFlags
	}
	next := rune(-1)
	if i < len(text) {
		next, _ = utf8.DecodeRuneInString(text[i:])
	}
	return syntax.EmptyOpContext(prev, next)
}

// closure is the states reachable from pcs without reading a rune, where
// the assertions in flags hold.
func (m *sim) closure(pcs []uint32, flags syntax.EmptyOp) []uint32 {
	seen := map[uint32]bool{}
	var out []uint32
	stack := slices.Clone(pcs)
	for len(stack) > 0 {
		pc := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[pc] {
			continue
		}
		seen[pc] = true
		inst := &m.prog.Inst[pc]
		switch inst.Op {
		case syntax.InstMatch:
			m.matched = true
		case syntax.InstAlt, syntax.InstAltMatch:
			stack = append(stack, inst.Out, inst.Arg)
		case syntax.InstCapture, syntax.InstNop:
			stack = append(stack, inst.Out)
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(inst.Arg)&^flags == 0 {
				stack = append(stack, inst.Out)
			}
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			out = append(out, pc)
		}
	}
	return out
}

// hole is the states reachable from cur by reading any text.
func (m *sim) hole(cur []uint32) []uint32 {
	all := map[uint32]bool{}
	for _, pc := range cur {
		all[pc] = true
	}
	for frontier := cur; len(frontier) > 0; {
		var next []uint32
		for _, pc := range frontier {
			next = append(next, m.prog.Inst[pc].Out) // every rune instruction matches some rune
		}
		var added []uint32
		for _, pc := range m.closure(next, anyFlags) {
			if !all[pc] {
				all[pc] = true
				added = append(added, pc)
			}
		}
		frontier = added
	}
	out := make([]uint32, 0, len(all))
	for pc := range all {
		out = append(out, pc)
	}
	slices.Sort(out)
	return m.closure(out, anyFlags)
}
