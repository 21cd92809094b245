package approval

import (
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// word is one argument as the judge reads it: its value with quotes and
// backslashes removed, and holes where part of it is decided when it runs
// (a parameter, a substitution, a glob).
type word struct {
	text  string
	holes []int // byte offsets in text, sorted, each at most once
	src   string
}

// known reports whether the whole value is known.
func (w word) known() bool { return len(w.holes) == 0 }

// is reports whether the word's value is known and is s.
func (w word) is(s ...string) bool { return w.known() && slices.Contains(s, w.text) }

// mayBeOption reports whether the word could be an option: its value
// could start with "-".
func (w word) mayBeOption() bool {
	return strings.HasPrefix(w.text, "-") || len(w.holes) > 0 && w.holes[0] == 0
}

// hole is a word that could be anything.
func hole(src string) word { return word{holes: []int{0}, src: src} }

// lit is a word of known value.
func lit(s string) word { return word{text: s, src: s} }

// appendWord adds v (at the end) to w.
func (w *word) append(v word) {
	for _, h := range v.holes {
		w.addHole(len(w.text) + h)
	}
	w.text += v.text
}

func (w *word) addHole(at int) {
	if n := len(w.holes); n == 0 || w.holes[n-1] != at {
		w.holes = append(w.holes, at)
	}
}

// maxBraceWords bounds a brace expansion the judge writes out; a longer
// one is a hole.
const maxBraceWords = 64

// words reads the words of a command as the shell will pass them:
// brace expansions written out ({-rf,} is -rf; an empty result dropped),
// each word's value with its holes.
func (r *reader) words(ws []*syntax.Word) []word {
	var out []word
	for _, w := range ws {
		src := nodeSource(r.line, w)
		cp := &syntax.Word{Parts: slices.Clone(w.Parts)}
		if !syntax.SplitBraces(cp) {
			v := wordValue(w)
			v.src = src
			out = append(out, v)
			continue
		}
		var exp []word
		for ew, err := range expand.BracesSeq(nil, cp) {
			if err != nil || len(exp) == maxBraceWords {
				exp = []word{hole(src)}
				break
			}
			v := wordValue(ew)
			v.src = src
			if v.text == "" && v.known() && onlyLits(ew) {
				continue // an empty word from a brace expansion is dropped
			}
			exp = append(exp, v)
		}
		out = append(out, exp...)
	}
	return out
}

func onlyLits(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if _, ok := p.(*syntax.Lit); !ok {
			return false
		}
	}
	return true
}

// wordValue is w's value: literal text, quotes and escapes decoded, and a
// hole for every expansion, substitution and glob.
func wordValue(w *syntax.Word) word {
	var v word
	for _, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.Lit:
			v.append(unquotedValue(x.Value))
		case *syntax.SglQuoted:
			if !x.Dollar {
				v.text += x.Value
			} else if s, ok := ansiC(x.Value); ok {
				v.text += s
			} else {
				v.addHole(len(v.text))
			}
		case *syntax.DblQuoted:
			for _, p := range x.Parts {
				if l, ok := p.(*syntax.Lit); ok {
					v.text += unescape(l.Value, "\"$`\\\n")
				} else if pe, ok := p.(*syntax.ParamExp); ok {
					v.param(pe)
				} else if ae, ok := p.(*syntax.ArithmExp); ok {
					v.arithm(ae)
				} else {
					v.addHole(len(v.text))
				}
			}
		case *syntax.ParamExp:
			v.param(x)
		case *syntax.ArithmExp:
			v.arithm(x)
		default:
			v.addHole(len(v.text))
		}
	}
	return v
}

// arithm adds arithmetic's value: written out when it holds numbers only
// ($((6*7)) is 42), else a hole (the line is unseen anyway).
func (w *word) arithm(a *syntax.ArithmExp) {
	only := true
	syntax.Walk(a.X, func(n syntax.Node) bool {
		if x, ok := n.(*syntax.Word); ok && !numeric(x) {
			only = false
		}
		return only
	})
	if only && !a.Unsigned {
		if n, err := expand.Arithm(nil, a.X); err == nil {
			w.text += strconv.Itoa(n)
			return
		}
	}
	w.addHole(len(w.text))
}

// absolute are the variables whose value is an absolute path (an
// assignment to one is unseen): their hole starts with "/", so it is
// never an option.
var absolute = map[string]bool{"HOME": true, "PWD": true, "OLDPWD": true}

// param adds a parameter's value: a hole ("/" and a hole for one that
// holds an absolute path).
func (w *word) param(p *syntax.ParamExp) {
	if plainParam(p) && !p.Length && absolute[p.Param.Value] {
		w.text += "/"
	}
	w.addHole(len(w.text))
}

// unquotedValue is an unquoted literal's value: backslashes removed, and
// a hole for each glob (*, ?, [...]) the shell would match against file
// names.
func unquotedValue(s string) word {
	var v word
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			if s[i] != '\n' {
				b.WriteByte(s[i])
			}
		case c == '*' || c == '?':
			v.addHole(b.Len())
		case c == '[' && strings.IndexByte(s[i+1:], ']') > 0:
			v.addHole(b.Len())
			i += 1 + strings.IndexByte(s[i+1:], ']')
		default:
			b.WriteByte(c)
		}
	}
	v.text = b.String()
	return v
}

// formOf joins words into one text with their holes: words separated by
// a blank, a newline inside a word written \n (so that a line of a form is
// one line of the command).
func formOf(ws []word) (string, []int) {
	var b strings.Builder
	var holes []int
	for i, w := range ws {
		if i > 0 {
			b.WriteByte(' ')
		}
		last := 0
		for _, h := range w.holes {
			b.WriteString(strings.ReplaceAll(w.text[last:h], "\n", `\n`))
			last = h
			if n := len(holes); n == 0 || holes[n-1] != b.Len() {
				holes = append(holes, b.Len())
			}
		}
		b.WriteString(strings.ReplaceAll(w.text[last:], "\n", `\n`))
	}
	return b.String(), holes
}

// texts is the known values of ws, or false when one is not known.
func texts(ws []word) ([]string, bool) {
	out := make([]string, len(ws))
	for i, w := range ws {
		if !w.known() {
			return nil, false
		}
		out[i] = w.text
	}
	return out, true
}
