package approval

import (
	"regexp"
	"strings"
)

// find reads find's arguments: each -exec/-execdir/-ok/-okdir command is
// a command of the line; -delete is judged as the rm it amounts to
// (rm -r -- START...), -fprint/-fprint0/-fprintf/-fls FILE as a write to
// FILE (> FILE).
func (r *reader) find(args []word) {
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if a.is("-D") {
			i++
		} else if !a.is("-H", "-L", "-P") && !(a.known() && strings.HasPrefix(a.text, "-O")) {
			break
		}
	}
	var starts []word
	for ; i < len(args) && !(args[i].known() && (strings.HasPrefix(args[i].text, "-") || args[i].is("(", "!"))); i++ {
		starts = append(starts, args[i])
	}
	if len(starts) == 0 {
		starts = []word{lit(".")}
	}
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case !a.known() && a.mayBeOption():
			r.unseenf("find's expression holds %s, decided when it runs, so what find does cannot be told", a.src)
			return
		case a.is("-exec", "-execdir", "-ok", "-okdir"):
			j := i + 1
			for j < len(args) && !args[j].is(";") && !(args[j].is("+") && args[j-1].is("{}")) {
				j++
			}
			r.command(args[i+1 : j])
			i = j
		case a.is("-delete"):
			rm := append([]word{lit("rm"), lit("-r"), lit("--")}, starts...)
			r.command(rm)
		case a.is("-fprint", "-fprint0", "-fls", "-fprintf") && i+1 < len(args):
			i++
			r.out.written = append(r.out.written, "> "+args[i].src)
		}
	}
}

// git reads git's arguments: -c, --config-env and --exec-path=DIR make
// the line unseen (git's configuration can run programs: core.fsmonitor,
// core.pager, aliases, hooks); a subcommand that runs commands has them
// read (submodule foreach, rebase --exec, bisect run); git config setting
// a key that is not known to be inert is unseen.
func (r *reader) git(args []word) []word {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case !a.known():
			r.unseenf("git's argument %s is decided when it runs, so what git runs cannot be told", a.src)
			return nil
		case a.text == "-c" || strings.HasPrefix(a.text, "--config-env") || strings.HasPrefix(a.text, "--exec-path="):
			r.unseenf("git %s sets git's configuration for this run, and configuration can make git run any program (core.fsmonitor, core.pager, alias.*)", a.src)
			return nil
		case a.is(gitGlobalValues...):
			i++
		case strings.HasPrefix(a.text, "-"):
		default:
			return r.gitSubcommand(a.text, args[i+1:])
		}
	}
	return nil
}

func (r *reader) gitSubcommand(sub string, args []word) []word {
	for i, a := range args {
		if !a.known() {
			continue
		}
		switch {
		case strings.HasPrefix(a.text, "--upload-pack") || strings.HasPrefix(a.text, "--receive-pack") || a.text == "-u" && (sub == "clone" || sub == "fetch" || sub == "pull" || sub == "ls-remote") || strings.HasPrefix(a.text, "--exec") && sub == "archive":
			r.unseenf("git %s %s names a program git runs", sub, a.src)
		case (a.text == "-c" || a.text == "--config" || strings.HasPrefix(a.text, "--config=")) && (sub == "clone" || sub == "submodule"):
			r.unseenf("git %s %s sets configuration, which can make git run any program", sub, a.src)
		case sub == "rebase" && (a.text == "-x" || a.text == "--exec") && i+1 < len(args):
			r.nestedWord(args[i+1], "git rebase --exec")
		case sub == "rebase" && strings.HasPrefix(a.text, "--exec="):
			r.nested(strings.TrimPrefix(a.text, "--exec="), "sh")
		case sub == "submodule" && a.text == "foreach":
			rest := args[i+1:]
			for len(rest) > 0 && rest[0].is("--recursive", "-q", "--quiet") {
				rest = rest[1:]
			}
			r.joined(rest, "git submodule foreach")
			return nil
		case sub == "bisect" && a.text == "run" && i == 0:
			return args[1:]
		}
	}
	if sub == "config" {
		r.gitConfig(args)
	}
	return nil
}

