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
	var b strings.Builder
	// Our own lines run with xtrace off (set -x traces of them would read
	// as the command's output), with bash's ERR and DEBUG traps aside, and
	// through command (a user's alias or function named cat or printf is
	// not ours to run).
	// bash's traps are listed into the key file (a command substitution
	// would run an inherited DEBUG trap into what it reads), after the key.
	key := Quote(sc.KeyFile)
	// (in zsh ":" takes the redirection: it runs cat for a lone one)
	fmt.Fprintf(&b, "{ ${BASH_VERSION+trap}${ZSH_VERSION+:} ${BASH_VERSION+-p DEBUG ERR} >>%s; ${BASH_VERSION+trap - DEBUG ERR}; __tmuxmcp_job_e=$-; set +ex; } 2>/dev/null\n", key)
	// (read by the shell itself: an interactive zsh gives a command
	// substitution the terminal, not the group's input)
	fmt.Fprintf(&b, "{ __tmuxmcp_job_k= __tmuxmcp_job_t=; { IFS= read -r __tmuxmcp_job_k; while IFS= read -r __tmuxmcp_job_l; do __tmuxmcp_job_t=\"$__tmuxmcp_job_t$__tmuxmcp_job_l\n\"; done; } <%s; command rm -f -- %s; unset __tmuxmcp_job_l; } 2>/dev/null\n", key, key)
	if sc.Rearm != nil {
		// The command before removed the shell integration's hooks (or
		// replaced the shell): they go back before this one runs.
		fmt.Fprintf(&b, "{ __tmuxmcp_tag=; IFS= read -r __tmuxmcp_tag < %s; command rm -f -- %s; __tmuxmcp_rearm=1; . %s; } >/dev/null 2>&1\n",
			Quote(sc.Rearm.TagFile), Quote(sc.Rearm.TagFile), Quote(sc.Rearm.Integration))
	}
	b.WriteString("command printf '\\033]133;C;tmuxmcp=%s\\007' \"$__tmuxmcp_job_k\"\n")
	if sc.TrapExit {
		// tmux drops a dying pane's output still queued for its control
		// clients: the shell lingers a moment so the command's last lines
		// arrive.
		fmt.Fprintf(&b, "trap 'command printf \"%%s\\n\" \"$?\" >| %s; command sleep 0.2' EXIT\n", strings.ReplaceAll(Quote(sc.StatusFile), `'`, `'\''`))
	}
	// The eval's text: the traps back, xtrace back, the command, and its
	// status taken with xtrace and the traps aside again (after an empty
	// line: a command ending in a backslash continues onto it, as a line
	// typed would, and ends there).
	b.WriteString("__tmuxmcp_job_s= __tmuxmcp_job_x=\ncase $__tmuxmcp_job_e in *x*) __tmuxmcp_job_x='set -x' ;; esac\n")
	// The command goes into an interactive bash's or zsh's history as
	// the user's own would (the line that sources this script does not).
	// The command file is read by the shell itself (no cat to start), its
	// trailing newlines dropped as a command substitution would.
	run := `{ __tmuxmcp_job_cmd=; while IFS= read -r __tmuxmcp_job_l || [ -n "$__tmuxmcp_job_l" ]; do __tmuxmcp_job_cmd="$__tmuxmcp_job_cmd$__tmuxmcp_job_l
"; done; } <` + Quote(sc.CommandFile) + ` && while :; do case $__tmuxmcp_job_cmd in *'
') __tmuxmcp_job_cmd=${__tmuxmcp_job_cmd%'
'} ;; *) break ;; esac; done && unset __tmuxmcp_job_l && case $-${BASH_VERSION:+b}${ZSH_VERSION:+z} in *i*b) builtin history -s -- "$__tmuxmcp_job_cmd" ;; *i*z) builtin print -sr -- "$__tmuxmcp_job_cmd" ;; esac && eval "$__tmuxmcp_job_t
$__tmuxmcp_job_x
$__tmuxmcp_job_cmd

{ __tmuxmcp_job_s=\$?; \${BASH_VERSION+trap - DEBUG ERR}; set +x; } 2>/dev/null"`
	if sc.Dir != "" {
		// What the user's cd prints (a cd function or chpwd hook that
		// lists the directory) is not the command's output; its errors
		// are.
		run = cdLine(Quote, sc.Dir) + ` >/dev/null && ` + run
	}
	// A cd that failed, or a command eval could not parse to its end: the
	// status is the line's.
	b.WriteString(run + "\n{ __tmuxmcp_job_r=$?; ${BASH_VERSION+trap - DEBUG ERR}; set +x; } 2>/dev/null\n")
	b.WriteString("case $__tmuxmcp_job_s in '') __tmuxmcp_job_s=$__tmuxmcp_job_r ;; esac\n")
	if sc.TrapExit {
		b.WriteString("trap - EXIT\n")
	}
	b.WriteString("command printf '\\033]133;D;%s;tmuxmcp=%s\\007' \"$__tmuxmcp_job_s\" \"$__tmuxmcp_job_k\"\n")
	fmt.Fprintf(&b, "command printf '%%s\\n' \"$__tmuxmcp_job_s\" >| %s 2>/dev/null\n", Quote(sc.StatusFile))
	b.WriteString("unset __tmuxmcp_job_cmd __tmuxmcp_job_k __tmuxmcp_job_r __tmuxmcp_job_x\n")
	// The traps go back at the next prompt (the integration's hook), or
	// here without it.
	b.WriteString(`case ${__tmuxmcp_job_t:+t} in
t) if [ "$(type -t __tmuxmcp_job_traps 2>/dev/null)" = function ]; then __tmuxmcp_job_traps=$__tmuxmcp_job_t; __tmuxmcp_job_t=; fi ;;
esac
`)
	// Under set -e: errexit again, status 0 (a failing status would end the
	// shell). Otherwise the script's status is the command's, for the
	// user's prompt.
	// xtrace comes back last: what it traces then is after the end mark.
	b.WriteString(`case $__tmuxmcp_job_e in *x*) set -x ;; esac
case $__tmuxmcp_job_e in
*e*) unset __tmuxmcp_job_e __tmuxmcp_job_s; eval "$__tmuxmcp_job_t"; unset __tmuxmcp_job_t; set -e ;;
*) unset __tmuxmcp_job_e; eval "$__tmuxmcp_job_t
unset __tmuxmcp_job_s __tmuxmcp_job_t; return $__tmuxmcp_job_s" ;;
esac
`)
	return b.String()
}

func (sc Script) fish() string {
	q := Fish.Quote
	run := `source ` + q(sc.CommandFile)
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
	fmt.Fprintf(&b, "set -g __tmuxmcp_job_k; read -g __tmuxmcp_job_k < %s 2>/dev/null; command rm -f -- %s 2>/dev/null\n", q(sc.KeyFile), q(sc.KeyFile))
	b.WriteString("builtin printf '\\e]133;C;tmuxmcp=%s\\a' $__tmuxmcp_job_k\n")
	b.WriteString(run + "\n")
	b.WriteString("set -g __tmuxmcp_job_s $status\n")
	if sc.TrapExit {
		fmt.Fprintf(&b, "functions -e __tmuxmcp_exit_%s\n", fishName(sc.Name))
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
		return " source " + k.Quote(runFile)
	}
	return " . " + Quote(runFile)
}
