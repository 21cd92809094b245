package audit

import (
	"fmt"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// notParsed is why a text is replaced whole when it does not parse.
const notParsed = "here-string or here-document into a program that reads a secret, in a line that does not parse"

// stdinHints are in every text whose pipe may feed a secret to a program.
var stdinHints = []string{"pass", "gh ", "ssh-add", "vault", "sudo", "mysql", "mariadb", "psql", "cryptsetup", "kinit", "keytool", "jarsigner", "stdin", "secret", "credential", "-fd", "=-", "openssl", "newusers", "mkpasswd"}

// needsParse reports whether the shell parse may find what the rules
// cannot: here-strings and here-documents, pipes and process
// substitutions into programs that read a secret, and secret values with
// escaped blanks (TOKEN=a\ b).
func needsParse(s, lower string) bool {
	switch {
	case strings.Contains(s, "<<"):
		return true
	case (strings.Contains(s, "|") || strings.Contains(s, "<(")) && containsAny(lower, stdinHints):
		return true
	}
	return strings.Contains(s, `\`) && strings.Contains(s, "=") && containsAny(lower, nameHints)
}

// shellSpans parses s as a shell script and returns the secrets it
// places: the values of secret variables, what here-strings,
// here-documents and pipes feed programs that read a secret. whole is
// set (and replaces s) when one cannot be placed: s does not parse and
// holds a here-string or here-document into such a program.
func shellSpans(s string) (spans []span, whole string) {
	f, err := parse(s)
	if err != nil {
		return nil, unparsed(s)
	}
	w := &walker{src: s}
	syntax.Walk(f, w.visit)
	return w.spans, w.whole
}

// unparsed is what replaces a text that does not parse: nothing, unless a
// here-string or here-document in it may feed a secret to a program (a
// command in it, split roughly at the shell's separators, reads one).
func unparsed(s string) string {
	if !strings.Contains(s, "<<") {
		return ""
	}
	for _, command := range strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(";&|\n()`", r) }) {
		if prog, ok := secretStdin(shellWords(command)); ok {
			return whole(prog, notParsed)
		}
	}
	return ""
}

// parse parses s as bash; a parser panic is a parse error.
func parse(s string) (f *syntax.File, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, fmt.Errorf("shell parser: %v", r)
		}
	}()
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(s), "")
}

// walker collects secrets from a parsed script src, found at offset base
// of the text redacted (a script in single quotes is parsed too, once).
type walker struct {
	src   string
	base  int
	depth int
	spans []span
	whole string
}

func (w *walker) visit(n syntax.Node) bool {
	switch n := n.(type) {
	case *syntax.Assign:
		if n.Name != nil && secretName(n.Name.Value) {
			w.add(n.Value)
			w.add(n.Array)
		}
	case *syntax.Stmt:
		w.stmt(n)
	case *syntax.BinaryCmd:
		if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
			if _, ok := secretStdin(callWords(n.Y)); ok {
				w.feed(lastStage(n.X))
			}
		}
	case *syntax.SglQuoted:
		if !n.Dollar && w.depth < 2 && strings.Contains(n.Value, "<<") {
			w.script(n)
		}
	}
	return true
}

// stmt redacts what a statement's here-strings and here-documents feed a
// program that reads a secret, or SQL that sets a password.
func (w *walker) stmt(st *syntax.Stmt) {
	words := callWords(st)
	prog, secret := secretStdin(words)
	sql := len(words) > 0 && sqlClients[path.Base(words[0])]
	if !secret && !sql {
		return
	}
	for _, r := range st.Redirs {
		if secret && r.Op == syntax.RdrIn {
			w.procSubst(r.Word) // sudo -S cmd < <(echo PW)
		}
		sp, input, located := w.input(r)
		switch {
		case !input:
		case !located:
			w.whole = whole(prog, "input to a program that reads a secret could not be placed")
		case secret || sqlPassword(w.text(sp)):
			w.spans = append(w.spans, sp)
		}
	}
}

// feed redacts what the stage before a pipe into a program that reads a
// secret writes: echo and printf arguments, here-strings and
// here-documents.
func (w *walker) feed(st *syntax.Stmt) {
	syntax.Walk(st, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			if len(n.Args) > 1 {
				switch path.Base(literal(n.Args[0])) {
				case "echo", "printf", "print":
					w.addRange(n.Args[1], n.Args[len(n.Args)-1])
				}
			}
		case *syntax.Stmt:
			for _, r := range n.Redirs {
				if sp, input, located := w.input(r); input && located {
					w.spans = append(w.spans, sp)
				} else if input {
					w.whole = whole("command", "input to a program that reads a secret could not be placed")
				}
			}
		}
		return true
	})
}

