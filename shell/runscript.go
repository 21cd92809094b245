package shell

import (
	"fmt"
	"strings"
)

// Script is a job script: what a shell sources to run one command in its
// own context (so cd and export persist), with its own tagged marks.
//
// The marks carry a secret that no other process of the pane can read:
// it is not in the script (whose path is on screen) but in KeyFile, which
// the script reads into a variable of the shell and removes before the
// command runs. Nothing in the script names the job.
type Script struct {
	// Kind is the shell that sources it (POSIX covers bash, zsh, sh, dash,
	// ksh).
	Kind Kind
	// KeyFile holds the job's secret, the tag of the script's marks (one
	// line); the script removes it once read.
	KeyFile string
	// Name is the script's random name, for the names it defines.
	Name string
	// CommandFile holds the command text, evaluated as is.
	CommandFile string
	// StatusFile receives the command's exit status, so a restarted tmuxmcp
	// can still collect it. It is written with >| (the shell's noclobber
	// aside): tmuxmcp creates it empty with mode 0600 before the script
	// runs, so the shell's umask never decides who may read it.
	StatusFile string
	// Dir, when set, is cd'd to first.
	Dir string
	// TrapExit (for shells tmuxmcp owns) also records the status when the
	// command exits the shell itself (exit 3).
	TrapExit bool
	// Rearm, when set, puts the shell integration's hooks back before the
	// command runs (POSIX kind: bash and zsh).
	Rearm *Rearm
}

// Rearm is how a job script puts back the integration of a shell whose
// hooks a command removed (it replaced PROMPT_COMMAND or precmd_functions,
// or exec'd a new shell): the integration file for the shell's kind,
// sourced in its hooks-only form, and a file holding the shell's secret
// tag, which the script reads and removes first.
type Rearm struct {
	Integration string
	TagFile     string
}

