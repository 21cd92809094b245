package approval

import (
	"fmt"
	"strings"
)

// wrapper is a program that runs another program given in its arguments.
type wrapper struct {
	opts *options
	// none are options (as option.name writes them) after which no
	// command runs (command -v).
	none string
	// shell are options whose value is a shell command line (su -c).
	shell string
	// skip is how many operands come before the command (timeout's
	// duration, chroot's directory).
	skip int
	// assigns says NAME=VALUE words may come before the command (env,
	// sudo): each sets a variable in its environment.
	assigns bool
	// numeric says -N is an option (nice -10).
	numeric bool
	// extra says the command gets more arguments when it runs (xargs
	// appends what it reads): a hole after its words.
	extra bool
	// join says the command's words are joined with blanks and run by
	// sh -c (watch), unless the option exec is given.
	join bool
}

// wrappers are the programs that run another program whose command the
// judge reads from their arguments (shells' -c, find, git, su and busybox
// are read by their own functions).
var wrappers = map[string]wrapper{
	"env":       {opts: opts("i:ignore-environment 0:null u:unset= C:chdir= S:split-string= v:debug default-signal=? ignore-signal=? block-signal=? list-signal-handling help version"), shell: "--split-string", assigns: true, none: "--help --version"},
	"command":   {opts: opts("p: v: V:"), none: "-v -V"},
	"builtin":   {opts: opts("")},
	"exec":      {opts: opts("c: l: a:=")},
	"nice":      {opts: opts("n:adjustment= help version"), numeric: true},
	"nohup":     {opts: opts("help version")},
	"timeout":   {opts: opts("s:signal= k:kill-after= p:preserve-status foreground v:verbose help version"), skip: 1},
	"time":      {opts: opts("f:format= p:portability o:output= a:append v:verbose q:quiet help V:version")},
	"stdbuf":    {opts: opts("i:input= o:output= e:error= help version")},
	"setsid":    {opts: opts("c:ctty f:fork w:wait h:help V:version")},
	"ionice":    {opts: opts("c:class= n:classdata= p:pid P:pgid u:uid t:ignore h:help V:version"), none: "--pid --pgid --uid"},
	"chrt":      {opts: opts("a:all-tasks b:batch d:deadline e:ext f:fifo i:idle o:other r:rr R:reset-on-fork m:max p:pid v:verbose T:sched-runtime= P:sched-period= D:sched-deadline= h:help V:version"), none: "--pid --max", skip: 1},
	"taskset":   {opts: opts("a:all-tasks c:cpu-list p:pid h:help V:version"), none: "--pid", skip: 1},
	"unbuffer":  {opts: opts("p:")},
	"doas":      {opts: opts("n: s: u:= C:= L:"), none: "-C -L -s"},
	"sudo":      {opts: opts("A:askpass b:background B:bell C:close-from= D:chdir= E:preserve-env=? e:edit g:group= H:set-home h:host= i:login K:remove-timestamp k:reset-timestamp l:list n:non-interactive P:preserve-groups p:prompt= R:chroot= r:role= S:stdin s:shell t:type= T:command-timeout= U:other-user= u:user= V:version v:validate help"), none: "--edit --list --validate --remove-timestamp --version --help", assigns: true},
	"pkexec":    {opts: opts("user= disable-internal-agent keep-cwd help version")},
	"xargs":     {opts: opts("0:null a:arg-file= d:delimiter= E:= e:eof=? I:= i:replace=? L:= l:max-lines=? n:max-args= o:open-tty P:max-procs= p:interactive process-slot-var= r:no-run-if-empty s:max-chars= show-limits t:verbose x:exit help version"), extra: true, none: "--help --version --show-limits"},
	"watch":     {opts: opts("b:beep c:color C:no-color d:differences=? e:errexit g:chgexit n:interval= p:precise q:equexit= r:no-rerun t:no-title w:no-wrap x:exec h:help v:version"), join: true},
	"script":    {opts: opts("a:append c:command= E:echo= e:return f:flush force B:log-io= I:log-in= O:log-out= T:log-timing= m:logging-format= o:output-limit= q:quiet t:timing=? h:help V:version"), shell: "--command", skip: 1 << 20},
	"flock":     {opts: opts("s:shared x:exclusive e: u:unlock n:nonblock nb no-fork w:wait= timeout= E:conflict-exit-code= o:close c:command= F: verbose h:help V:version"), shell: "--command", skip: 1},
	"chroot":    {opts: opts("userspec= groups= skip-chdir help version"), skip: 1},
	"strace":    {opts: opts("a:= b:= c:summary-only C:summary d:debug D:daemonize=? e:= E:env= f:follow-forks F: h:help i:instruction-pointer I:= k:stack-traces n: o:output= O:= p:attach= P:= q:quiet=? r:relative-timestamps=? s:string-limit= S:= t:absolute-timestamps=? T:syscall-times=? u:user= v:no-abbrev V:version w: x: X:= y:decode-fds=? z: Z: seccomp-bpf output-separately trace= signal= status= raw= read= write= inject= fault= kvm= tips=? secontext=? columns="), none: "--attach --help --version"},
	"ltrace":    {opts: opts("a:align= A:= b: c: C:demangle D:debug= e:= f: F:config= h:help i: l:library= L: n:indent= o:output= p:= r: s:= S: t: T: u:= V:version w:where= x:=")},
	"noglob":    {opts: opts("")},
	"nocorrect": {opts: opts("")},
}