// inertGitKeys are the git configuration keys that cannot make git run a
// program; git config setting any other is unseen.
var inertGitKeys = regexp.MustCompile(`^(user\.|color\.|init\.defaultbranch$|advice\.|log\.|column\.|help\.|pull\.(rebase|ff)$|push\.(default|autosetupremote|followtags)$|fetch\.(prune|prunetags|parallel)$|rerere\.|merge\.(conflictstyle|ff|log|stat)$|diff\.(algorithm|renames|colormoved|mnemonicprefix|noprefix|context|relative|indentheuristic)$|branch\.[^.]+\.(remote|merge|rebase)$|core\.(autocrlf|eol|filemode|ignorecase|quotepath|whitespace|safecrlf|abbrev|symlinks|precomposeunicode)$|status\.|commit\.(verbose|status|cleanup)$|tag\.sort$|submodule\.recurse$|gc\.auto$)`)

// gitConfig reads git config's arguments: a write of a key that is not
// inert, an edit, or a section renamed is unseen.
func (r *reader) gitConfig(args []word) {
	var operands []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case !a.known():
			r.unseenf("git config's argument %s is decided when it runs", a.src)
			return
		case a.is("--get", "--get-all", "--get-regexp", "--get-urlmatch", "-l", "--list", "--get-color", "--get-colorbool", "--unset", "--unset-all", "--remove-section"):
			return
		case a.is("-e", "--edit", "--rename-section"):
			r.unseenf("git config %s can set any key, and configuration can make git run any program", a.src)
			return
		case a.is("-f", "--file", "--blob", "--type", "--default", "--comment", "--value"):
			i++
		case strings.HasPrefix(a.text, "-"):
		default:
			operands = append(operands, a.text)
		}
	}
	if len(operands) > 0 && (operands[0] == "get" || operands[0] == "list" || operands[0] == "unset" || operands[0] == "remove-section") {
		return
	}
	if len(operands) > 0 && (operands[0] == "set" || operands[0] == "edit" || operands[0] == "rename-section") {
		operands = operands[1:]
		if len(operands) == 0 {
			r.unseenf("git config edit can set any key, and configuration can make git run any program")
			return
		}
	} else if len(operands) < 2 {
		return // a read
	}
	if key := strings.ToLower(operands[0]); !inertGitKeys.MatchString(key) {
		r.unseenf("git config %s sets a key that can make git run a program (or one the judge does not know to be inert)", operands[0])
	}
}

// codeFlags are, for programs that run code given in an argument, the
// options that give it (python -c, perl -e, node --eval, ...).
var codeFlags = map[string]string{
	"python": "c", "perl": "eEmM", "ruby": "e", "node": "ep", "nodejs": "ep", "bun": "e", "php": "rBRE", "lua": "e", "luajit": "e",
	"Rscript": "e", "R": "e", "julia": "eE", "osascript": "e", "expect": "c", "vim": "cS", "vi": "cS", "nvim": "cS", "view": "cS",
	"vimdiff": "cS", "ex": "cS", "gvim": "cS", "nc": "ec", "ncat": "ec", "rsync": "e", "make": "E", "man": "PH", "zip": "",
}

// codeLongs are long options that give code (or a program to run).
var codeLongs = regexp.MustCompile(`^(--?eval|--execute|--print|--cmd|--ex|-ex|-iex|--eval-command|--init-eval-command|--sh-exec|--lua-exec|--rsh|--rsync-path|--to-command|--use-compress-program|--checkpoint-action|--info-script|--new-volume-script|--rsh-command|--rmt-command|--pager|--html|--browser|--unzip-command|-TT|--extcmd|--to-cmd|--cc-cmd|--sendmail-cmd|--header-cmd|-cmd|--source|--include)(=|$)|^\+`)

// runsCode says why argv runs code given in an argument, the judge not
// reading it (python -c, perl -e, awk's program, sed's e command, ssh's
// remote command, source): such a command is asked unless a rule allows
// it by name, whatever the default.
func runsCode(argv []word) string {
	name := program(argv[0])
	if !name.known() {
		return ""
	}
	prog, args := name.text, argv[1:]
	base := strings.TrimRight(prog, "0123456789.")
	switch {
	case prog == "source" || prog == "." || prog == "fc" && !hasWord(args, "-l"):
		return prog + " runs commands the judge does not read"
	case strings.HasSuffix(base, "awk"):
		return awkCode(args)
	case prog == "sed":
		return sedCode(args)
	case prog == "ssh":
		return sshCode(args)
	case prog == "tar" || prog == "git" || prog == "sqlite3" || prog == "socat" || prog == "parallel" || prog == "deno":
		return argCode(prog, args)
	}
	flags, ok := codeFlags[base]
	if !ok {
		flags, ok = codeFlags[prog]
	}
	if !ok {
		return ""
	}
	for _, a := range args {
		if !a.known() || codeLongs.MatchString(a.text) || !strings.HasPrefix(a.text, "--") && strings.HasPrefix(a.text, "-") && strings.ContainsAny(a.text[1:], flags) && flags != "" {
			return prog + " " + a.src + " runs code given in an argument"
		}
	}
	return ""
}

