package approval

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tmuxmcp/tmuxmcp/policy"
)

// Decision is how a request was decided, as results and the audit log say.
type Decision string

// The decisions.
const (
	AutoApproved  Decision = "auto-approved"  // the policy allows it
	Approved      Decision = "approved"       // a person allowed it
	Blocked       Decision = "blocked"        // the policy denies it
	Ask           Decision = "ask"            // a person must decide (not final)
	Pending       Decision = "pending"        // a person is being asked
	Denied        Decision = "denied"         // a person refused it
	DeniedTimeout Decision = "denied-timeout" // nobody answered in time
	DeniedError   Decision = "denied-error"   // asking failed
	Rejected      Decision = "rejected"       // withdrawn, or nobody could be asked
)

// Reported returns the decisions a job's result can carry (Ask is never
// final, so never reported), in the order docs list them.
func Reported() []Decision {
	return []Decision{Approved, AutoApproved, Pending, Denied, DeniedTimeout, DeniedError, Blocked, Rejected}
}

// Runs reports whether the decision lets the input run.
func (d Decision) Runs() bool { return d == AutoApproved || d == Approved }

// Subject is what is about to run.
type Subject struct {
	// Line is the text that will be submitted (a command line, a line
	// typed into a program).
	Line string
	// Shell is the shell whose language Line is in (bash, zsh, fish, sh,
	// dash, mksh, ...), or "" when a program that is not a shell reads it
	// (a REPL, an editor).
	Shell string
	// Program is the program it runs in (the pane's current program, or
	// argv[0] for create_pane).
	Program string
	// CWD is the directory it runs in, resolved where it is (see
	// ResolveDir).
	CWD string
	// CWDUnresolved says CWD could not be resolved where it is (a remote
	// host that did not answer): under a policy with cwd rules the line is
	// then judged no better than ask, since a rule about the directory
	// could not be applied.
	CWDUnresolved bool
	// Host is the host it runs on: "local" (this machine, also when
	// empty) or the name given with --host. Rules with a host field
	// apply only on the hosts they match.
	Host string
	// Env is the environment create_pane sets for it.
	Env map[string]string
	// Screen says Line was read from the screen, prompt and all: when it
	// does not parse it is judged as written, not asked.
	Screen bool
	// Typed says Line is typed into a line editor (type_text, send_keys),
	// where bash and zsh apply history expansion (!-1, !!:gs/x/y/, ^a^b)
	// before parsing: a line using it is not what it reads as.
	Typed bool
}

// Verdict is a policy's answer about a subject.
type Verdict struct {
	Action policy.Action
	// By names what decided: "policy:<rule>", "policy:default",
	// "policy:unparsed" or "policy:env".
	By string
	// Why says, for a refusal that is not a rule's, what to do.
	Why string
	// Commands are the simple commands judged.
	Commands []string
}

