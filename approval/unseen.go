package approval

import (
	"fmt"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// shellVars are variables a shell acts on by itself: it runs their value
// (hooks, prompts, which are expanded), reads its startup files or looks
// programs up through them, splits words or matches files by them, ends
// itself (TMOUT), or keeps or hides its history by them. An assignment to
// one (or to an element of one) changes what later commands do, so it is
// unseen. bash, zsh, ksh/mksh, POSIX sh and fish (every fish_* variable).
// Those that also run code in the programs it starts are RunsCode's
// (codeVars), not repeated here: ShellActsOn asks both.
var shellVars = map[string]bool{
	// hooks and prompts (expanded, so $(…) in them runs)
	"PROMPT2": true, "PROMPT3": true, "PROMPT4": true,
	"RPROMPT2": true, "RPS1": true, "RPS2": true, "SPROMPT": true, "POSTEDIT": true, "PROMPT_EOL_MARK": true, "psvar": true,
	"precmd_functions": true, "preexec_functions": true, "chpwd_functions": true, "periodic_functions": true, "zshaddhistory_functions": true, "zshexit_functions": true,
	"PERIOD": true, "NULLCMD": true, "READNULLCMD": true, "MAIL": true, "MAILPATH": true, "MAILCHECK": true, "mailpath": true, "TMOUT": true,
	// startup files, lookup, loading
	"path": true, "cdpath": true, "fpath": true, "module_path": true,
	"BASH_CMDS": true, "BASH_ALIASES": true, "BASH_LOADABLES_PATH": true, "EXECIGNORE": true, "PWD": true, "OLDPWD": true, "TMPPREFIX": true, "TMPDIR": true,
	// how lines are read, split and globbed; options
	"GLOBIGNORE": true, "FIGNORE": true, "GLOBSORT": true, "POSIXLY_CORRECT": true, "BASH_COMPAT": true,
	"histchars": true, "HISTCHARS": true, "COMP_WORDBREAKS": true, "FUNCNEST": true, "BASH_XTRACEFD": true, "BASH_ARGV0": true, "KEYTIMEOUT": true,
	// zsh's tables of definitions (zsh/parameter): assigning an element
	// defines a function, an alias, a command's file or sets an option
	"functions": true, "dis_functions": true, "aliases": true, "dis_aliases": true, "galiases": true, "dis_galiases": true,
	"saliases": true, "dis_saliases": true, "commands": true, "options": true, "nameddirs": true, "builtins": true, "dis_builtins": true,
	"reswords": true, "dis_reswords": true,
	// history: what is kept, and where
	"HISTCONTROL": true, "HISTIGNORE": true, "HISTSIZE": true, "HISTFILESIZE": true, "SAVEHIST": true, "HISTORY_IGNORE": true, "HISTCMD": true,
}

// onlyThisShell are the variables the shell acts on that a program it
// starts does not read from its environment (bash resets IFS; history and
// the timeout are the interactive shell's): before a command that is not
// a shell or a special builtin (IFS= read -r line) they are harmless.
var onlyThisShell = map[string]bool{"IFS": true, "HISTFILE": true, "HISTCONTROL": true, "HISTIGNORE": true, "HISTSIZE": true, "HISTFILESIZE": true, "SAVEHIST": true, "HISTCMD": true, "TMOUT": true, "GLOBIGNORE": true, "FIGNORE": true, "COMP_WORDBREAKS": true, "FUNCNEST": true}

// ShellActsOn reports whether assigning the variable name changes what
// the shell or the programs it starts will do: the shell's own variables
// (shellVars, every fish_*) and those that run code or change what runs
// in programs it starts (RunsCode: LD_*, GIT_CONFIG_*, PYTHON*, ...; an
// assignment to one that is exported changes their environment).
func ShellActsOn(name string) bool {
	if i := strings.IndexByte(name, '['); i >= 0 {
		name = name[:i]
	}
	return shellVars[name] || strings.HasPrefix(name, "fish_") || RunsCode(name)
}

// plainParam reports whether p is $name or ${name} (or ${#name}): a value
// the judge treats as a hole, not one decided by an operator.
func plainParam(p *syntax.ParamExp) bool {
	return p.Param != nil && p.Flags == nil && !p.Excl && !p.Width && !p.IsSet &&
		p.Split == syntax.OptUnset && p.GlobSubst == syntax.OptUnset && p.RcExpand == syntax.OptUnset &&
		p.NestedParam == nil && p.Index == nil && len(p.Modifiers) == 0 && p.Slice == nil &&
		p.Repl == nil && p.Names == 0 && p.Exp == nil
}

var number = regexp.MustCompile(`^([0-9]+|0[xX][0-9a-fA-F]+|[0-9]+#[0-9a-zA-Z@_]+)$`)

// numeric reports whether w is a number written out.
func numeric(w *syntax.Word) bool {
	v, ok := literal(w)
	return ok && number.MatchString(v)
}

// node applies the checks that make a line unseen to one node of it.
func (r *reader) node(n syntax.Node) {
	switch x := n.(type) {
	case *syntax.ParamExp:
		if !plainParam(x) {
			r.unseenf("%s is a parameter expansion with an operator, so its value (and what it does) is decided when it runs", nodeSource(r.line, x))
		}
	case *syntax.ArithmExp:
		r.arith(x.X, x)
	case *syntax.ArithmCmd:
		r.arith(x.X, x)
	case *syntax.LetClause:
		for _, e := range x.Exprs {
			r.arith(e, x)
		}
	case *syntax.CStyleLoop:
		for _, e := range []syntax.ArithmExpr{x.Init, x.Cond, x.Post} {
			if e != nil {
				r.arith(e, x)
			}
		}
	case *syntax.ArrayElem:
		if x.Index != nil {
			r.arith(x.Index, x)
		}
	case *syntax.ExtGlob:
		if strings.ContainsAny(x.Pattern.Value, "$`") {
			r.unseenf("the pattern %s holds a substitution, which the shell runs when it matches files", nodeSource(r.line, x))
		}
	case *syntax.Assign:
		r.assign(x)
	case *syntax.ForClause:
		if it, ok := x.Loop.(*syntax.WordIter); ok {
			r.assignedName(it.Name.Value, "for")
		}
	case *syntax.BinaryTest:
		r.test(x)
	case *syntax.UnaryTest:
		if w, ok := x.X.(*syntax.Word); ok && x.Op == syntax.TsVarSet && strings.Contains(nodeSource(r.line, w), "[") {
			r.unseenf("-v %s evaluates a subscript when it runs", nodeSource(r.line, w))
		}
	case *syntax.CaseItem:
		for _, p := range x.Patterns {
			r.pattern(p)
		}
	case *syntax.DeclClause:
		r.decl(x.Variant.Value, r.words(declWords(x)))
	case *syntax.FuncDecl:
		r.funcDecl(x)
	}
}

// arith: arithmetic that names a variable evaluates its value as
// arithmetic when it runs (a[$(cmd)] in a value runs cmd).
func (r *reader) arith(e syntax.ArithmExpr, in syntax.Node) {
	syntax.Walk(e, func(n syntax.Node) bool {
		if w, ok := n.(*syntax.Word); ok && !numeric(w) {
			r.unseenf("the arithmetic %s names %s, whose value is evaluated as arithmetic when it runs", nodeSource(r.line, in), nodeSource(r.line, w))
			return false
		}
		return true
	})
}

// assign checks an assignment: to a variable the shell acts on, or with
// a subscript that is not a number.
func (r *reader) assign(a *syntax.Assign) {
	if a.Name == nil {
		return
	}
	// Before a command, it lasts for that command: only a variable that
	// the command (or a program it starts) may act on matters.
	if ShellActsOn(a.Name.Value) && !(r.temporary[a] && onlyThisShell[a.Name.Value]) {
		r.out.assigned = append(r.out.assigned, [2]string{a.Name.Value, fmt.Sprintf("it assigns %s, a variable the shell or the programs it starts act on (it can run code at every later prompt or change what later commands run)", a.Name.Value)})
	}
	if a.Index != nil {
		r.arith(a.Index, a)
	}
}

// assignedName records an assignment to a variable the shell acts on.
func (r *reader) assignedName(name, by string) {
	if !ShellActsOn(name) {
		return
	}
	if by != "" {
		by = " (by " + by + ")"
	}
	r.unseenf("it assigns %s%s, a variable the shell or the programs it starts act on (it can run code at every later prompt or change what later commands run)", name, by)
}

// test checks a [[ … ]] comparison: -eq and its kin evaluate their
// operands as arithmetic; a pattern holding a substitution runs it.
func (r *reader) test(t *syntax.BinaryTest) {
	switch t.Op {
	case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
		for _, x := range []syntax.TestExpr{t.X, t.Y} {
			if w, ok := x.(*syntax.Word); ok && !numeric(w) {
				r.unseenf("[[ %s ]] evaluates %s as arithmetic when it runs", nodeSource(r.line, t), nodeSource(r.line, w))
			}
		}
	case syntax.TsMatch, syntax.TsMatchShort, syntax.TsNoMatch, syntax.TsReMatch:
		if w, ok := t.Y.(*syntax.Word); ok {
			r.pattern(w)
		}
	}
}

// pattern: a substitution in a pattern (case, [[ == ]]).
func (r *reader) pattern(w *syntax.Word) {
	syntax.Walk(w, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			r.unseenf("the pattern %s holds a substitution", nodeSource(r.line, w))
			return false
		}
		return true
	})
}

