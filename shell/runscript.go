package shell

import (
	"fmt"
	"strings"
)

// Script is a job script: what a shell sources to run one command in its
// own context (so cd and export persist), with its own tagged marks.
type Script struct {
	// Kind is the shell that sources it (POSIX covers bash, zsh, sh, dash,
	// ksh).
	Kind Kind
	// Tag tags the script's marks: the job's id.
	Tag string
	// CommandFile holds the command text, evaluated as is.
	CommandFile string
	// StatusFile receives the command's exit status, so a restarted tmuxmcp
	// can still collect it.
	StatusFile string
	// Dir, when set, is cd'd to first.
	Dir string
	// TrapExit (for shells tmuxmcp owns) also records the status when the
	// command exits the shell itself (exit 3).
	TrapExit bool
}

// Text returns the script. Its start mark, the command read from
// CommandFile, its end mark with the status, and the status written to
// StatusFile. The marks exist only once printf expands \033, so nothing a
// shell echoes can look like one. A shell running under set -e gets the
// command run with errexit off (set again after, and the script ends with
// status 0): a failing command reports its status instead of ending the
// shell.
func (sc Script) Text() string {
	if sc.Kind == Fish {
		return sc.fish()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "printf '\\033]133;C;tmuxmcp=%%s\\007' %s\n", Quote(sc.Tag))
	if sc.TrapExit {
		fmt.Fprintf(&b, "trap 'printf \"%%s\\n\" \"$?\" > %s' EXIT\n", strings.ReplaceAll(Quote(sc.StatusFile), `'`, `'\''`))
	}
	b.WriteString("__tmuxmcp_job_e=$-; set +e\n")
	run := `__tmuxmcp_job_cmd=$(cat -- ` + Quote(sc.CommandFile) + `) && eval "$__tmuxmcp_job_cmd"`
	if sc.Dir != "" {
		run = `cd -- ` + Quote(sc.Dir) + ` && { ` + run + `; }`
	}
	b.WriteString(run + "\n__tmuxmcp_job_s=$?\n")
	if sc.TrapExit {
		b.WriteString("trap - EXIT\n")
	}
	fmt.Fprintf(&b, "printf '\\033]133;D;%%s;tmuxmcp=%%s\\007' \"$__tmuxmcp_job_s\" %s\n", Quote(sc.Tag))
	fmt.Fprintf(&b, "printf '%%s\\n' \"$__tmuxmcp_job_s\" > %s 2>/dev/null\n", Quote(sc.StatusFile))
	b.WriteString("unset __tmuxmcp_job_cmd\n")
	// Under set -e: errexit again, status 0 (a failing status would end the
	// shell). Otherwise the script's status is the command's, for the
	// user's prompt.
	b.WriteString(`case $__tmuxmcp_job_e in
*e*) unset __tmuxmcp_job_e __tmuxmcp_job_s; set -e ;;
*) unset __tmuxmcp_job_e; eval "unset __tmuxmcp_job_s; return $__tmuxmcp_job_s" ;;
esac
`)
	return b.String()
}

func (sc Script) fish() string {
	q := Fish.Quote
	run := `source ` + q(sc.CommandFile)
	if sc.Dir != "" {
		run = `cd -- ` + q(sc.Dir) + `; and ` + run
	}
	var b strings.Builder
	if sc.TrapExit {
		fmt.Fprintf(&b, "function __tmuxmcp_exit_%s --on-event fish_exit\n    printf '%%s\\n' $status > %s\nend\n", fishName(sc.Tag), q(sc.StatusFile))
	}
	fmt.Fprintf(&b, "printf '\\e]133;C;tmuxmcp=%%s\\a' %s\n", q(sc.Tag))
	b.WriteString(run + "\n")
	b.WriteString("set -g __tmuxmcp_job_s $status\n")
	if sc.TrapExit {
		fmt.Fprintf(&b, "functions -e __tmuxmcp_exit_%s\n", fishName(sc.Tag))
	}
	fmt.Fprintf(&b, "printf '\\e]133;D;%%s;tmuxmcp=%%s\\a' $__tmuxmcp_job_s %s\n", q(sc.Tag))
	fmt.Fprintf(&b, "printf '%%s\\n' $__tmuxmcp_job_s > %s 2>/dev/null\n", q(sc.StatusFile))
	b.WriteString("set -e __tmuxmcp_job_s\n")
	return b.String()
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