// argCode is the code some programs run from particular arguments.
func argCode(prog string, args []word) string {
	for i, a := range args {
		t := a.text
		switch {
		case !a.known():
			continue
		case prog == "tar" && (codeLongs.MatchString(t) || t == "-I" || t == "-F"),
			prog == "git" && i == 0 && (t == "filter-branch" || t == "difftool" && hasWord(args, "-x", "--extcmd") || t == "send-email" && slicesAnyPrefix(args, "--to-cmd", "--cc-cmd", "--sendmail-cmd", "--header-cmd")),
			prog == "sqlite3" && (strings.HasPrefix(t, ".shell") || strings.HasPrefix(t, ".system") || t == "-cmd"),
			prog == "socat" && (strings.Contains(strings.ToUpper(t), "EXEC:") || strings.Contains(strings.ToUpper(t), "SYSTEM:")),
			prog == "parallel" && i == 0,
			prog == "deno" && i == 0 && (t == "eval" || t == "repl"):
			return prog + " " + a.src + " runs code given in an argument"
		}
	}
	return ""
}

// awkCode: awk's program (the first operand, or -e/--source) can run
// commands (system, a pipe, getline) or write files (>): such a program,
// or one the judge cannot read (-f FILE, a word decided when it runs), or
// an extension (-l), is code.
func awkCode(args []word) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case !a.known():
			return "awk's program " + a.src + " is decided when it runs"
		case a.is("-F", "-v"):
			i++
		case a.is("-f", "--file", "-l", "--load", "-i", "--include") || strings.HasPrefix(a.text, "--file=") || strings.HasPrefix(a.text, "--load="):
			return "awk " + a.src + " runs a program the judge does not read"
		case a.is("-e", "--source") && i+1 < len(args):
			if why := awkProgram(args[i+1]); why != "" {
				return why
			}
			i++
		case a.text == "--":
			if i+1 < len(args) {
				return awkProgram(args[i+1])
			}
			return ""
		case strings.HasPrefix(a.text, "-") && len(a.text) > 1:
		default:
			return awkProgram(a)
		}
	}
	return ""
}

var awkCommands = regexp.MustCompile(`system|getline|[|>@]|ENVIRON|PROCINFO`)

func awkProgram(w word) string {
	if !w.known() {
		return "awk's program " + w.src + " is decided when it runs"
	}
	if awkCommands.MatchString(w.text) {
		return "awk's program " + w.src + " can run commands or write files (system, |, getline, >)"
	}
	return ""
}

// sedCode: a sed script with the e command or flag (it runs a command)
// or w/W (it writes a file), or one the judge cannot read, is code;
// --sandbox refuses those.
func sedCode(args []word) string {
	var scripts []word
	explicit := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.is("--sandbox"):
			return ""
		case a.is("-e", "--expression") && i+1 < len(args):
			scripts, explicit = append(scripts, args[i+1]), true
			i++
		case a.known() && strings.HasPrefix(a.text, "--expression="):
			scripts, explicit = append(scripts, lit(strings.TrimPrefix(a.text, "--expression="))), true
		case a.is("-f", "--file") || a.known() && strings.HasPrefix(a.text, "--file="):
			return "sed " + a.src + " runs a script the judge does not read"
		case a.known() && strings.HasPrefix(a.text, "-") && !strings.HasPrefix(a.text, "--") && len(a.text) > 1:
			j := strings.IndexAny(a.text[1:], "efl")
			if j < 0 || strings.Contains(a.text[1:1+j], "i") {
				continue // flags; -i's suffix is attached
			}
			switch rest := a.text[2+j:]; {
			case a.text[1+j] == 'f':
				return "sed " + a.src + " runs a script the judge does not read"
			case a.text[1+j] == 'l' && rest == "":
				i++
			case a.text[1+j] == 'e' && rest != "":
				scripts, explicit = append(scripts, lit(rest)), true
			case a.text[1+j] == 'e' && i+1 < len(args):
				scripts, explicit = append(scripts, args[i+1]), true
				i++
			}
		case a.known() && strings.HasPrefix(a.text, "-"):
		case !explicit && len(scripts) == 0:
			scripts = append(scripts, a)
		}
	}
	for _, s := range scripts {
		if !s.known() {
			return "sed's script " + s.src + " is decided when it runs"
		}
		if sedRuns(s.text) {
			return "sed's script " + s.src + " runs a command or writes a file (e, w)"
		}
	}
	return ""
}