// Judge applies p to s. Every simple command of the line is judged: the
// line is allowed only when each is, denied when any is denied (or a deny
// rule matches the whole line, for rules written across a pipeline), and
// asked when any is asked. A line of a shell that does not parse is asked
// (denied when the default is deny). Environment variables that run code
// or change what runs are denied unless an env rule allows them by name.
func Judge(p *policy.Policy, s Subject) Verdict {
	if v, ok := judgeEnv(p, s.Host, s.Env); ok {
		return v
	}
	rd, err := read(s.Line, shellOr(s.Shell), 0)
	var cmds []string
	if err == nil {
		cmds = rd.written
	} else {
		rd = &reading{}
	}
	if s.Shell == "" && err == nil {
		// Not a shell: judged part by part below, in every shell's reading.
		err, cmds = &ParseError{Line: s.Line, Err: errors.New("not read by a shell")}, nil
	}
	if err == nil && s.Typed && s.Shell != "fish" && historyExpands(s.Line) {
		err = &ParseError{Line: s.Line, Err: errors.New("it uses history expansion (! or a leading ^), so the shell runs another line than the one typed")}
		cmds = nil
	}
	var raw []string // text judged as written: its commands could not be told
	var pe *ParseError
	if errors.As(err, &pe) {
		if s.Shell != "" && !s.Screen {
			a := policy.Ask
			if p.Default() == policy.Deny {
				a = policy.Deny
			}
			if r, ok := p.Match(s.policySubject(s.Line, false), policy.Deny); ok {
				return Verdict{Action: policy.Deny, By: "policy:" + r.Name}
			}
			return Verdict{Action: a, By: "policy:unparsed", Why: pe.Error()}
		}
		// A program that is not a shell (or the screen's rendering of a
		// line, prompt and all): its lines are judged as written, and each
		// line that reads as shell (typed ahead of a shell that will read
		// it) by its commands.
		// A line is split wherever a key could end what reads it (a
		// newline, CR, ^D, ^C): a shell may read each part.
		cmds = nil
		for _, l := range strings.FieldsFunc(s.Line, func(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f }) {
			if c, ok := everyShell(l); ok && len(c.written) > 0 {
				cmds = append(cmds, c.written...)
				rd.merge(c)
			} else if strings.TrimSpace(l) != "" {
				raw = append(raw, strings.TrimSpace(l))
			}
		}
	}
	if len(cmds) == 0 && len(raw) == 0 {
		cmds = []string{strings.TrimSpace(s.Line)} // nothing runs: the default decides
	}
	v := Verdict{Action: policy.Allow, Commands: append(slices.Clone(cmds), raw...)}
	rank := map[policy.Action]int{policy.Allow: 0, policy.Ask: 1, policy.Deny: 2}
	judge := func(c string, isRaw bool) {
		a, rule := p.Decide(s.policySubject(c, isRaw))
		if rank[a] > rank[v.Action] || v.By == "" {
			v.Action, v.By = a, "policy:"+rule
		}
	}
	for _, c := range cmds {
		judge(c, false)
	}
	for _, c := range raw {
		judge(c, true)
	}
	// Deny and ask rules written for a whole line (curl … | sh).
	whole := s.policySubject(s.Line, false)
	for _, a := range []policy.Action{policy.Deny, policy.Ask} {
		if rank[v.Action] >= rank[a] {
			break
		}
		if r, ok := p.Match(whole, a); ok {
			v.Action, v.By = a, "policy:"+r.Name
		}
	}
	judgeUnseen(p, s, rd, &v)
	if s.CWDUnresolved && v.Action == policy.Allow && p.HasCWDRules() {
		v.Action, v.By, v.Why = policy.Ask, "policy:unresolved-cwd", "its directory "+s.CWD+" could not be resolved on its host, so the policy's cwd rules could not be applied"
	}
	return v
}

// policySubject is the policy's subject for command, one of s's commands
// (or its whole line), judged as written when raw.
func (s Subject) policySubject(command string, raw bool) policy.Subject {
	return policy.Subject{Command: command, Program: s.Program, CWD: s.CWD, Host: s.Host, Raw: raw}
}

// everyShell is the commands of a line some shell may read later (typed
// ahead of the pane's shell, whichever it is): ok only when bash, zsh and
// fish would each read it as the grammar does, and without history
// expansion.
func everyShell(line string) (*reading, bool) {
	if historyExpands(line) {
		return nil, false
	}
	out := &reading{}
	for _, sh := range []string{"bash", "zsh", "fish"} {
		rd, err := read(line, sh, 0)
		if err != nil {
			return nil, false
		}
		out.merge(rd)
	}
	return out, true
}