// shells are the shells whose -c the judge reads (and busybox's sh).
var shells = map[string]bool{"sh": true, "bash": true, "rbash": true, "zsh": true, "dash": true, "ash": true, "ksh": true, "ksh93": true, "mksh": true, "lksh": true, "oksh": true, "pdksh": true, "posh": true, "yash": true, "fish": true}

// maxDepth bounds how deep wrappers and shell strings are read.
const maxDepth = 8

// unwrap reads argv as a wrapper when it is one: the command it runs
// (nil when none, or when the judge read it itself, as for shell strings).
func (r *reader) unwrap(argv []word) []word {
	name := program(argv[0])
	if !name.known() {
		return nil
	}
	switch prog := name.text; {
	case prog == "busybox" || prog == "toybox":
		if len(argv) > 1 && !(argv[1].known() && strings.HasPrefix(argv[1].text, "-")) {
			return argv[1:]
		}
	case shells[prog]:
		r.shellString(prog, argv[1:])
	case prog == "su" || prog == "runuser":
		return r.su(argv[1:])
	case prog == "sg":
		r.joined(argv[2:], "sg")
	case prog == "find":
		r.find(argv[1:])
	case prog == "git":
		return r.git(argv[1:])
	default:
		if w, ok := wrappers[prog]; ok {
			return r.wrapped(prog, w, argv[1:])
		}
	}
	return nil
}

// wrapped reads the arguments of wrapper w (prog's): the command they run.
func (r *reader) wrapped(prog string, w wrapper, args []word) []word {
	skip, exec := w.skip, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case !a.known():
			r.unseenf("%s's argument %s is decided when it runs, so the command %s runs cannot be told", prog, a.src, prog)
			return nil
		case a.text == "--":
			return r.runs(w, args[i+1:], skip, exec)
		case w.assigns && isAssignment(a.text):
			r.assignedName(strings.SplitN(a.text, "=", 2)[0], prog)
		case a.text == "-" && prog == "env":
		case w.numeric && strings.Trim(a.text, "-0123456789") == "" && strings.Trim(a.text, "-") != "":
		case strings.HasPrefix(a.text, "-") && len(a.text) > 1:
			used, name, val, ok := readOption(w.opts, a, args[i+1:])
			if !ok {
				r.unseenf("%s's option %s is not one the judge knows, so where the command it runs starts cannot be told", prog, a.src)
				return nil
			}
			i += used
			switch {
			case has(w.shell, name):
				r.nestedWord(val, prog)
				if prog != "env" {
					return nil
				}
			case has(w.none, name):
				return nil
			case name == "--exec":
				exec = true
			}
		default:
			return r.runs(w, args[i:], skip, exec)
		}
	}
	return nil
}

// runs is the command of a wrapper's operands, after the skip it takes.
func (r *reader) runs(w wrapper, operands []word, skip int, exec bool) []word {
	if len(operands) <= skip {
		return nil
	}
	cmd := operands[skip:]
	if o, ok := w.opts.short['c']; ok && has(w.shell, o.name()) && cmd[0].is("-c", "--command") {
		if len(cmd) > 1 {
			r.nestedWord(cmd[1], "flock")
		}
		return nil // flock FILE -c CMD
	}
	if w.join && !exec {
		r.joined(cmd, "watch")
		return nil
	}
	if w.extra {
		cmd = append(cmd[:len(cmd):len(cmd)], hole("…"))
	}
	return cmd
}

// readOption reads one option word a (and what follows it, rest) of
// table t: how many following words its value used, the option's name as
// option.name writes it, its value (when it takes one), and false when t
// does not know it.
func readOption(t *options, a word, rest []word) (used int, name string, val word, ok bool) {
	if strings.HasPrefix(a.text, "--") {
		n, v, hasVal := strings.Cut(a.text[2:], "=")
		o, found, _ := t.lookupLong(n)
		if !found {
			return 0, "", word{}, false
		}
		switch {
		case hasVal:
			return 0, o.name(), lit(v), true
		case o.value == required && len(rest) > 0:
			return 1, o.name(), rest[0], true
		}
		return 0, o.name(), word{}, true
	}
	s := a.text[1:]
	for i := 0; i < len(s); i++ {
		o, found := t.short[s[i]]
		if !found {
			return 0, "", word{}, false
		}
		name = o.name()
		if o.value == noValue {
			continue
		}
		if s[i+1:] != "" {
			return 0, name, lit(s[i+1:]), true
		}
		if o.value == required && len(rest) > 0 {
			return 1, name, rest[0], true
		}
	}
	return 0, name, word{}, true
}

