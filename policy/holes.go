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
// in text, sorted) stands for any text without a newline (a word's value:
// forms write a newline in a word as \n), empty or not: whether some value
// of the holes makes the regular expression match. ^ and $ hold at a hole
// only where they would with the hole empty; \b and \B are taken as
// holding next to and inside a hole, so the answer errs towards a match.
func mayMatch(prog *syntax.Prog, text string, holes []int) bool {
	m := &sim{prog: prog}
	prev := rune(-1)
	cur := m.closure([]uint32{uint32(prog.Start)}, m.flags(prev, text, 0, holes))
	for i := 0; ; {
		if len(holes) > 0 && holes[0] == i {
			cur = m.hole(cur, m.flags(prev, text, i, holes))
			holes = holes[1:]
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
			if m.prog.Inst[pc].MatchRune(r) {
				next = append(next, m.prog.Inst[pc].Out)
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

// either is \b and \B both: next to an unknown rune, either may hold.
const either = syntax.EmptyWordBoundary | syntax.EmptyNoWordBoundary

// flags are the assertions that may hold at offset i of text, after prev
// (-1 at the start): with a hole at i, those of the hole empty, and \b or
// \B.
func (m *sim) flags(prev rune, text string, i int, holes []int) syntax.EmptyOp {
	next := rune(-1)
	if i < len(text) {
		next, _ = utf8.DecodeRuneInString(text[i:])
	}
	f := syntax.EmptyOpContext(prev, next)
	if len(holes) > 0 && holes[0] == i {
		f |= either
	}
	return f
}

// closure is the rune instructions reachable from pcs without reading a
// rune, where the assertions in flags hold.
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

// hole is the rune instructions reachable from cur by reading any text
// without a newline; after is what may hold where the hole ends.
func (m *sim) hole(cur []uint32, after syntax.EmptyOp) []uint32 {
	waiting := map[uint32]bool{}
	for _, pc := range cur {
		waiting[pc] = true
	}
	read := map[uint32]bool{} // states right after reading a rune of the hole
	for frontier := cur; len(frontier) > 0; {
		var outs []uint32
		for _, pc := range frontier {
			if inst := &m.prog.Inst[pc]; notOnlyNewline(inst) && !read[inst.Out] {
				read[inst.Out] = true
				outs = append(outs, inst.Out)
			}
		}
		frontier = nil
		for _, pc := range m.closure(outs, either) {
			if !waiting[pc] {
				waiting[pc] = true
				frontier = append(frontier, pc)
			}
		}
	}
	out := slices.Clone(cur)
	ends := make([]uint32, 0, len(read))
	for pc := range read {
		ends = append(ends, pc)
	}
	slices.Sort(ends)
	for _, pc := range m.closure(ends, after) {
		if !slices.Contains(out, pc) {
			out = append(out, pc)
		}
	}
	return out
}

// notOnlyNewline reports whether a rune instruction matches some rune
// other than a newline.
func notOnlyNewline(inst *syntax.Inst) bool {
	switch inst.Op {
	case syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
		return true
	}
	for i := 0; i+1 < len(inst.Rune); i += 2 {
		if inst.Rune[i] != '\n' || inst.Rune[i+1] != '\n' {
			return true
		}
	}
	if len(inst.Rune) == 1 {
		return inst.Rune[0] != '\n'
	}
	return false
}
