// Package approval decides whether input may run and asks people when it
// must: command lines parsed into the simple commands they run (every one
// judged by the policy's rules, on the host they run on), create_pane's
// argv and environment judged as what they are, directories judged
// resolved on the machine they are on, the decision vocabulary, the text a
// person reads before answering (naming a remote host), the one review
// slot, the popups and approver program that race for an answer (Asker,
// its popup files on the machine the popups run on), and the ledger that
// binds an MCP elicitation's answer to its request. It knows nothing of
// MCP or tmux (how input reaches a pane): the caller shows popups.
package approval

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// dialects are the parsers a shell's lines are read with: the first must
// parse the line; the commands every other one finds are judged too.
func dialects(shell string) []syntax.LangVariant {
	switch shell {
	case "sh", "dash", "ash", "posh", "yash":
		return []syntax.LangVariant{syntax.LangPOSIX, syntax.LangBash}
	case "mksh", "lksh", "ksh", "ksh93", "oksh":
		return []syntax.LangVariant{syntax.LangMirBSDKorn, syntax.LangBash}
	case "zsh":
		return []syntax.LangVariant{syntax.LangBash, syntax.LangZsh}
	}
	// bash; fish, whose simple lines read the same; anything else.
	return []syntax.LangVariant{syntax.LangBash}
}

// ParseError is a line the shell's parser does not accept.
type ParseError struct {
	Line string
	Err  error
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("the command line does not parse as shell (%v), so the commands it runs cannot be told", e.Err)
}

// Commands returns, as written, every simple command line runs in the
// language of shell (bash, zsh, fish, sh, dash, mksh, ...): the commands
// of lists, pipelines and and-or lists, of every line, and those inside
// $(…), backticks, <(…), subshells, blocks, if/while/for/case clauses and
// function bodies; a statement that is only a redirection (> file) counts
// as one. Besides, each output redirection to a file (2>>~/.bashrc) is a
// command of its own, a command whose words are all literal is also given
// with its quotes and backslashes removed ("rm" -\rf → rm -rf), and a
// coprocess is given whole. A line the shell's parser rejects — or that
// the shell would read differently from the grammar used (a trailing
// backslash that joins the next line; zsh glob qualifiers, fish's (…) and
// \' in single quotes) — is a *ParseError.
func Commands(line, shell string) ([]string, error) {
	rd, err := read(line, shell, 0)
	if err != nil {
		return nil, err
	}
	return rd.written, nil
}

// reading is what the judge reads in a command line.
type reading struct {
	// written are the commands as Commands returns them, and the
	// commands wrappers run (sudo rm -rf x: rm -rf x).
	written []string
	// forms are every simple command's canonical form (see canonical),
	// judged by deny and ask rules.
	forms []form
	// unseen says why part of what the line does is decided when it runs,
	// in a way the judge does not follow.
	unseen []string
	// assigned are the variables the shell acts on that an assignment
	// sets (name → why): unseen, unless create_pane's environment sets
	// it (judged by env rules).
	assigned [][2]string
	// code are the commands that run code given in an argument.
	code []codeCommand
	// defines says which functions and aliases the line defines or
	// removes (or builtins it turns on or off): each changes what later
	// lines run, so it is judged as what it is, never by its body.
	defines []string
}

// codeCommand is a command that runs code given in an argument (python
// -c): asked unless a rule allows it.
type codeCommand struct {
	text, why string
}

// merge adds o to rd.
func (rd *reading) merge(o *reading) {
	for _, c := range o.written {
		if !slices.Contains(rd.written, c) {
			rd.written = append(rd.written, c)
		}
	}
	rd.forms = append(rd.forms, o.forms...)
	rd.unseen = append(rd.unseen, o.unseen...)
	rd.assigned = append(rd.assigned, o.assigned...)
	rd.code = append(rd.code, o.code...)
	rd.defines = append(rd.defines, o.defines...)
}

