package approval

import (
	"strings"
	"testing"

	"github.com/tmuxmcp/tmuxmcp/policy"
)

// echoLs is the policy of attack round 4: only echo and ls allowed,
// everything else denied (--approval deny).
func echoLs(t testing.TB, def policy.Action) *policy.Policy {
	return docsPolicy(t, def, `^echo\b`, `^ls\b`)
}

// A definition changes what a later allowed line runs, so it is judged as
// what it is: asked (denied under a default of deny), whatever rule
// matches its body, with a reason that names it.
func TestADefinitionIsJudgedAsWhatItIsNotByItsBody(t *testing.T) {
	cases := []struct {
		line, shell, why string
	}{
		// Attack round 4, finding 1: the job scripts' own command, printf.
		{`command() { echo 'touch /tmp/PWNED; id > /tmp/PWNED'; }`, "bash", "defines a function named command, which would change what later commands run"},
		{`printf() { echo x; }`, "bash", "defines a function named printf"},
		{`function cat { echo x; }`, "bash", "defines a function named cat"},
		{`function rm() { echo x; }`, "bash", "defines a function named rm"},
		{`eval() { echo x; }`, "bash", "defines a function named eval"},
		{`read() { echo x; }`, "bash", "defines a function named read"},
		{`builtin() { echo x; }`, "bash", "defines a function named builtin"},
		{`.() { echo x; }`, "bash", "defines a function named ."},
		{`[() { echo x; }`, "bash", "defines a function named ["},
		{`trap() { echo x; }`, "bash", "defines a function named trap"},
		{`set() { echo x; }`, "bash", "defines a function named set"},
		{`type() { echo x; }`, "bash", "defines a function named type"},
		{`source() { echo x; }`, "bash", "defines a function named source"},
		// Any name: a later allowed ls would run the body.
		{`ls() { echo x; }`, "bash", "defines a function named ls"},
		{`my_helper() { echo x; }`, "bash", "defines a function named my_helper"},
		{`echo a; ls() ( echo x )`, "bash", "defines a function named ls"},
		{`ls() [[ -n x ]]`, "bash", "defines a function named ls"},
		// Hooks the shell runs by itself.
		{`command_not_found_handle() { echo x; }`, "bash", "the shell runs a function named command_not_found_handle by itself"},
		{`precmd() { echo x; }`, "zsh", "defines a function named precmd"},
		{`TRAPDEBUG() { echo x; }`, "zsh", "defines a function named TRAPDEBUG"},
		{`printf() { echo x; }`, "zsh", "defines a function named printf"},
		{`printf() { echo x; }`, "sh", "defines a function named printf"},
		{`printf() { echo x; }`, "mksh", "defines a function named printf"},
		// Inside what runs in this shell.
		{`eval 'command() { echo x; }'`, "bash", "defines a function named command"},
		{`echo a && { cat() { echo x; }; }`, "bash", "defines a function named cat"},
		{`if true; then printf() { echo x; }; fi`, "bash", "defines a function named printf"},
		// Aliases.
		{`alias ls='echo hi'`, "bash", "defines an alias named ls"},
		{`alias command='echo '`, "bash", "defines an alias named command"},
		{`alias -g printf=echo`, "zsh", "defines an alias named printf"},
		{`alias -s txt=echo`, "zsh", "defines an alias named txt"},
		{`alias ls 'echo hi'`, "fish", "defines an alias named ls"},
		{`alias a=echo b=echo`, "bash", "defines an alias named a"},
		{`builtin alias cat=echo`, "bash", "defines an alias named cat"},
		{`command alias cat=echo`, "bash", "defines an alias named cat"},
		// Removing a definition (a user's safety wrapper), turning builtins off.
		{`unalias rm`, "bash", "unalias rm removes a definition"},
		{`unset -f rm`, "bash", "unset rm removes the function named rm"},
		{`unset -f my_helper`, "bash", "removes the function named my_helper"},
		{`unset printf`, "bash", "removes the function named printf"},
		{`unfunction cd`, "zsh", "unfunction cd removes a definition"},
		{`unhash -f cd`, "zsh", "unhash cd removes a definition"},
		{`enable -n printf`, "bash", "enable printf turns a builtin"},
		{`enable -p -n printf`, "bash", "enable printf turns a builtin"},
		{`enable -f /tmp/x.so printf`, "bash", "turns a builtin"},
		{`disable -r if`, "zsh", "disable if turns a builtin"},
		{`disable -f cd`, "zsh", "disable cd turns"},
		{`functions -c cd command`, "zsh", "functions -c copies"},
		{`functions --copy ls command`, "fish", "functions --copy copies"},
		{`functions -e fish_prompt`, "fish", "functions -e copies, erases"},
		{`autoload -Uz printf`, "zsh", "autoload loads or saves functions"},
		{`funcsave ls`, "fish", "funcsave loads or saves functions"},
		// Which file a name runs.
		{`hash -p /tmp/evil ls`, "bash", "hash -p changes which file a command name runs"},
		{`hash ls=/tmp/evil`, "zsh", "hash ls=/tmp/evil changes which file"},
		// Code that runs inside every later command, tmuxmcp's own too.
		{`trap 'echo x' DEBUG`, "bash", "runs its action inside every later command"},
		{`trap 'echo x' RETURN`, "bash", "runs its action inside every later command"},
	}
	for _, def := range []policy.Action{policy.Allow, policy.Deny} {
		p := echoLs(t, def)
		want := policy.Ask
		if def == policy.Deny {
			want = policy.Deny
		}
		for _, c := range cases {
			v := Judge(p, Subject{Line: c.line, Shell: c.shell})
			// Under a default of deny a line whose own command no rule
			// allows (alias, unset) is denied by the default first.
			if v.Action != want || (v.By != "policy:unseen" || !strings.Contains(v.Why, c.why)) && !(def == policy.Deny && v.By == "policy:default") {
				t.Errorf("default %s, %s %q: %s by %s (%s), want %s by policy:unseen naming %q", def, c.shell, c.line, v.Action, v.By, v.Why, want, c.why)
			}
		}
	}
}