// Text returns the script. Its start mark, the command read from
// CommandFile, its end mark with the status, and the status written to
// StatusFile. The marks exist only once printf expands \033, so nothing a
// shell echoes can look like one. A shell running under set -e gets the
// command run with errexit off (set again after, and the script ends with
// status 0): a failing command reports its status instead of ending the
// shell.
//
// What the user's own hooks see is the command as typed: the script's own
// lines run with xtrace off and (in bash) with the ERR and DEBUG traps set
// aside; the command runs by eval of its text with them back (and set -x
// on again when it was), so its trace, $BASH_COMMAND and a failing
// command's ERR trap are the command's. Its status is taken inside that
// eval, so the eval itself never fails for an ERR trap to see; the traps
// stay aside until the shell's next prompt (the integration's first
// prompt hook gives them back), so neither does the sourcing of this file
// (without the integration they come back as the script ends, and the
// failing source line fires ERR once more).
func (sc Script) Text() string {
	if sc.Kind == Fish {
		return sc.fish()
	}
	d := dialectOf(sc.Kind)
	var b strings.Builder
	key := Quote(sc.KeyFile)
	// First the shell's own builtins are made sure (a function or alias
	// named builtin, command, printf, cat, rm, eval or read, or an alias of
	// a reserved word, is not ours to run), xtrace and errexit go off, and
	// bash's ERR and DEBUG traps are listed into the key file, after the
	// key (a command substitution would run an inherited DEBUG trap into
	// what it reads), and set aside.
	b.WriteString(d.guard(key))
	// (read by the shell itself: an interactive zsh gives a command
	// substitution the terminal, not the group's input; emptied by a
	// regular builtin, true, whose failed redirection in a read-only
	// sandbox is only its own failure, where a special builtin's, :'s,
	// ends the script in dash)
	fmt.Fprintf(&b, "{ __tmuxmcp_job_k= __tmuxmcp_job_t=; { IFS= %[1]sread -r __tmuxmcp_job_k; while IFS= %[1]sread -r __tmuxmcp_job_l; do __tmuxmcp_job_t=\"$__tmuxmcp_job_t$__tmuxmcp_job_l\n\"; done; } <%[2]s; %[1]strue >| %[2]s; %[3]sunset __tmuxmcp_job_l;%[4]s } 2>/dev/null\n",
		d.regular, key, d.special, d.trapsRead)
	if sc.Rearm != nil {
		// The command before removed the shell integration's hooks (or
		// replaced the shell): they go back before this one runs.
		fmt.Fprintf(&b, "{ __tmuxmcp_tag=; IFS= %[1]sread -r __tmuxmcp_tag < %[2]s; %[1]strue >| %[2]s; __tmuxmcp_rearm=1; %[3]s. %[4]s; } >/dev/null 2>&1\n",
			d.regular, Quote(sc.Rearm.TagFile), d.special, Quote(sc.Rearm.Integration))
	}
	fmt.Fprintf(&b, "%sprintf '\\033]133;C;tmuxmcp=%%s\\007' \"$__tmuxmcp_job_k\"\n", d.regular)
	if sc.TrapExit {
		// tmux drops a dying pane's output still queued for its control
		// clients: the shell lingers a moment so the command's last lines
		// arrive.
		fmt.Fprintf(&b, "%strap '\\%sprintf \"%%s\\n\" \"$?\" >| %s; \\%ssleep 0.2' EXIT\n", d.special, strings.TrimPrefix(d.regular, `\`), strings.ReplaceAll(Quote(sc.StatusFile), `'`, `'\''`), strings.TrimPrefix(d.external, `\`))
	}
	// The eval's text: the traps back, xtrace back, the command, and its
	// status taken with xtrace and the traps aside again (after an empty
	// line: a command ending in a backslash continues onto it, as a line
	// typed would, and ends there). The user's aliases are back for the
	// command only.
	fmt.Fprintf(&b, "__tmuxmcp_job_s= __tmuxmcp_job_x=\ncase $__tmuxmcp_job_e in *x*) __tmuxmcp_job_x='\\%sset -x' ;; esac\n", strings.TrimPrefix(d.special, `\`))
	// The command goes into an interactive bash's or zsh's history as
	// the user's own would (the line that sources this script does not).
	run := d.readCommand(Quote(sc.CommandFile)) + ` && case $-${BASH_VERSION:+b}${ZSH_VERSION:+z} in *i*b) ` + d.regular + `history -s -- "$__tmuxmcp_job_cmd" ;; *i*z) ` + d.regular + `print -sr -- "$__tmuxmcp_job_cmd" ;; esac && ` +
		d.aliasesBack + d.special + `eval "$__tmuxmcp_job_t
$__tmuxmcp_job_x
$__tmuxmcp_job_cmd

{ __tmuxmcp_job_s=\$?; ` + d.tail + `} 2>/dev/null"`
	if sc.Dir != "" {
		// What the user's cd prints (a cd function or chpwd hook that
		// lists the directory) is not the command's output; its errors
		// are.
		run = cdLine(Quote, sc.Dir) + ` >/dev/null && ` + run
	}
	// A cd that failed, or a command eval could not parse to its end: the
	// status is the line's.
	b.WriteString(run + "\n{ __tmuxmcp_job_r=$?; " + strings.ReplaceAll(d.tail, `\`, "") + "} 2>/dev/null\n")
	b.WriteString("case $__tmuxmcp_job_s in '') __tmuxmcp_job_s=$__tmuxmcp_job_r ;; esac\n")
	if sc.TrapExit {
		fmt.Fprintf(&b, "%strap - EXIT\n", d.special)
	}
	fmt.Fprintf(&b, "%sprintf '\\033]133;D;%%s;tmuxmcp=%%s\\007' \"$__tmuxmcp_job_s\" \"$__tmuxmcp_job_k\"\n", d.regular)
	fmt.Fprintf(&b, "%sprintf '%%s\\n' \"$__tmuxmcp_job_s\" >| %s 2>/dev/null\n", d.regular, Quote(sc.StatusFile))
	fmt.Fprintf(&b, "%sunset __tmuxmcp_job_cmd __tmuxmcp_job_k __tmuxmcp_job_r __tmuxmcp_job_x\n", d.special)
	// The traps go back at the next prompt (the integration's hook), or
	// here without it.
	fmt.Fprintf(&b, `case ${__tmuxmcp_job_t:+t} in
t) if %[1]s[ "$(%[1]stype -t __tmuxmcp_job_traps 2>/dev/null)" = function ]; then __tmuxmcp_job_traps=$__tmuxmcp_job_t; __tmuxmcp_job_t=; fi ;;
esac
`, d.regular)
	// The user's aliases go back. Under set -e: errexit again, status 0 (a
	// failing status would end the shell). Otherwise the script's status
	// is the command's, for the user's prompt. xtrace comes back after
	// the end mark, so what it traces then is not the command's.
	sp := strings.TrimPrefix(d.special, `\`)
	fmt.Fprintf(&b, `case $__tmuxmcp_job_e in
*e*) %[1]scase $__tmuxmcp_job_e in *x*) %[2]sset -x ;; esac; %[2]sunset __tmuxmcp_job_e __tmuxmcp_job_s; %[2]seval "$__tmuxmcp_job_t"; %[2]sunset __tmuxmcp_job_t; %[2]sset -e ;;
*) %[1]scase $__tmuxmcp_job_e in *x*) %[2]sset -x ;; esac; %[2]sunset __tmuxmcp_job_e; %[2]seval "$__tmuxmcp_job_t
\\%[3]sunset __tmuxmcp_job_s __tmuxmcp_job_t; \\%[3]sreturn $__tmuxmcp_job_s" ;;
esac
`, d.restore, d.special, sp)
	return b.String()
}

// dialect is how a job script reaches its shell's own builtins, whatever
// functions and aliases the user's shell defines.
type dialect struct {
	// regular prefixes the regular builtins the script runs (printf,
	// read, [, type), special the special ones (eval, set, unset, trap,
	// return, .), external the programs (rm, sleep).
	regular, special, external string
	// guard is the script's first lines: after them regular, special
	// and external reach the shell's own, and aliases are off.
	guard func(key string) string
	// trapsRead follows the key's reading (bash: the traps listed are
	// put back through builtin trap).
	trapsRead string
	// readCommand sets __tmuxmcp_job_cmd to the command file's text.
	readCommand func(file string) string
	// aliasesBack gives the user's aliases back for the command (before
	// the eval, so the eval reads its text with them); tail ends the eval's
	// text: the status taken, the traps and xtrace aside, aliases off.
	aliasesBack, tail string
	// restore puts back at the end what the guard changed.
	restore string
}

// dialectOf is the dialect of a kind's shells.
//
// bash looks a function up before any builtin, builtin and command
// included, but in POSIX mode finds the special builtins (unset) first:
// the guard enters POSIX mode by an assignment (POSIXLY_CORRECT, no
// command looked up), removes a function named builtin with the special
// unset, and leaves POSIX mode as it found it; expand_aliases goes off
// (from the next line on: the first uses no reserved word and quotes
// every command word; and again once POSIX mode is left, which turns it
// back on). zsh finds functions first whatever its options:
// the guard sets options by assignment and sets a function named builtin
// aside as a disabled one (dis_functions: enable -f builtin gives it
// back). So a function named builtin does not survive a job script: it
// would take over every script's builtin. The
// other POSIX shells find their special builtins first: a function named
// command is removed, and every other builtin goes through command.
func dialectOf(k Kind) dialect {
	switch k {
	case Bash:
		return dialect{regular: "builtin ", special: "builtin ", external: "builtin command ",
			guard: func(key string) string {
				return "__tmuxmcp_job_pv=${POSIXLY_CORRECT-} __tmuxmcp_job_ps=${POSIXLY_CORRECT+s} __tmuxmcp_job_o=:$SHELLOPTS:$BASHOPTS: __tmuxmcp_job_e=$- POSIXLY_CORRECT=y; " +
					"\\unset -f builtin 2>/dev/null; \\set +ex 2>/dev/null; \\builtin shopt -u expand_aliases 2>/dev/null\n" +
					"{ builtin unset POSIXLY_CORRECT; case $__tmuxmcp_job_ps in s) POSIXLY_CORRECT=$__tmuxmcp_job_pv ;; esac; " +
					"case $__tmuxmcp_job_o in *:posix:*) builtin set -o posix ;; *) builtin set +o posix ;; esac; " +
					"case $__tmuxmcp_job_o in *:inherit_errexit:*) ;; *) builtin shopt -u inherit_errexit ;; esac; builtin unset __tmuxmcp_job_pv __tmuxmcp_job_ps; builtin shopt -u expand_aliases; " +
					// (out of POSIX mode, where trap -p lists the signals left alone too)
					"builtin trap -p DEBUG ERR >>" + key + "; builtin trap - DEBUG ERR; } 2>/dev/null\n"
			},
			trapsRead:   ` __tmuxmcp_job_t=${__tmuxmcp_job_t//"trap -- "/"\builtin trap -- "};`,
			readCommand: func(file string) string { return "__tmuxmcp_job_cmd=$(<" + file + ")" },
			aliasesBack: "case $__tmuxmcp_job_o in *:expand_aliases:*) builtin shopt -s expand_aliases ;; esac && ",
			tail:        `\builtin trap - DEBUG ERR; \builtin set +x; \builtin shopt -u expand_aliases; `,
			restore:     "case $__tmuxmcp_job_o in *:expand_aliases:*) builtin shopt -s expand_aliases ;; esac; builtin unset __tmuxmcp_job_o; ",
		}
	case Zsh:
		return dialect{regular: "builtin ", special: "builtin ", external: "builtin command ",
			guard: func(string) string {
				return "__tmuxmcp_job_e=$- __tmuxmcp_job_al=${options[aliases]}; options[aliases]=off; options[xtrace]=off; options[errexit]=off\n" +
					"{ if (( ${+functions[builtin]} )); then dis_functions[builtin]=${functions[builtin]}; fi; } 2>/dev/null\n"
			},
			readCommand: func(file string) string { return "__tmuxmcp_job_cmd=$(<" + file + ")" },
			aliasesBack: "options[aliases]=$__tmuxmcp_job_al && ",
			tail:        `\builtin set +x; options[aliases]=off; `,
			restore:     "options[aliases]=$__tmuxmcp_job_al; builtin unset __tmuxmcp_job_al; ",
		}
	}
	return dialect{regular: "\\command ", special: "\\", external: "\\command ",
		guard: func(key string) string {
			// bash read as sh: its traps as above.
			return "__tmuxmcp_job_e=$-; \\unset -f command 2>/dev/null; \\set +ex 2>/dev/null\n" +
				"{ ${BASH_VERSION+command} ${BASH_VERSION+trap} ${BASH_VERSION+-p DEBUG ERR} >>" + key + "; ${BASH_VERSION+command} ${BASH_VERSION+trap} ${BASH_VERSION+- DEBUG ERR}; } 2>/dev/null\n"
		},
		readCommand: func(file string) string {
			return "{ __tmuxmcp_job_cmd= __tmuxmcp_job_l=; while IFS= \\command read -r __tmuxmcp_job_l; do __tmuxmcp_job_cmd=\"$__tmuxmcp_job_cmd$__tmuxmcp_job_l\n\"; __tmuxmcp_job_l=; done; __tmuxmcp_job_cmd=$__tmuxmcp_job_cmd$__tmuxmcp_job_l; } <" + file
		},
		tail: `\${BASH_VERSION+command} \${BASH_VERSION+trap} \${BASH_VERSION+- DEBUG ERR}; \set +x; `,
	}
}