// read is what the judge reads in line, in shell's language (depth: how
// deep in wrappers and shell strings it is).
func read(line, shell string, depth int) (*reading, error) {
	if t := strings.TrimRight(line, "\n"); (len(t)-len(strings.TrimRight(t, `\`)))%2 == 1 {
		return nil, &ParseError{Line: line, Err: errors.New("it ends with a backslash, so the shell joins the next line to it")}
	}
	out := &reading{}
	for i, lang := range dialects(shell) {
		var rd reading
		r := &reader{line: line, shell: shell, depth: depth, out: &rd}
		if err := r.parse(lang); err != nil {
			if i == 0 {
				return nil, &ParseError{Line: line, Err: err}
			}
			continue
		}
		out.merge(&rd)
	}
	return out, nil
}

// reader reads one command line in one language.
type reader struct {
	line  string
	shell string
	depth int
	out   *reading
	// temporary are the assignments before a command that is neither a
	// special builtin nor a shell: they last for that command only.
	temporary map[*syntax.Assign]bool
}

// specialBuiltins are the builtins an assignment before which outlasts
// the command (POSIX special builtins, and bash's source).
var specialBuiltins = map[string]bool{":": true, ".": true, "source": true, "eval": true, "exec": true, "export": true, "readonly": true, "return": true, "set": true, "shift": true, "times": true, "trap": true, "unset": true, "break": true, "continue": true, "exit": true}

// harmless are redirection targets that write nothing anyone reads.
var harmless = map[string]bool{"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true, "/dev/tty": true}

func (r *reader) parse(lang syntax.LangVariant) (err error) {
	defer func() {
		if p := recover(); p != nil { // a parser bug must not let a line through
			err = fmt.Errorf("parser failure: %v", p)
		}
	}()
	// zsh reads # as a comment only with interactive_comments set (off by
	// default in an interactive shell), so a zsh line's comments are kept
	// to be refused below.
	f, err := syntax.NewParser(syntax.Variant(lang), syntax.KeepComments(r.shell == "zsh")).Parse(strings.NewReader(r.line), "")
	if err != nil {
		return err
	}
	var bad error
	syntax.Walk(f, func(n syntax.Node) bool {
		r.node(n)
		switch x := n.(type) {
		case *syntax.ExtGlob:
			switch r.shell {
			case "zsh":
				bad = errors.New("zsh reads ( after a word as glob qualifiers, which can run code (e:…:, +func)")
			case "fish":
				bad = errors.New("fish reads (…) as a command substitution")
			}
		case *syntax.Comment:
			bad = errors.New("zsh without interactive_comments (the default) reads # as a word, not a comment: what follows it may run")
		case *syntax.SglQuoted:
			if r.shell == "fish" && strings.Contains(x.Value, `\`) {
				bad = errors.New(`fish reads \' inside single quotes as a quote, not the end of the string`)
			}
		case *syntax.Stmt:
			r.stmt(x)
		}
		return true
	})
	return bad
}

// stmt reads one statement: its text, its redirections that write files,
// and its simple command.
func (r *reader) stmt(x *syntax.Stmt) {
	switch x.Cmd.(type) {
	case nil, *syntax.CallExpr, *syntax.DeclClause, *syntax.TestClause, *syntax.ArithmCmd, *syntax.LetClause, *syntax.TestDecl, *syntax.CoprocClause:
		if text := stmtSource(r.line, x); text != "" {
			r.out.written = append(r.out.written, text)
		}
	}
	for _, rd := range x.Redirs {
		if w := writes(rd); w != "" && !harmless[w] {
			r.out.written = append(r.out.written, nodeSource(r.line, rd))
		}
	}
	call, ok := x.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return
	}
	argv := r.words(call.Args)
	if len(argv) > 0 && !specialBuiltins[argv[0].text] && !shells[program(argv[0]).text] {
		if r.temporary == nil {
			r.temporary = map[*syntax.Assign]bool{}
		}
		for _, a := range call.Assigns {
			r.temporary[a] = true
		}
	}
	if first := (&syntax.Word{Parts: slices.Clone(call.Args[0].Parts)}); syntax.SplitBraces(first) || len(argv) == 0 || !argv[0].known() || argv[0].src != nodeSource(r.line, call.Args[0]) || len(argv) > 1 && argv[1].src == argv[0].src {
		r.unseenf("the command name %s is decided when it runs", nodeSource(r.line, call.Args[0]))
	}
	if plain, ok := literalCall(call, argv); ok && plain != "" {
		r.out.written = append(r.out.written, plain)
	}
	r.call(argv)
}

// command adds argv, a command a wrapper runs, as written (and its value
// when every word is known), and reads it.
func (r *reader) command(argv []word) {
	if len(argv) == 0 {
		return
	}
	var src []string
	for _, w := range argv {
		if w.src != "" {
			src = append(src, w.src)
		}
	}
	r.out.written = append(r.out.written, strings.Join(src, " "))
	if t, ok := texts(argv); ok {
		r.out.written = append(r.out.written, strings.Join(t, " "))
	}
	r.call(argv)
}

// call reads one simple command's words: its canonical form, what its
// builtin does, whether it runs code from an argument, and the command
// it runs when it is a wrapper.
func (r *reader) call(argv []word) {
	if len(argv) == 0 {
		return
	}
	if r.depth >= maxDepth {
		r.unseenf("it nests commands in wrappers and shell strings deeper than %d", maxDepth)
		return
	}
	f := canonical(argv)
	r.out.forms = append(r.out.forms, f)
	r.builtin(argv)
	if why := runsCode(argv); why != "" {
		var src []string
		for _, w := range argv {
			src = append(src, w.src)
		}
		r.out.code = append(r.out.code, codeCommand{text: strings.Join(src, " "), why: why})
	}
	if inner := r.unwrap(argv); len(inner) > 0 {
		r.depth++
		r.command(inner)
		r.depth--
	}
}

