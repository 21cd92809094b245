// Package policy holds the approval rules: an ordered list of allow/ask/deny
// rules matched by regular expression against one command's text, the
// program it runs in, its directory and the host it runs on (or an
// environment variable's name and the host), first match wins, and a
// default for everything else. It matches
// one subject at a time; splitting a command line into the simple commands
// it runs is approval's job. It knows nothing of tmux or MCP; rules are Go
// (RE2) regular expressions, so a rule can never take exponential time.
package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"regexp/syntax"
	"slices"
)

// Action is what a rule or the default says.
type Action string

// The actions.
const (
	Allow Action = "allow"
	Ask   Action = "ask"
	Deny  Action = "deny"
)

// ParseAction parses a --approval value: auto (= allow), ask or deny.
func ParseAction(s string) (Action, error) {
	switch s {
	case "auto", "allow":
		return Allow, nil
	case "ask":
		return Ask, nil
	case "deny":
		return Deny, nil
	}
	return "", fmt.Errorf("approval %q: use auto, ask or deny", s)
}

// Rule is one entry of a policy file.
type Rule struct {
	// Name identifies the rule in the audit log; default "rule N".
	Name   string `json:"name,omitempty"`
	Action Action `json:"action"`
	// Command, Program and CWD are regular expressions; an empty one
	// matches anything. All given ones must match.
	Command string `json:"command,omitempty"`
	Program string `json:"program,omitempty"`
	CWD     string `json:"cwd,omitempty"`
	// Host is a regular expression over the name of the host the command
	// (or variable) is for: "local" for this machine, else the name given
	// with --host. A rule with Host applies only on the hosts it matches;
	// an empty one matches every host. It is unanchored like the others:
	// "^prod$" is host prod only, "prod" also preprod.
	Host string `json:"host,omitempty"`
	// Env matches the names of environment variables create_pane sets; a
	// rule with Env judges variables only, never commands (Host may go
	// with it). An allow rule is the only way a variable that runs code or
	// changes what runs (PROMPT_COMMAND, LD_PRELOAD, PATH, GIT_CONFIG_*,
	// ...) is let through.
	Env string `json:"env,omitempty"`

	command, program, cwd, host, env *regexp.Regexp
	commandProg                      *syntax.Prog // command, for subjects with holes
}

// File is the JSON form of a policy file.
type File struct {
	Rules []Rule `json:"rules"`
}

// Policy is a compiled rule list with a default.
type Policy struct {
	def   Action
	rules []Rule
}

// New returns a policy of rules (compiled here) with default def.
func New(def Action, rules []Rule) (*Policy, error) {
	p := &Policy{def: def}
	for i, r := range rules {
		if r.Name == "" {
			r.Name = fmt.Sprintf("rule %d", i+1)
		}
		switch r.Action {
		case Allow, Ask, Deny:
		default:
			return nil, fmt.Errorf("%s: action %q: use allow, ask or deny", r.Name, r.Action)
		}
		var err error
		if r.command, err = compile(r.Name, "command", r.Command); err != nil {
			return nil, err
		}
		if r.command != nil {
			if r.commandProg, err = holeProg(r.Command); err != nil {
				return nil, fmt.Errorf("%s: command %q: %w", r.Name, r.Command, err)
			}
		}
		if r.program, err = compile(r.Name, "program", r.Program); err != nil {
			return nil, err
		}
		if r.cwd, err = compile(r.Name, "cwd", r.CWD); err != nil {
			return nil, err
		}
		if r.host, err = compile(r.Name, "host", r.Host); err != nil {
			return nil, err
		}
		if r.env, err = compile(r.Name, "env", r.Env); err != nil {
			return nil, err
		}
		if r.env != nil && (r.command != nil || r.program != nil || r.cwd != nil) {
			return nil, fmt.Errorf("%s: env judges variable names (and hosts) only; put command, program and cwd in another rule", r.Name)
		}
		p.rules = append(p.rules, r)
	}
	return p, nil
}

func compile(rule, field, expr string) (*regexp.Regexp, error) {
	if expr == "" {
		return nil, nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("%s: %s %q is not a valid regular expression: %w", rule, field, expr, err)
	}
	return re, nil
}