// declWords are a declaration's words as written (flags, NAME=VALUE).
func declWords(d *syntax.DeclClause) []*syntax.Word {
	var out []*syntax.Word
	for _, a := range d.Args {
		if a.Name == nil && a.Value != nil {
			out = append(out, a.Value)
		}
	}
	return out
}

// decl checks declare/typeset/local/export/readonly/nameref's words: a
// nameref (-n) or an integer (-i) changes what later assignments do; a
// word decided when it runs can be any of those, or a subscript.
func (r *reader) decl(variant string, args []word) {
	if variant == "nameref" {
		r.unseenf("nameref makes later assignments go to another variable")
	}
	for _, a := range args {
		switch {
		case !a.known():
			r.unseenf("%s's argument %s is decided when it runs", variant, a.src)
		case strings.HasPrefix(a.text, "-") || strings.HasPrefix(a.text, "+"):
			if strings.ContainsAny(a.text, "in") {
				r.unseenf("%s %s changes what later assignments do (an integer evaluates arithmetic, a nameref assigns another variable)", variant, a.src)
			}
		default:
			name, _, _ := strings.Cut(a.text, "=")
			r.assignedName(name, variant)
			if strings.Contains(name, "[") {
				r.unseenf("%s %s has a subscript, evaluated when it runs", variant, a.src)
			}
		}
	}
}