// judgeUnseen raises v for what the written commands do not show: a deny
// or ask rule matching a command's canonical form (through a hole, a
// word decided when it runs: asked), a command that runs code given in an
// argument that no rule allows by name (asked), and a line whose meaning
// is decided when it runs (asked). Under a default of deny, asked is
// denied.
func judgeUnseen(p *policy.Policy, s Subject, rd *reading, v *Verdict) {
	rank := map[policy.Action]int{policy.Allow: 0, policy.Ask: 1, policy.Deny: 2}
	ask := policy.Ask
	if p.Default() == policy.Deny {
		ask = policy.Deny
	}
	raise := func(a policy.Action, by, why string) {
		if rank[a] > rank[v.Action] {
			v.Action, v.By, v.Why = a, by, why
		}
	}
	for _, f := range rd.forms {
		plain := s.policySubject(f.text, false)
		if r, ok := p.Match(plain, policy.Deny, policy.Ask); ok {
			raise(r.Action, "policy:"+r.Name, "")
			continue
		}
		withHoles := plain
		withHoles.Holes = f.holes
		if r, ok := p.Match(withHoles, policy.Deny, policy.Ask); ok && len(f.holes) > 0 {
			raise(ask, "policy:"+r.Name, fmt.Sprintf("a word decided when it runs could make %q match rule %q", strings.ReplaceAll(f.text, "\n", " "), r.Name))
		}
	}
	for _, c := range rd.code {
		if a, rule := p.Decide(s.policySubject(c.text, false)); a == policy.Allow && rule == "default" {
			raise(policy.Ask, "policy:runs-code", c.why+"; a rule that allows it by name lets it run")
		}
	}
	if len(rd.defines) > 0 {
		raise(ask, "policy:unseen", rd.defines[0]+": a definition is judged as what it is, never by a rule that matches its body, so a person decides")
	}
	unseen := rd.unseen
	for _, a := range rd.assigned {
		if _, ok := s.Env[a[0]]; !ok {
			unseen = append(unseen, a[1])
		}
	}
	if namesIntegration(s.Line) {
		unseen = append(unseen, "it names tmuxmcp's own shell integration (__tmuxmcp…), whose marks and hooks tell when a command ended and its status")
	}
	if len(unseen) > 0 {
		raise(ask, "policy:unseen", unseen[0]+": what runs cannot be seen before it runs, so a person decides (write the value out, or run it as a script a rule allows)")
	}
}

// namesIntegration reports whether line names the variables or functions
// of tmuxmcp's shell integration, however quoted ("__tmux"mcp_tag): code
// that reads or redefines them could print a command's end mark, or make
// every later command's. The rules see the line as written; this sees
// through quotes and backslashes.
func namesIntegration(line string) bool {
	bare := strings.Map(func(r rune) rune {
		if r == '"' || r == '\'' || r == '\\' {
			return -1
		}
		return r
	}, line)
	return strings.Contains(bare, "__tmuxmcp") || strings.Contains(bare, "TMUXMCP_")
}

// historyExpands reports whether an interactive bash or zsh would apply
// history expansion to line: a ! outside single quotes followed by
// anything but a blank or = (zsh's !" too: it deletes itself and changes
// the line), or a ^ that starts the line. $'…' is read with its escapes,
// as zsh reads it.
func historyExpands(line string) bool {
	if strings.HasPrefix(strings.TrimLeft(line, " \t"), "^") {
		return true
	}
	single, ansi, double := false, false, false
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case ansi:
			if c == '\\' {
				i++
			} else if c == '\'' {
				ansi = false
			}
		case single:
			single = c != '\''
		case c == '$' && !double && i+1 < len(line) && line[i+1] == '\'':
			ansi = true
			i++
		case c == '\'' && !double:
			single = true
		case c == '"':
			double = !double
		case c == '\\':
			i++
		case c == '!' && i+1 < len(line) && !strings.ContainsRune(" \t\n=", rune(line[i+1])):
			return true
		}
	}
	return false
}

func shellOr(s string) string {
	if s == "" {
		return "bash"
	}
	return s
}

