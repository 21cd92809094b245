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
	if t := strings.TrimRight(line, "\n"); (len(t)-len(strings.TrimRight(t, `\`)))%2 == 1 {
		return nil, &ParseError{Line: line, Err: errors.New("it ends with a backslash, so the shell joins the next line to it")}
	}
	var out []string
	seen := map[string]bool{}
	for i, lang := range dialects(shell) {
		cmds, err := commands(line, lang, shell)
		if err != nil {
			if i == 0 {
				return nil, &ParseError{Line: line, Err: err}
			}
			continue
		}
		for _, c := range cmds {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	return out, nil
}

// harmless are redirection targets that write nothing anyone reads.
var harmless = map[string]bool{"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true, "/dev/tty": true}

func commands(line string, lang syntax.LangVariant, shell string) (out []string, err error) {
	defer func() {
		if r := recover(); r != nil { // a parser bug must not let a line through
			out, err = nil, fmt.Errorf("parser failure: %v", r)
		}
	}()
	f, err := syntax.NewParser(syntax.Variant(lang), syntax.KeepComments(false)).Parse(strings.NewReader(line), "")
	if err != nil {
		return nil, err
	}
	var bad error
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.ExtGlob:
			switch shell {
			case "zsh":
				bad = errors.New("zsh reads ( after a word as glob qualifiers, which can run code (e:…:, +func)")
			case "fish":
				bad = errors.New("fish reads (…) as a command substitution")
			}
		case *syntax.SglQuoted:
			if shell == "fish" && strings.Contains(x.Value, `\`) {
				bad = errors.New(`fish reads \' inside single quotes as a quote, not the end of the string`)
			}
		case *syntax.Stmt:
			switch x.Cmd.(type) {
			case nil, *syntax.CallExpr, *syntax.DeclClause, *syntax.TestClause, *syntax.ArithmCmd, *syntax.LetClause, *syntax.TestDecl, *syntax.CoprocClause:
				if text := stmtSource(line, x); text != "" {
					out = append(out, text)
				}
			}
			for _, r := range x.Redirs {
				if w := writes(r); w != "" && !harmless[w] {
					out = append(out, nodeSource(line, r))
				}
			}
			if call, ok := x.Cmd.(*syntax.CallExpr); ok {
				if plain, ok := literalCall(call); ok && plain != "" {
					out = append(out, plain)
				}
			}
		}
		return true
	})
	if bad != nil {
		return nil, bad
	}
	return out, nil
}

// writes is the file an output redirection writes to, or "".
func writes(r *syntax.Redirect) string {
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob:
	case syntax.DplOut:
		if lit := r.Word.Lit(); lit == "-" || strings.Trim(lit, "0123456789") == "" {
			return "" // >&2, >&-: a descriptor, not a file
		}
	default:
		return ""
	}
	if w, ok := literal(r.Word); ok {
		return w
	}
	return "?" // not a literal: some file
}

// literalCall is the command's words with quotes and backslashes removed,
// when every word (and assignment) is literal.
func literalCall(c *syntax.CallExpr) (string, bool) {
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
	for _, w := range c.Args {
		v, ok := literal(w)
		if !ok {
			return "", false
		}
		words = append(words, v)
	}
	return strings.Join(words, " "), true
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