// builtin reads the builtins that change the shell or run code they are
// given: eval, alias and trap have their command lines read; the others
// are unseen where they set variables the shell acts on, load code or
// bind keys.
func (r *reader) builtin(argv []word) {
	name, args := argv[0], argv[1:]
	if !name.known() {
		return
	}
	if r.defining(name.text, args) {
		return
	}
	switch name.text {
	case "eval":
		r.joined(args, "eval")
	case "trap":
		r.trap(args)
	case "zmodload", "bind", "bindkey", "zle", "abbr":
		// Listing forms only: anything else changes what a key or a later
		// line runs (bind -x, zle -N, a module's builtins).
		for _, a := range args {
			if !a.is("-p", "-P", "-l", "-L", "-a", "-s", "-S", "-v", "-V") {
				r.unseenf("%s changes the shell's builtins, modules or keys (what a later line or key runs)", name.text)
				break
			}
		}
	case "shopt":
		if hasWord(args, "-s") && hasWord(args, "extdebug") {
			r.definef("shopt -s extdebug lets a DEBUG trap skip later commands, %s", changes)
		}
	case "complete", "compgen":
		if hasWord(args, "-C", "-F") {
			r.unseenf("%s -C/-F runs a command or function on completion", name.text)
		}
	case "hash":
		// bash's hash -p FILE NAME, zsh's hash NAME=FILE and hash -d.
		for _, a := range args {
			if !a.known() || strings.Contains(a.text, "=") || strings.HasPrefix(a.text, "-") && strings.ContainsAny(a.text, "pd") {
				r.definef("hash %s changes which file a command name runs, %s", a.src, changes)
				break
			}
		}
	case "set":
		if r.shell == "fish" {
			r.setsVariables("set", args)
		} else {
			r.set(args)
		}
	case "let":
		for _, a := range args {
			if !a.known() || !number.MatchString(a.text) {
				r.unseenf("let %s evaluates arithmetic that names variables", a.src)
			}
		}
	case "declare", "typeset", "local", "export", "readonly", "nameref", "integer", "float", "private":
		if r.shell == "fish" {
			return
		}
		r.decl(name.text, args)
	default:
		r.setsVariables(name.text, args)
	}
}