// nestedWord reads w, the value of an option that is a shell command line
// (su -c, env -S), in sh's language.
func (r *reader) nestedWord(w word, prog string) {
	if !w.known() {
		r.unseenf("the command line %s gives %s is decided when it runs", w.src, prog)
		return
	}
	r.nested(w.text, "sh")
}

// joined reads words joined with blanks as a sh command line (watch, sg).
func (r *reader) joined(ws []word, prog string) {
	if len(ws) == 0 {
		return
	}
	t, ok := texts(ws)
	if !ok {
		r.unseenf("the command line %s runs is decided when it runs", prog)
		return
	}
	r.nested(strings.Join(t, " "), "sh")
}

// shellString reads a shell's arguments: with -c (fish: -c CMD, -C CMD,
// --command=CMD), the command line it runs, read in its language.
func (r *reader) shellString(sh string, args []word) {
	cmode := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case !a.known():
			r.unseenf("%s's argument %s is decided when it runs, so what it runs cannot be told", sh, a.src)
			return
		case a.text == "--" || a.text == "-":
			if cmode && i+1 < len(args) {
				r.nestedIn(args[i+1], sh)
			}
			return
		case sh == "fish" && (strings.HasPrefix(a.text, "--command=") || strings.HasPrefix(a.text, "--init-command=")):
			_, v, _ := strings.Cut(a.text, "=")
			r.nestedIn(lit(v), sh)
		case strings.HasPrefix(a.text, "--"):
			if a.is("--rcfile", "--init-file", "--command", "--init-command") && i+1 < len(args) {
				if a.is("--command", "--init-command") {
					r.nestedIn(args[i+1], sh)
				}
				i++
			}
		case strings.HasPrefix(a.text, "-") || strings.HasPrefix(a.text, "+"):
			for _, c := range a.text[1:] {
				switch {
				case sh == "fish" && (c == 'c' || c == 'C') && i+1 < len(args):
					i++
					r.nestedIn(args[i], sh)
				case c == 'c':
					cmode = true
				case c == 'o' || c == 'O':
					i++
				}
			}
		default:
			if cmode {
				r.nestedIn(a, sh)
			}
			return
		}
	}
}

// nestedIn reads w as a command line of shell sh.
func (r *reader) nestedIn(w word, sh string) {
	if !w.known() {
		r.unseenf("the command line %s gives %s is decided when it runs", w.src, sh)
		return
	}
	r.nested(w.text, sh)
}

// su reads su's and runuser's arguments, whose options may follow the
// user: -c CMD is a command line; runuser -u USER CMD... runs CMD; words
// after the user go to the user's shell.
func (r *reader) su(args []word) []word {
	t := opts("c:command= session-command= f:fast g:group= G:supp-group= l:login m:preserve-environment p: P:pty s:shell= u:user= w:whitelist-environment= h:help V:version")
	var operands []word
	user := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case !a.known():
			r.unseenf("su's argument %s is decided when it runs, so what it runs cannot be told", a.src)
			return nil
		case a.text == "--":
			operands = append(operands, args[i+1:]...)
			i = len(args)
		case a.text == "-":
		case strings.HasPrefix(a.text, "-"):
			used, name, val, ok := readOption(t, a, args[i+1:])
			if !ok {
				r.unseenf("su's option %s is not one the judge knows", a.src)
				return nil
			}
			i += used
			switch name {
			case "--command", "--session-command":
				r.nestedWord(val, "su")
			case "--user":
				user = true
			}
		default:
			operands = append(operands, a)
		}
	}
	switch {
	case user:
		return operands
	case len(operands) > 1:
		return append([]word{lit("sh")}, operands[1:]...)
	}
	return nil
}

// isAssignment reports whether s is NAME=VALUE.
func isAssignment(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	return ok && name != "" && strings.TrimLeft(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") == "" && (name[0] < '0' || name[0] > '9')
}

// unseenf records why the line cannot be seen.
func (r *reader) unseenf(format string, args ...any) {
	r.out.unseen = append(r.out.unseen, fmt.Sprintf(format, args...))
}

// has reports whether the blank-separated list holds name.
func has(list, name string) bool {
	return strings.Contains(" "+list+" ", " "+name+" ")
}