// sedRuns reports whether a sed script has an e or w/W command, or an s
// command with the e or w flag.
func sedRuns(script string) bool {
	i := 0
	for i < len(script) {
		i = skipAddress(script, i)
		if i >= len(script) {
			return false
		}
		switch c := script[i]; c {
		case 'e', 'w', 'W':
			return true
		case 's', 'y':
			end, ok := skipDelimited(script, i+1, 2)
			if !ok {
				return true // unclosed: cannot tell
			}
			i = end
			for i < len(script) && !strings.ContainsRune(";\n}", rune(script[i])) {
				if c == 's' && (script[i] == 'e' || script[i] == 'w') {
					return true
				}
				i++
			}
		case 'a', 'i', 'c', 'r', 'R', 'b', 't', 'T', ':', 'q', 'Q', 'l', 'L':
			for i < len(script) && script[i] != '\n' && (script[i] != ';' || strings.ContainsRune("aicrR", rune(c))) {
				i++
			}
		default:
			i++
		}
	}
	return false
}

// skipAddress skips blanks, separators and a sed address at i.
func skipAddress(s string, i int) int {
	for i < len(s) {
		switch c := s[i]; {
		case strings.ContainsRune(" \t\n;{}!,~$+0123456789", rune(c)):
			i++
		case c == '/':
			end, ok := skipDelimited(s, i, 1)
			if !ok {
				return len(s)
			}
			i = end
		case c == '\\' && i+1 < len(s):
			end, ok := skipDelimited(s, i+1, 1)
			if !ok {
				return len(s)
			}
			i = end
		case c == 'I' || c == 'M':
			i++
		default:
			return i
		}
	}
	return i
}

// skipDelimited skips n fields after the delimiter at s[i]: the offset
// after the last delimiter.
func skipDelimited(s string, i, n int) (int, bool) {
	if i >= len(s) {
		return 0, false
	}
	d := s[i]
	i++
	for ; i < len(s) && n > 0; i++ {
		switch s[i] {
		case '\\':
			i++
		case d:
			n--
		}
	}
	return i, n == 0
}

// sshCode: ssh with a command for the remote host runs code this host's
// rules do not judge; -o with a *Command option or -F runs a local one.
func sshCode(args []word) string {
	dest := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case !a.known():
			return "ssh's argument " + a.src + " is decided when it runs"
		case dest:
			return "ssh runs " + a.src + " on another host, where this host's rules do not judge it"
		case strings.HasPrefix(a.text, "-o"):
			v := a.text[2:]
			if v == "" && i+1 < len(args) {
				i++
				if !args[i].known() {
					return "ssh's option " + args[i].src + " is decided when it runs"
				}
				v = args[i].text
			}
			if strings.Contains(strings.ToLower(v), "command") || strings.Contains(strings.ToLower(v), "proxyusefdpass") {
				return "ssh -o " + v + " runs a local command"
			}
		case a.text == "-F":
			return "ssh -F reads a configuration that can run local commands"
		case strings.HasPrefix(a.text, "-") && len(a.text) == 2 && strings.Contains("BbcDEeFIiJLlmOopPQRSWw", a.text[1:]):
			i++
		case strings.HasPrefix(a.text, "-"):
		default:
			dest = true
		}
	}
	return ""
}

func hasWord(ws []word, s ...string) bool {
	for _, w := range ws {
		if w.is(s...) {
			return true
		}
	}
	return false
}

func slicesAnyPrefix(ws []word, prefixes ...string) bool {
	for _, w := range ws {
		for _, p := range prefixes {
			if w.known() && strings.HasPrefix(w.text, p) {
				return true
			}
		}
	}
	return false
}
