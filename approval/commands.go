// Package approval decides whether input may run and asks people when it
// must: command lines parsed into the simple commands they run (every one
// judged by the policy's rules), create_pane's argv and environment judged
// as what they are, directories judged resolved, the decision vocabulary,
// the text a person reads before answering, the one review slot, the
// popups and approver program that race for an answer (Asker), and the
// ledger that binds an MCP elicitation's answer to its request. It knows
// nothing of MCP or of how input reaches a pane: the caller shows popups.
package approval

import (
	"fmt"
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
// as one. A line the shell's parser rejects is a *ParseError.
func Commands(line, shell string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for i, lang := range dialects(shell) {
		cmds, err := commands(line, lang)
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

func commands(line string, lang syntax.LangVariant) (out []string, err error) {
	defer func() {
		if r := recover(); r != nil { // a parser bug must not let a line through
			out, err = nil, fmt.Errorf("parser failure: %v", r)
		}
	}()
	f, err := syntax.NewParser(syntax.Variant(lang), syntax.KeepComments(false)).Parse(strings.NewReader(line), "")
	if err != nil {
		return nil, err
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		st, ok := n.(*syntax.Stmt)
		if !ok {
			return true
		}
		switch st.Cmd.(type) {
		case nil, *syntax.CallExpr, *syntax.DeclClause, *syntax.TestClause, *syntax.ArithmCmd, *syntax.LetClause, *syntax.TestDecl:
			if text := stmtSource(line, st); text != "" {
				out = append(out, text)
			}
		}
		return true
	})
	return out, nil
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