// trap reads trap's action as a command line.
func (r *reader) trap(args []word) {
	var ops []word
	for _, a := range args {
		if !a.is("-p", "-l", "-P", "--") {
			ops = append(ops, a)
		}
	}
	if len(ops) < 2 || ops[0].is("-") {
		return
	}
	for _, sig := range ops[1:] {
		if s := strings.TrimPrefix(strings.ToUpper(sig.text), "SIG"); !sig.known() || s == "DEBUG" || s == "RETURN" {
			r.definef("trap %s %s runs its action inside every later command (tmuxmcp's own too), %s", ops[0].src, sig.src, changes)
		}
	}
	if !ops[0].known() {
		r.unseenf("the command trap runs, %s, is decided when it runs", ops[0].src)
		return
	}
	r.nested(ops[0].text, r.shell)
}

// set: -k (keyword) makes NAME=VALUE anywhere in a later command an
// assignment to its environment.
func (r *reader) set(args []word) {
	for i, a := range args {
		if !a.known() {
			r.unseenf("set %s is decided when it runs", a.src)
			return
		}
		if a.text == "--" {
			return
		}
		if strings.HasPrefix(a.text, "-") && !strings.HasPrefix(a.text, "--") && strings.Contains(a.text, "k") ||
			a.text == "-o" && i+1 < len(args) && args[i+1].is("keyword") {
			r.unseenf("set -k makes later words NAME=VALUE assignments to a command's environment")
		}
		if strings.HasPrefix(a.text, "-") && !strings.HasPrefix(a.text, "--") && strings.Contains(a.text, "T") ||
			a.text == "-o" && i+1 < len(args) && args[i+1].is("functrace") {
			r.definef("set %s makes DEBUG and RETURN traps run inside every function too, %s", a.src, changes)
		}
	}
}

// setsVariables checks the builtins that assign the variables they are
// named: read, mapfile/readarray, printf -v, getopts, and fish's set.
func (r *reader) setsVariables(prog string, args []word) {
	var names []word
	switch prog {
	case "read":
		names = operands(args, "adinNptu", "a")
	case "mapfile", "readarray":
		if hasWord(args, "-C") {
			r.unseenf("%s -C runs a command as it reads", prog)
		}
		names = operands(args, "dnOsuCc", "")
	case "printf":
		for i, a := range args {
			if a.is("-v") && i+1 < len(args) {
				names = append(names, args[i+1])
			} else if a.known() && strings.HasPrefix(a.text, "-v") && len(a.text) > 2 {
				names = append(names, lit(a.text[2:]))
			}
		}
	case "getopts":
		if len(args) > 1 {
			names = args[1:2]
		}
	case "set":
		if ops := operands(args, "", ""); len(ops) > 0 {
			names = ops[:1]
		}
	}
	for _, n := range names {
		if !n.known() {
			r.unseenf("%s assigns %s, a name decided when it runs", prog, n.src)
			continue
		}
		r.assignedName(n.text, prog)
		if strings.Contains(n.text, "[") {
			r.unseenf("%s assigns %s, whose subscript is evaluated when it runs", prog, n.text)
		}
	}
}

// operands is args without options (those whose letters are in values
// take a value); options whose letters are in named give a name that is
// returned among the operands.
func operands(args []word, values, named string) []word {
	var out []word
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.known() || !strings.HasPrefix(a.text, "-") || a.text == "-" {
			out = append(out, a)
			continue
		}
		if a.text == "--" {
			return append(out, args[i+1:]...)
		}
		for j := 1; j < len(a.text); j++ {
			c := a.text[j]
			if !strings.ContainsRune(values, rune(c)) {
				continue
			}
			v := word{}
			if j+1 < len(a.text) {
				v = lit(a.text[j+1:])
			} else if i+1 < len(args) {
				i++
				v = args[i]
			}
			if strings.ContainsRune(named, rune(c)) {
				out = append(out, v)
			}
			break
		}
	}
	return out
}
