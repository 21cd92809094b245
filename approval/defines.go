package approval

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A definition changes what a name runs from then on: a function or an
// alias named ls makes every later allowed `ls` run its body, one named
// command, printf, cat, rm or eval changes what tmuxmcp's own job scripts
// and the integration's hooks run, and one named precmd, TRAPDEBUG or
// command_not_found_handle is run by the shell by itself. A rule that
// allows the body's commands says nothing about the name they will answer
// to, so a definition is never allowed by the rules matching its body: it
// is judged as what it is (asked; denied under a default of deny), with a
// reason that names it. So is what removes one (unset -f, unalias), turns
// builtins on or off (enable, disable), or copies or loads functions.

// definef records a definition the line makes.
func (r *reader) definef(format string, args ...any) {
	r.out.defines = append(r.out.defines, fmt.Sprintf(format, args...))
}

// changes is the end of a definition's reason.
const changes = "which would change what later commands run"

// funcDecl records a function definition: bash's and ksh's name() { … }
// and function name { … }, zsh's function a b { … } (an anonymous zsh
// function runs at once and defines nothing).
func (r *reader) funcDecl(f *syntax.FuncDecl) {
	names := f.Names
	if f.Name != nil {
		names = append([]*syntax.Lit{f.Name}, names...)
	}
	for _, n := range names {
		r.definef("it defines a function named %s, %s%s", n.Value, changes, nameNote(n.Value))
	}
}

// nameNote says, for a name the shell or tmuxmcp acts on by itself, why
// that matters more.
func nameNote(name string) string {
	switch {
	case scriptNames[name]:
		return " (" + name + " is a shell builtin or program tmuxmcp's job scripts and shell integration use)"
	case hookFunctions[name] || strings.HasPrefix(name, "TRAP") || strings.HasPrefix(name, "fish_"):
		return " (the shell runs a function named " + name + " by itself)"
	case builtinNames[name]:
		return " (" + name + " is a shell builtin)"
	}
	return ""
}

// scriptNames are the builtins, keywords and programs tmuxmcp's job
// scripts and shell integration run.
var scriptNames = set(". : [ [[ { } builtin command printf echo print cat rm eval read set unset trap type source exec return exit shift " +
	"local declare typeset export readonly shopt setopt history fc case if test true false cd emulate options functions " +
	"zle bindkey add-zsh-hook autoload zmodload sleep enable disable")

// builtinNames are other builtins and keywords of bash, zsh, ksh, POSIX sh
// and fish.
var builtinNames = set("alias bg bind break caller chdir compgen complete compopt continue coproc dirs disown do done elif else esac " +
	"fg fi for function getopts hash help jobs kill let logout mapfile popd pushd pwd readarray select suspend then " +
	"time times ulimit umask unalias until wait while noglob nocorrect repeat foreach end whence where which " +
	"unfunction unhash unsetopt zcompile zstyle zparseopts vared sched limit unlimit rehash r integer float " +
	"nameref private abbr argparse begin contains count functions funced funcsave math not or and string status")

// hookFunctions are the functions bash, zsh and fish run by themselves.
var hookFunctions = set("command_not_found_handle command_not_found_handler precmd preexec chpwd periodic zshaddhistory zshexit " +
	"zle-line-init zle-line-finish zle-keymap-select")

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// defining reads the builtins that define, remove, copy or load
// functions and aliases, or turn builtins on and off. It reports whether
// argv was one (its other checks are then done).
func (r *reader) defining(name string, args []word) bool {
	switch name {
	case "alias":
		r.alias(args)
	case "unalias", "unfunction", "unhash":
		for _, a := range operands(args, "", "") {
			r.definef("%s %s removes a definition, %s", name, a.src, changes)
		}
	case "unset":
		r.unset(args)
	case "enable", "disable":
		// With no name they list; with one they turn a builtin, alias,
		// function or reserved word on or off (enable -n printf), or
		// load one from a file (enable -f).
		for _, a := range args {
			if !a.known() || !strings.HasPrefix(a.text, "-") || a.text == "-" {
				r.definef("%s %s turns a builtin, alias, function or reserved word on or off, %s", name, a.src, changes)
				break
			}
		}
	case "functions":
		// fish's and zsh's functions -c/--copy, -e/--erase, zsh's -M.
		for _, a := range args {
			if !a.known() || strings.HasPrefix(a.text, "--") && a.is("--copy", "--erase") || !strings.HasPrefix(a.text, "--") && strings.HasPrefix(a.text, "-") && strings.ContainsAny(a.text, "ceM") {
				r.definef("functions %s copies, erases or defines a function, %s", a.src, changes)
				break
			}
		}
	case "autoload", "funcsave", "funced":
		if len(operands(args, "", "")) > 0 {
			r.definef("%s loads or saves functions, %s", name, changes)
		}
	default:
		return false
	}
	return true
}

// alias: alias NAME=VALUE (bash, zsh, ksh), alias NAME VALUE (fish), with
// zsh's -g (global) and -s (suffix). alias NAME alone prints it.
func (r *reader) alias(args []word) {
	ops := operands(args, "", "")
	for _, a := range ops {
		switch {
		case !a.known():
			r.definef("alias %s is decided when it runs, %s", a.src, changes)
			return
		case strings.Contains(a.text, "="):
			n, v, _ := strings.Cut(a.text, "=")
			r.definef("it defines an alias named %s, %s%s", n, changes, nameNote(n))
			r.nested(v, r.shell)
		case r.shell == "fish" && len(ops) > 1:
			r.definef("it defines an alias named %s, %s%s", a.text, changes, nameNote(a.text))
			return
		}
	}
}

// unset: -f removes functions; a plain name removes the variable, or the
// function of that name when there is none (bash), so a name that is a
// builtin or a program is read as the function it may remove.
func (r *reader) unset(args []word) {
	functions := false
	for _, a := range args {
		if a.known() && strings.HasPrefix(a.text, "-") && strings.Contains(a.text, "f") {
			functions = true
		}
	}
	for _, a := range operands(args, "", "") {
		switch {
		case !a.known():
			r.definef("unset %s names what it removes when it runs, %s", a.src, changes)
		case functions || scriptNames[a.text] || builtinNames[a.text] || hookFunctions[a.text]:
			r.definef("unset %s removes the function named %s, %s", a.src, a.text, changes)
		}
	}
}