// Load reads a JSON policy file ({"rules": [...]}) with default def.
func Load(path string, def Action) (*Policy, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("policy file: %w", err)
	}
	var f File
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields() // a misspelt "comand" must not widen a rule to everything
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("policy file %s: %w (a file holds {\"rules\": [{\"name\", \"action\", \"command\", \"program\", \"cwd\", \"host\", \"env\"}]})", path, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		// A second document (two files pasted together) would be
		// ignored: its rules would silently not apply.
		return nil, fmt.Errorf("policy file %s: more follows the policy's JSON object at offset %d: keep one {\"rules\": [...]} object and put every rule in it", path, dec.InputOffset())
	}
	p, err := New(def, f.Rules)
	if err != nil {
		return nil, fmt.Errorf("policy file %s: %w", path, err)
	}
	return p, nil
}

// LocalHost is the name of the host tmuxmcp runs on, as rules match it.
const LocalHost = "local"

// Subject is what a decision is about.
type Subject struct {
	Command string // one simple command, or a whole line (see Match)
	Program string // the program it runs in, e.g. bash
	CWD     string // the directory it runs in
	// Host is the host it runs on: a --host name, or LocalHost (also
	// when empty).
	Host string
	// Raw says Command is text whose commands could not be told (a line
	// typed into a program that is not a shell): an allow rule approves it
	// only when it names the program, never by its command pattern alone.
	Raw bool
	// Holes are byte offsets in Command where a word (or part of one)
	// decided at run time stands: a hole is any text at all. A command
	// rule matches such a subject when some text in the holes makes it
	// match, so only deny and ask rules ever match one: an allow rule
	// cannot know what it would approve.
	Holes []int
}

// HasCWDRules reports whether a rule looks at the directory.
func (p *Policy) HasCWDRules() bool {
	for _, r := range p.rules {
		if r.cwd != nil {
			return true
		}
	}
	return false
}

// Default is what the policy says when no rule matches.
func (p *Policy) Default() Action { return p.def }

// Decide returns the action of the first command rule matching s, or the
// default, and what decided it: a rule's name, or "default".
func (p *Policy) Decide(s Subject) (Action, string) {
	if r, ok := p.Match(s, Allow, Ask, Deny); ok {
		return r.Action, r.Name
	}
	return p.def, "default"
}

// Match returns the first command rule with one of actions that matches s.
func (p *Policy) Match(s Subject, actions ...Action) (Rule, bool) {
	for _, r := range p.rules {
		if s.Raw && r.Action == Allow && r.program == nil || len(s.Holes) > 0 && r.Action == Allow {
			continue
		}
		if r.env == nil && slices.Contains(actions, r.Action) && r.matches(s) {
			return r, true
		}
	}
	return Rule{}, false
}

// matches reports whether every field r gives matches s.
func (r Rule) matches(s Subject) bool {
	command := match(r.command, s.Command)
	if !command && len(s.Holes) > 0 {
		command = mayMatch(r.commandProg, s.Command, s.Holes)
	}
	return command && match(r.program, s.Program) && match(r.cwd, s.CWD) && match(r.host, hostName(s.Host))
}

// Variable is an environment variable a decision is about.
type Variable struct {
	Name string // the variable's name, e.g. PATH
	// Host is the host it is set on: a --host name, or LocalHost (also
	// when empty).
	Host string
}

// DecideEnv returns the action of the first env rule matching the
// variable's name and host, and the rule's name; ok is false when none
// does.
func (p *Policy) DecideEnv(v Variable) (action Action, rule string, ok bool) {
	for _, r := range p.rules {
		if r.env != nil && r.env.MatchString(v.Name) && match(r.host, hostName(v.Host)) {
			return r.Action, r.Name, true
		}
	}
	return "", "", false
}

func match(re *regexp.Regexp, s string) bool { return re == nil || re.MatchString(s) }

// hostName is the host a subject names, LocalHost when it names none.
func hostName(h string) string {
	if h == "" {
		return LocalHost
	}
	return h
}
