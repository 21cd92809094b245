package approval

import (
	"path"
	"slices"
	"strings"
)

// form is a command in its canonical form: the text deny and ask rules
// are also matched against, with its holes (see policy.Subject.Holes).
type form struct {
	text  string
	holes []int
}

// program is the name a command word runs: its basename (/bin/rm, \rm and
// "rm" all run rm).
func program(w word) word {
	if !w.known() {
		return w
	}
	return lit(path.Base(w.text))
}

// canonical is argv in its canonical form, two lines:
//
//	PROGRAM OPTION...
//	-- OPERAND...
//
// PROGRAM is the basename of the command word (for git, "git" and its
// subcommand: "git push"). The options are every option the program reads,
// wherever they were written (GNU programs take options after operands
// too), sorted, each once: a program the judge knows (optionTables) has
// each written by its long name when it has one (-r, -R, --rec and
// --recursive are all --recursive), a value joined with = (-t D is
// --target-directory=D); another program's short clusters are written
// whole and letter by letter (-abc -a -b -c). A word whose value is
// decided when it runs and could start with "-" is among the options, as
// a hole. The operands follow "--" on the second line, so a rule's ".*"
// on the first line never reaches a file name.
func canonical(argv []word) form {
	if len(argv) == 0 {
		return form{}
	}
	prog := program(argv[0])
	args := argv[1:]
	if prog.is("git") {
		prog, args = gitSubcommand(args)
	}
	var t *options
	if prog.known() {
		t = optionTables[prog.text]
	}
	var optsW, operands []word
	for i := 0; i < len(args); i++ {
		a := args[i]
		var next *word
		if i+1 < len(args) {
			next = &args[i+1]
		}
		switch {
		case !a.mayBeOption() || a.is("-"):
			operands = append(operands, a)
		case a.is("--"):
			operands = append(operands, args[i+1:]...)
			i = len(args)
		case !a.known():
			optsW = append(optsW, a)
		case strings.HasPrefix(a.text, "--"):
			w, used := longOption(t, a, next)
			optsW = append(optsW, w)
			i += used
		default:
			ws, used := shortOptions(t, a, next)
			optsW = append(optsW, ws...)
			i += used
		}
	}
	if prog.is("git push") {
		for _, o := range operands {
			if strings.HasPrefix(o.text, "+") || !o.known() && o.holes[0] == 0 {
				optsW = append(optsW, lit("--force")) // +ref forces that ref
			}
		}
	}
	slices.SortFunc(optsW, func(a, b word) int { return strings.Compare(a.text, b.text) })
	optsW = slices.CompactFunc(optsW, func(a, b word) bool { return a.text == b.text && slices.Equal(a.holes, b.holes) })
	l1, h1 := formOf(append([]word{prog}, optsW...))
	l2, h2 := formOf(append([]word{lit("--")}, operands...))
	f := form{text: l1 + "\n" + l2, holes: h1}
	for _, h := range h2 {
		f.holes = append(f.holes, len(l1)+1+h)
	}
	return f
}

// longOption reads --name[=value] (a, with next the word after it): the
// option as the canonical form writes it and how many words after a it
// used. A name that is the prefix of several of a known program's options
// is a hole: the judge cannot tell which the program would take.
func longOption(t *options, a word, next *word) (word, int) {
	if t == nil {
		return a, 0
	}
	name, val, hasVal := strings.Cut(a.text[2:], "=")
	o, ok, ambiguous := t.lookupLong(name)
	switch {
	case ambiguous:
		return word{text: "--", holes: []int{2}, src: a.src}, 0
	case !ok:
		return a, 0
	case hasVal:
		return lit(o.name() + "=" + val), 0
	case o.value == required && next != nil:
		w := lit(o.name() + "=")
		w.append(*next)
		return w, 1
	}
	return lit(o.name()), 0
}

// shortOptions reads a cluster of short options (-rf): each option as the
// canonical form writes it, and how many words after a it used.
func shortOptions(t *options, a word, next *word) ([]word, int) {
	s := a.text[1:]
	if t == nil {
		out := []word{a}
		if len(s) > 1 {
			for i := 0; i < len(s); i++ {
				out = append(out, lit("-"+s[i:i+1]))
			}
		}
		return out, 0
	}
	var out []word
	for i := 0; i < len(s); i++ {
		o, ok := t.short[s[i]]
		if !ok {
			out = append(out, lit("-"+s[i:i+1]))
			continue
		}
		rest := s[i+1:]
		switch {
		case o.value == noValue:
			out = append(out, lit(o.name()))
			continue
		case rest != "":
			return append(out, lit(o.name()+"="+rest)), 0
		case o.value == required && next != nil:
			w := lit(o.name() + "=")
			w.append(*next)
			return append(out, w), 1
		}
		out = append(out, lit(o.name()))
	}
	return out, 0
}

// gitGlobalValues are git's options (before the subcommand) that take the
// next word as their value.
var gitGlobalValues = []string{"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env", "--attr-source", "--list-cmds"}

// gitSubcommand skips git's own options: "git SUBCOMMAND" and the
// subcommand's arguments.
func gitSubcommand(args []word) (word, []word) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.is(gitGlobalValues...):
			i++
		case a.known() && strings.HasPrefix(a.text, "-"):
		default:
			sub := lit("git ")
			sub.append(a)
			return sub, args[i+1:]
		}
	}
	return lit("git"), nil
}