// nested reads text, a command line some command runs (sh -c, eval,
// alias, trap), in shell's language, as part of this line.
func (r *reader) nested(text, shell string) {
	if r.depth+1 >= maxDepth {
		r.unseenf("it nests commands in wrappers and shell strings deeper than %d", maxDepth)
		return
	}
	rd, err := read(text, shell, r.depth+1)
	if err != nil {
		r.unseenf("the command line %q it runs does not parse (%v)", text, err)
		return
	}
	r.out.merge(rd)
}

// writes is the file an output redirection writes to, or "".
func writes(r *syntax.Redirect) string {
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob:
	case syntax.DplOut:
		// >&2, >&"2", >&-: a descriptor. Any other word, quoted or
		// expanded too (>&"$HOME/x"), is a file bash opens for writing.
		if lit, ok := literal(r.Word); ok && lit != "" && (lit == "-" || strings.Trim(lit, "0123456789") == "") {
			return ""
		}
	default:
		return ""
	}
	if w, ok := literal(r.Word); ok {
		return w
	}
	return "?" // not a literal: some file
}

// literalCall is the command's words with quotes and backslashes removed
// and braces expanded, when every word (and assignment) is known.
func literalCall(c *syntax.CallExpr, argv []word) (string, bool) {
	var words []string
	for _, a := range c.Assigns {
		if a.Value == nil || a.Name == nil {
			return "", false
		}
		v, ok := literal(a.Value)
		if !ok {
			return "", false
		}
		words = append(words, a.Name.Value+"="+v)
	}
	t, ok := texts(argv)
	if !ok {
		return "", false
	}
	return strings.Join(append(words, t...), " "), true
}

// literal is w's value when it holds no expansion: literal text, single
// quotes and double quotes around literal text, backslash escapes.
func literal(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	var b strings.Builder
	for _, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(x.Value, ""))
		case *syntax.SglQuoted:
			if x.Dollar {
				v, ok := ansiC(x.Value)
				if !ok {
					return "", false
				}
				b.WriteString(v)
				continue
			}
			b.WriteString(x.Value)
		case *syntax.DblQuoted: // $"…" too: a translation of the same text
			for _, p := range x.Parts {
				lit, ok := p.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(unescape(lit.Value, "\"$`\\\n"))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// ansiC decodes the body of $'…' (bash's ANSI-C quoting); false for an
// escape it does not know.
func ansiC(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch c := s[i]; c {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte(0xc)
		case 'v':
			b.WriteByte(0xb)
		case 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			}
		case 'u', 'U':
			digits := 4
			if c == 'U' {
				digits = 8
			}
			j := i + 1
			for j < len(s) && j < i+1+digits && strings.IndexByte("0123456789abcdefABCDEF", s[j]) >= 0 {
				j++
			}
			n, err := strconv.ParseUint(s[i+1:j], 16, 32)
			if err != nil {
				return "", false
			}
			b.WriteRune(rune(n))
			i = j - 1
		case '\\', '\'', '"', '?':
			b.WriteByte(c)
		case 'x':
			j := i + 1
			for j < len(s) && j < i+3 && strings.IndexByte("0123456789abcdefABCDEF", s[j]) >= 0 {
				j++
			}
			n, err := strconv.ParseUint(s[i+1:j], 16, 8)
			if err != nil {
				return "", false
			}
			b.WriteByte(byte(n))
			i = j - 1
		default:
			if c < '0' || c > '7' {
				b.WriteByte('\\')
				b.WriteByte(c)
				continue
			}
			j := i
			for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			n, _ := strconv.ParseUint(s[i:j], 8, 8)
			b.WriteByte(byte(n))
			i = j - 1
		}
	}
	return b.String(), true
}

// unescape removes the backslashes of s that quote the next character:
// any character outside quotes (only), or those in set inside double
// quotes.
func unescape(s, set string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (set == "" || strings.IndexByte(set, s[i+1]) >= 0) {
			i++
			if s[i] == '\n' {
				continue // a line continuation
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// nodeSource is the text of n as written in line.
func nodeSource(line string, n syntax.Node) string {
	from, to := int(n.Pos().Offset()), int(n.End().Offset())
	if from < 0 || to > len(line) || from >= to {
		return ""
	}
	return strings.TrimSpace(line[from:to])
}

// stmtSource is the text of st as written in line, without the ; that
// ends it.
func stmtSource(line string, st *syntax.Stmt) string {
	from, to := int(st.Pos().Offset()), int(st.End().Offset())
	if st.Semicolon.IsValid() && int(st.Semicolon.Offset()) >= from && int(st.Semicolon.Offset()) < to && line[st.Semicolon.Offset()] == ';' {
		to = int(st.Semicolon.Offset())
	}
	if from < 0 || to > len(line) || from >= to {
		return ""
	}
	return strings.TrimSpace(line[from:to])
}