// procSubst feeds what the process substitutions of a word write.
func (w *walker) procSubst(word *syntax.Word) {
	for _, p := range word.Parts {
		if ps, ok := p.(*syntax.ProcSubst); ok {
			for _, st := range ps.Stmts {
				w.feed(st)
			}
		}
	}
}

// script parses the text of a single-quoted word that holds a here-string
// or here-document (bash -c '… <<< T'); when it does not parse, or its
// secret cannot be placed, the whole quoted text is the secret.
func (w *walker) script(q *syntax.SglQuoted) {
	inner := &walker{src: q.Value, base: w.base + int(q.Pos().Offset()) + 1, depth: w.depth + 1}
	f, err := parse(q.Value)
	if err == nil {
		syntax.Walk(f, inner.visit)
	}
	if err != nil && unparsed(q.Value) != "" || inner.whole != "" {
		w.spans = append(w.spans, span{inner.base, inner.base + len(q.Value)})
		return
	}
	w.spans = append(w.spans, inner.spans...)
}

// input returns where a here-string's word or a here-document's body is
// (input: r is one; located: its place is known; an empty body is not
// input).
func (w *walker) input(r *syntax.Redirect) (sp span, input, located bool) {
	switch r.Op {
	case syntax.WordHdoc:
		sp, located = w.place(r.Word.Pos(), r.Word.End())
		return sp, true, located
	case syntax.Hdoc, syntax.DashHdoc:
		if r.Hdoc == nil {
			return span{}, false, false
		}
		sp, located = w.place(r.Hdoc.Pos(), r.Hdoc.End())
		if !located {
			return sp, true, false
		}
		// The body runs up to the line that ends it.
		body := w.text(sp)
		i := strings.LastIndexByte(body, '\n')
		if i >= 0 && strings.TrimLeft(body[i+1:], "\t") == literal(r.Word) {
			sp.to = sp.from + i
		} else if i < 0 && strings.TrimLeft(body, "\t") == literal(r.Word) {
			return span{}, false, false
		}
		return sp, sp.to > sp.from, true
	}
	return span{}, false, false
}

// place is the span between two positions of src, in the redacted text.
func (w *walker) place(from, to syntax.Pos) (span, bool) {
	f, t := int(from.Offset()), int(to.Offset())
	if !from.IsValid() || !to.IsValid() || f < 0 || t > len(w.src) || f >= t {
		return span{}, false
	}
	return span{w.base + f, w.base + t}, true
}

// text is the text of a span of src.
func (w *walker) text(sp span) string { return w.src[sp.from-w.base : sp.to-w.base] }

// add redacts a node (none when nil); a node that cannot be placed costs
// the whole text.
func (w *walker) add(n syntax.Node) {
	if n == nil || isNil(n) {
		return
	}
	w.addRange(n, n)
}

func (w *walker) addRange(first, last syntax.Node) {
	if sp, ok := w.place(first.Pos(), last.End()); ok {
		w.spans = append(w.spans, sp)
	} else {
		w.whole = whole("command", "a secret could not be placed")
	}
}

// isNil reports whether an interface holds a nil pointer (an Assign
// without a value, or without an array).
func isNil(n syntax.Node) bool {
	switch n := n.(type) {
	case *syntax.Word:
		return n == nil
	case *syntax.ArrayExpr:
		return n == nil
	}
	return false
}

// sqlPassword reports whether SQL sets a password.
func sqlPassword(s string) bool {
	l := strings.ToLower(s)
	return strings.Contains(l, "password") || strings.Contains(l, "identified")
}

// lastStage is the last command of a pipeline (a | b: b), or st.
func lastStage(st *syntax.Stmt) *syntax.Stmt {
	for st != nil {
		b, ok := st.Cmd.(*syntax.BinaryCmd)
		if !ok || b.Op != syntax.Pipe && b.Op != syntax.PipeAll {
			return st
		}
		st = b.Y
	}
	return st
}

// callWords are the words of a simple command, as literal text (a word
// decided at run time is "\x00"), a quoted command split at its blanks
// (ssh host 'sudo -S …'); nil for any other statement.
func callWords(st *syntax.Stmt) []string {
	if st == nil {
		return nil
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok {
		return nil
	}
	words := make([]string, 0, len(call.Args))
	for _, a := range call.Args {
		words = append(words, strings.Fields(literal(a))...)
	}
	return words
}

// literal is a word's text with its quotes removed, or "\x00" when part of
// it is decided at run time.
func literal(w *syntax.Word) string {
	if w == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "\x00"
				}
				b.WriteString(l.Value)
			}
		default:
			return "\x00"
		}
	}
	return b.String()
}