// judgeEnv judges create_pane's environment on host: an env rule decides
// a variable by name (and host); without one, a variable that runs code or
// changes what runs is denied.
func judgeEnv(p *policy.Policy, host string, env map[string]string) (Verdict, bool) {
	names := make([]string, 0, len(env))
	for n := range env {
		names = append(names, n)
	}
	slices.Sort(names)
	var ask *Verdict
	for _, n := range names {
		a, rule, ok := p.DecideEnv(policy.Variable{Name: n, Host: host})
		switch {
		case ok && a == policy.Deny:
			return Verdict{Action: policy.Deny, By: "policy:" + rule}, true
		case ok && a == policy.Ask && ask == nil:
			ask = &Verdict{Action: policy.Ask, By: "policy:" + rule}
		case !ok && RunsCode(n):
			return Verdict{Action: policy.Deny, By: "policy:env", Why: fmt.Sprintf("env %s runs code or changes what runs (the shell's hooks, the loader, the search path, git's configuration), so under a command policy it needs a rule that allows it by name: {\"action\": \"allow\", \"env\": \"^%s$\"}", n, n)}, true
		}
	}
	if ask != nil {
		return *ask, true
	}
	return Verdict{}, false
}

// codeVars are variables that run code or change what runs.
var codeVars = map[string]bool{
	"PROMPT_COMMAND": true, "PS0": true, "PS1": true, "PS2": true, "PS3": true, "PS4": true, "PROMPT": true, "RPROMPT": true,
	"BASH_ENV": true, "ENV": true, "ZDOTDIR": true, "SHELLOPTS": true, "BASHOPTS": true, "IFS": true, "CDPATH": true,
	"HISTFILE": true, "HOME": true, "SHELL": true, "INPUTRC": true, "XDG_CONFIG_HOME": true, "XDG_DATA_DIRS": true,
	"LD_PRELOAD": true, "LD_LIBRARY_PATH": true, "LD_AUDIT": true, "PATH": true, "MANPAGER": true, "PAGER": true, "EDITOR": true, "VISUAL": true,
	"GIT_SSH": true, "GIT_EXEC_PATH": true, "GIT_TEMPLATE_DIR": true, "GIT_ASKPASS": true, "SSH_ASKPASS": true, "SUDO_ASKPASS": true,
	"PYTHONSTARTUP": true, "PYTHONPATH": true, "PYTHONHOME": true, "PYTHONINSPECT": true, "NODE_OPTIONS": true, "NODE_PATH": true,
	"PERL5OPT": true, "PERL5LIB": true, "PERLLIB": true, "RUBYOPT": true, "RUBYLIB": true, "JAVA_TOOL_OPTIONS": true, "_JAVA_OPTIONS": true,
	"LESSOPEN": true, "LESSCLOSE": true, "TMUX": true, "TMUX_TMPDIR": true, "FPATH": true, "fish_function_path": true,
}

// RunsCode reports whether an environment variable runs code or changes
// what runs: the shell's hooks and startup files, the dynamic loader, the
// search paths, git's commands and configuration, interpreters' startup
// options.
func RunsCode(name string) bool {
	if codeVars[name] {
		return true
	}
	switch {
	case strings.HasPrefix(name, "GIT_CONFIG"), strings.HasPrefix(name, "GIT_") && strings.HasSuffix(name, "_COMMAND"),
		strings.HasPrefix(name, "LD_"), strings.HasPrefix(name, "DYLD_"), strings.HasPrefix(name, "BASH_FUNC_"),
		strings.HasSuffix(name, "_OPTIONS") && strings.HasPrefix(name, "NODE"), strings.HasPrefix(name, "PYTHON"):
		return true
	}
	return false
}

// DirResolver resolves a directory's symbolic links on the machine the
// directory is on (a machine.Machine does).
type DirResolver interface {
	ResolveDir(ctx context.Context, dir string) (string, error)
}

// ResolveDir is dir as it is judged and shown: cleaned (no "..", "//"),
// with its symbolic links resolved by r on the machine the directory is
// on (a directory that does not exist yet: the part that does), so a rule
// about a directory cannot be walked around. When r cannot resolve it (or
// is nil), the cleaned path is kept: never a resolution made on another
// machine.
func ResolveDir(ctx context.Context, r DirResolver, dir string) string {
	if dir == "" {
		return ""
	}
	clean := filepath.Clean(dir)
	if r == nil {
		return clean
	}
	real, err := r.ResolveDir(ctx, clean)
	if err != nil || real == "" || filepath.IsAbs(clean) && !filepath.IsAbs(real) {
		return clean
	}
	return filepath.Clean(real)
}