func (sc Script) fish() string {
	q := Fish.Quote
	// fish lets no function be named builtin, command, read, set, test or
	// status; source and functions can be, so they go through builtin.
	run := `builtin source ` + q(sc.CommandFile)
	var b strings.Builder
	if sc.TrapExit {
		fmt.Fprintf(&b, "function __tmuxmcp_exit_%s --on-event fish_exit\n    builtin printf '%%s\\n' $status > %s\n    command sleep 0.2\nend\n", fishName(sc.Name), q(sc.StatusFile))
	}
	if sc.Dir != "" {
		// Before the start mark: what handlers of PWD print (a listing of
		// the new directory) is not the command's output. When it fails,
		// it runs again after the mark, for its error.
		cd := cdLine(q, sc.Dir)
		b.WriteString(cd + " >/dev/null 2>/dev/null\nset -g __tmuxmcp_job_cd $status\n")
		run = "if test $__tmuxmcp_job_cd -eq 0\n    " + run + "\nelse\n    " + cd + " >/dev/null\nend"
	}
	fmt.Fprintf(&b, "set -g __tmuxmcp_job_k; read -g __tmuxmcp_job_k < %s 2>/dev/null; builtin true > %s 2>/dev/null\n", q(sc.KeyFile), q(sc.KeyFile))
	b.WriteString("builtin printf '\\e]133;C;tmuxmcp=%s\\a' $__tmuxmcp_job_k\n")
	b.WriteString(run + "\n")
	b.WriteString("set -g __tmuxmcp_job_s $status\n")
	if sc.TrapExit {
		fmt.Fprintf(&b, "builtin functions -e __tmuxmcp_exit_%s\n", fishName(sc.Name))
	}
	b.WriteString("builtin printf '\\e]133;D;%s;tmuxmcp=%s\\a' $__tmuxmcp_job_s $__tmuxmcp_job_k\n")
	fmt.Fprintf(&b, "builtin printf '%%s\\n' $__tmuxmcp_job_s > %s 2>/dev/null\n", q(sc.StatusFile))
	b.WriteString("set -e __tmuxmcp_job_s __tmuxmcp_job_cd __tmuxmcp_job_k\n")
	return b.String()
}

// cdLine changes to dir through the user's cd, as they would: an absolute
// dir goes without "--", which cd replacements (zoxide's, a function that
// lists the directory) may not take.
func cdLine(quote func(string) string, dir string) string {
	if strings.HasPrefix(dir, "/") {
		return "cd " + quote(dir)
	}
	return "cd -- " + quote(dir)
}

// fishName keeps the letters and digits of a tag, for a function name.
func fishName(tag string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, tag)
}

// SourceLine is the line typed to run a job script: short, so a person
// watching sees which job runs; a leading space keeps it out of history
// (ignorespace, HIST_IGNORE_SPACE, fish's own rule).
func (k Kind) SourceLine(runFile string) string {
	if k == Fish {
		// (a fish function may be named source, not builtin)
		return " builtin source " + k.Quote(runFile)
	}
	return " . " + Quote(runFile)
}