// A definition is refused even under allow-by-default when the deny rules
// would not match, and the reason says what to ask about; lines that only
// read definitions stay allowed.
func TestLinesThatOnlyReadDefinitionsStayAllowed(t *testing.T) {
	p := docsPolicy(t, policy.Allow)
	for _, c := range []struct{ line, shell string }{
		{`alias`, "bash"},
		{`alias ll`, "bash"},
		{`alias -p`, "bash"},
		{`declare -f`, "bash"},
		{`declare -F my_helper`, "bash"},
		{`typeset -f ls`, "zsh"},
		{`type -t ls`, "bash"},
		{`command -v ls`, "bash"},
		{`functions`, "fish"},
		{`functions -q ls`, "fish"},
		{`enable`, "bash"},
		{`enable -p`, "bash"},
		{`enable -a`, "bash"},
		{`hash`, "bash"},
		{`hash -r`, "bash"},
		{`unset FOO`, "bash"},
		{`unset -v FOO`, "bash"},
		{`trap 'rm -f /tmp/x' EXIT`, "bash"},
		{`trap - DEBUG`, "bash"},
		{`trap -p`, "bash"},
		{`bind -p`, "bash"},
		{`echo 'f() { :; }'`, "bash"},
	} {
		if v := Judge(p, Subject{Line: c.line, Shell: c.shell}); v.Action != policy.Allow {
			t.Errorf("%s %q: %s by %s (%s), want allow", c.shell, c.line, v.Action, v.By, v.Why)
		}
	}
}

// Variables that hold definitions (zsh's functions, aliases and commands
// tables, bash's BASH_ALIASES and BASH_CMDS) are definitions too.
func TestAssigningADefinitionTableIsAsked(t *testing.T) {
	p := echoLs(t, policy.Allow)
	for _, c := range []struct{ line, shell string }{
		{`functions[command]='echo x'`, "zsh"},
		{`functions['command']='echo x'`, "zsh"},
		{`functions+=([command]='echo x')`, "zsh"},
		{`typeset -A functions=([command]='echo x')`, "zsh"},
		{`aliases[1]='echo x'`, "zsh"},
		{`aliases[ls]='echo x'`, "zsh"},
		{`galiases[ls]='echo x'`, "zsh"},
		{`commands[ls]=/tmp/evil`, "zsh"},
		{`dis_functions[printf]=x`, "zsh"},
		{`options[aliases]=on`, "zsh"},
		{`BASH_ALIASES[ls]='echo x'`, "bash"},
		{`BASH_CMDS[ls]=/tmp/evil`, "bash"},
		{`read 'BASH_ALIASES[ls]' <<< x`, "bash"},
		{`PATH=/tmp/evil:$PATH`, "bash"},
		{`BASH_ENV=/tmp/evil`, "bash"},
		{`PROMPT_COMMAND='echo x'`, "bash"},
		{`POSIXLY_CORRECT=1`, "bash"},
		{`shopt -s extdebug`, "bash"},
		{`set -o functrace`, "bash"},
		{`set -T`, "bash"},
		{`eval "$x"`, "bash"},
		{`source "$f"`, "bash"},
		{`. ./defs.sh`, "bash"},
	} {
		if v := Judge(p, Subject{Line: c.line, Shell: c.shell}); v.Action == policy.Allow {
			t.Errorf("%s %q: allowed by %s", c.shell, c.line, v.By)
		}
	}
}
