// Package policy decides whether a command may run without asking a person:
// an ordered list of allow/ask/deny rules matched by regular expression
// against the command text, the pane's current program and its directory,
// first match wins, and a default for everything else. It knows nothing of
// tmux or MCP; rules are Go (RE2) regular expressions, so a rule can never
// take exponential time.
package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
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

	command, program, cwd *regexp.Regexp
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
		if r.program, err = compile(r.Name, "program", r.Program); err != nil {
			return nil, err
		}
		if r.cwd, err = compile(r.Name, "cwd", r.CWD); err != nil {
			return nil, err
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
		return nil, fmt.Errorf("policy file %s: %w (a file holds {\"rules\": [{\"name\", \"action\", \"command\", \"program\", \"cwd\"}]})", path, err)
	}
	p, err := New(def, f.Rules)
	if err != nil {
		return nil, fmt.Errorf("policy file %s: %w", path, err)
	}
	return p, nil
}

// Subject is what a decision is about.
type Subject struct {
	Command string // the text that will be submitted
	Program string // the pane's current program, e.g. bash
	CWD     string // the pane's current directory
}

// Decide returns the action for s and what decided it: a rule's name, or
// "default".
func (p *Policy) Decide(s Subject) (Action, string) {
	for _, r := range p.rules {
		if match(r.command, s.Command) && match(r.program, s.Program) && match(r.cwd, s.CWD) {
			return r.Action, r.Name
		}
	}
	return p.def, "default"
}

func match(re *regexp.Regexp, s string) bool { return re == nil || re.MatchString(s) }
