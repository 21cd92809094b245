package approval

import (
	"slices"
	"strings"
	"testing"

	"github.com/tmuxmcp/tmuxmcp/policy"
)

// docsPolicy is the example of docs/approval.md: no recursive rm (on the
// canonical form), read-only git, REPLs ask.
func docsPolicy(t testing.TB, def policy.Action, allow ...string) *policy.Policy {
	rules := []policy.Rule{{Name: "no recursive rm", Action: policy.Deny, Command: `^rm .*--recursive`}}
	for _, a := range allow {
		rules = append(rules, policy.Rule{Name: "allow " + a, Action: policy.Allow, Command: a})
	}
	p, err := policy.New(def, rules)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// allowlist is the attacker's setting of issue 25: only ls, cat and git
// status allowed, everything else denied.
func allowlist(t testing.TB) *policy.Policy {
	return docsPolicy(t, policy.Deny, `^ls( |$)`, `^cat( |$)`, `^git status( |$)`)
}

// The forms of issue 25 that ran code through an allowlist of ls, cat and
// git status: each is now refused (asked; denied under --approval deny).
var valueAttacks = []string{
	`ls ${x:='a[$(touch F)]'} $((x))`,
	`ls ${x:='a[$(touch F)]'}`,
	`ls $((x))`,
	`ls $[x]`,
	`ls ${y@P}`,
	`ls ${!z}`,
	`ls @($(touch F))`,
	`ls @(` + "`touch F`" + `)`,
	`ls ${TMOUT:=1}`,
	`ls ${PROMPT_COMMAND[9]:='touch F'}`,
	`ls ${x:-a}`,
	`ls ${x:1:2}`,
	`ls ${x[1]}`,
	`ls ${x[i]}`,
	`ls ${x/a/b}`,
	`ls ${#x[i]}`,
	`ls ${!x*}`,
	`ls "${x:=1}"`,
	`cat <<EOF` + "\n${x:=1}\nEOF\n",
	`((x))`,
	`((x=1))`,
	`let x`,
	`for ((i=0; i<x; i++)); do ls; done`,
	`[[ $x -eq 1 ]]`,
	`[[ x -lt 2 ]]`,
	`[[ -v a[$i] ]]`,
	`case x in $(touch F)) ls;; esac`,
	`[[ x == $(touch F) ]]`,
	`a[i]=1`,
	`a=([i]=1)`,
	`PROMPT_COMMAND='touch F'`,
	`PROMPT_COMMAND[9]='touch F'`,
	`PS1='$(touch F)'`,
	`PS4='$(touch F)'`,
	`TMOUT=1`,
	`BASH_ENV=/tmp/x ls`,
	`IFS=/ eval ls`,
	`IFS=/ :`,
	`IFS=/ bash -i`,
	`PROMPT_COMMAND='touch F' ls`,
	`PATH=/tmp:$PATH ls`,
	`LD_PRELOAD=/tmp/x.so ls`,
	`HISTFILE=/dev/null`,
	`HISTCONTROL=ignorespace`,
	`CDPATH=/tmp`,
	`GLOBIGNORE=x`,
	`EXECIGNORE=x`,
	`SHELLOPTS=x`,
	`BASH_ALIASES[ls]='touch F'`,
	`BASH_CMDS[ls]=/tmp/x`,
	`MAILPATH='/tmp/m?$(touch F)'`,
	`export PROMPT_COMMAND='touch F'`,
	`declare PROMPT_COMMAND='touch F'`,
	`local IFS=x`,
	`readonly TMOUT=1`,
	`typeset -x PATH=/tmp`,
	`declare -i n`,
	`declare -n r=PROMPT_COMMAND`,
	`declare "$x"`,
	`read PROMPT_COMMAND`,
	`read -a PROMPT_COMMAND`,
	`printf -v PROMPT_COMMAND %s x`,
	`printf -vPS1 %s x`,
	`mapfile PATH`,
	`mapfile -C 'touch F' -c 1 x`,
	`getopts a TMOUT`,
	`for PROMPT_COMMAND in 'touch F'; do ls; done`,
	`$c -rf x`,
	`c=rm; $c -rf x`,
	`/bin/r? -rf x`,
	`{rm,x} -rf`,
	`$(echo rm) -rf x`,
	`"$c" x`,
	`eval "$x"`,
	`alias ls="$x"`,
	`trap "$x" EXIT`,
	`enable -f /tmp/x.so ls`,
	`hash -p /tmp/x ls`,
	`bind -x '"\C-m": touch F'`,
	`complete -C 'touch F' ls`,
	`set -k`,
	`source ./x`,
	`. ./x`,
	`git -c core.fsmonitor='touch F' status`,
	`git -c alias.status='!touch F' status`,
	`git --config-env=core.pager=X status`,
	`git --exec-path=/tmp status`,
	`git config alias.st '!touch F'`,
	`git config core.fsmonitor 'touch F'`,
	`git config --global core.hooksPath /tmp/h`,
	`sh -c "$x"`,
	`env ls ${x:=1}`,
	`sudo "$c"`,
	`python3 -c 'import os; os.system("touch F")'`,
	`perl -e 'system "touch F"'`,
	`awk 'BEGIN{system("touch F")}'`,
	`awk '{print > "F"}' x`,
	`sed '1e touch F' x`,
	`sed 's/x/touch F/e' x`,
	`sed -n 'w F' x`,
	`node -e 'require("child_process").execSync("touch F")'`,
	`ssh host 'touch F'`,
	`ssh -o ProxyCommand='touch F' host`,
	`tar --to-command='touch F' -xf x.tar`,
	`ls ${x@Q}`,
	`ls ${x^^}`,
}

// Commands that run other commands the judge reads: under the allowlist
// they are denied for what they run (touch), under auto allowed as touch
// is, and the commands judged name it. (An alias, and a DEBUG trap, are
// definitions: asked whatever they run, see defines_test.go.)
var seenThrough = []string{
	`eval ls ';' touch F`, `trap 'touch F' EXIT`, `builtin eval 'touch F'`, `command eval 'touch F'`, `bash -c 'touch F'`,
	`find . -exec touch F \;`, `xargs touch`, `ls | xargs -I{} sh -c 'touch {}'`, `watch 'touch F'`, `sudo touch F`, `env -i touch F`, `git bisect run touch F`,
}

func TestWhatAWrapperRunsIsJudged(t *testing.T) {
	deny, auto := allowlist(t), docsPolicy(t, policy.Allow)
	for _, line := range seenThrough {
		if v := Judge(deny, Subject{Line: line, Shell: "bash"}); v.Action != policy.Deny {
			t.Errorf("allowlist: %q: %s by %s", line, v.Action, v.By)
		}
		v := Judge(auto, Subject{Line: line, Shell: "bash"})
		if v.Action != policy.Allow || !slices.ContainsFunc(v.Commands, func(c string) bool { return strings.HasPrefix(c, "touch") }) {
			t.Errorf("auto: %q: %s by %s (%s), commands %q", line, v.Action, v.By, v.Why, v.Commands)
		}
	}
}

func TestAWordDecidedWhenItRunsIsNeverAllowed(t *testing.T) {
	for name, p := range map[string]*policy.Policy{
		"allowlist under deny": allowlist(t),
		"auto":                 docsPolicy(t, policy.Allow),
		"ask":                  docsPolicy(t, policy.Ask, `^ls( |$)`),
	} {
		refused := 0
		for _, line := range valueAttacks {
			v := Judge(p, Subject{Line: line, Shell: "bash", Program: "bash"})
			if v.Action != policy.Allow {
				refused++
			}
			want := policy.Ask
			if p.Default() == policy.Deny {
				want = policy.Deny
			}
			if v.Action == policy.Allow || v.Action != want && v.Action != policy.Deny {
				t.Errorf("%s: %q: %s by %s, want %s", name, line, v.Action, v.By, want)
			}
		}
		t.Logf("%s: %d of %d run-time forms refused", name, refused, len(valueAttacks))
	}
}

// Every form of issue 25 that walked around a "no recursive rm" deny rule,
// and more: the docs' rule ^rm .*--recursive, matched against each simple
// command's canonical form, refuses them all (denied, or asked where a
// word decided when it runs could make it match).
var rmForms = []string{
	`rm -rf x`, `rm -r x`, `rm -R x`, `rm --rec x`, `rm --recursive x`, `rm --recursive=x y`, `rm --re x`, `rm -r -f x`, `rm -fR x`, `rm -Rf x`,
	`rm -fr x`, `rm -f -r x`, `rm x -rf`, `rm x y -r`, `rm -v -i -r x`, `rm -dr x`, `rm -rfv x`,
	`/bin/rm -rf x`, `/usr/bin/rm -r x`, `\rm -rf x`, `"rm" -rf x`, `'rm' -rf x`, `r\m -rf x`, `$'rm' -rf x`, `rm "-rf" x`, `rm '-r' x`, `rm -\r x`,
	`/bin/r? -rf x`, `/bin/r[m] -rf x`, `c=rm; $c -rf x`, `$c -rf x`, `${c} -rf x`, `{rm,x} -rf`,
	`x=-rf; rm $x y`, `rm $x y`, `rm "$x" y`, `rm -$x y`, `rm $@`, `rm "$@"`, `rm $(echo -rf) y`, `rm ` + "`echo -rf`" + ` y`, `rm {-rf,} V`, `rm {-r,-f} V`, `rm * `, `rm -* x`,
	`find . -delete`, `find /tmp/x -name '*.o' -delete`, `find . -exec rm -rf {} +`, `find . -exec rm -rf {} \;`, `find . -execdir rm -r {} \;`, `find . -ok rm -r {} \;`,
	`command rm -rf x`, `command -p rm -rf x`, `builtin command rm -rf x`, `exec rm -rf x`, `exec -a x rm -rf y`,
	`env rm -rf x`, `env -i rm -rf x`, `env -u HOME rm -rf x`, `env A=1 rm -rf x`, `env -C /tmp rm -rf x`, `env -- rm -rf x`, `env -S 'rm -rf x'`,
	`sudo rm -rf x`, `sudo -u root rm -rf x`, `sudo -E -n rm -rf x`, `sudo --user=root rm -rf x`, `sudo A=1 rm -rf x`, `sudo -s rm -rf x`, `doas rm -rf x`, `doas -u root rm -rf x`,
	`su -c 'rm -rf x'`, `su root -c 'rm -rf x'`, `su - root -c 'rm -rf x'`, `runuser -u root rm -rf x`,
	`xargs rm -rf`, `xargs rm`, `xargs -0 rm -f`, `xargs -I{} rm -rf {}`, `xargs -n1 rm`, `ls | xargs rm -r`,
	`sh -c 'rm -rf x'`, `bash -c 'rm -rf x'`, `zsh -c 'rm -rf x'`, `dash -c 'rm -rf x'`, `ksh -c 'rm -rf x'`, `mksh -c 'rm -rf x'`, `fish -c 'rm -rf x'`, `bash -ec 'rm -rf x'`, `bash -lc 'rm -rf x'`,
	`sh -c 'sh -c "rm -rf x"'`, `sh -c "$x"`, `sh -c 'rm $1' sh -rf`, `bash -c 'rm "$@"' _ -rf x`,
	`nice rm -rf x`, `nice -n 5 rm -rf x`, `nice -10 rm -rf x`, `nohup rm -rf x`, `timeout 5 rm -rf x`, `timeout -s KILL 5 rm -rf x`, `time rm -rf x`, `\time rm -rf x`, `command time rm -rf x`,
	`stdbuf -oL rm -rf x`, `setsid rm -rf x`, `ionice -c3 rm -rf x`, `chrt -i 0 rm -rf x`, `taskset -c 0 rm -rf x`, `unbuffer rm -rf x`, `flock /tmp/l rm -rf x`, `flock /tmp/l -c 'rm -rf x'`,
	`busybox rm -rf x`, `toybox rm -rf x`, `busybox sh -c 'rm -rf x'`, `watch rm -rf x`, `watch -n1 'rm -rf x'`, `strace -f rm -rf x`, `chroot / rm -rf x`, `pkexec rm -rf x`, `noglob rm -rf x`,
	`eval rm -rf x`, `eval 'rm -rf x'`, `alias l='rm -rf x'`, `trap 'rm -rf x' EXIT`,
	`git -c alias.x='!rm -rf y' x`, `git -c core.fsmonitor='rm -rf y' status`, `git submodule foreach 'rm -rf x'`, `git rebase --exec 'rm -rf x' HEAD~1`, `git bisect run rm -rf x`,
	`sudo env nice timeout 5 sh -c 'xargs rm -rf'`,
	`echo ok && rm -rf x`, `(rm -rf x)`, `{ rm -rf x; }`, `echo $(rm -rf x)`, `f() { rm -rf x; }`, `if true; then rm -r x; fi`,
}

func TestTheDocsNoRecursiveRmRuleCatchesEveryForm(t *testing.T) {
	p := docsPolicy(t, policy.Allow)
	denied, asked := 0, 0
	for _, line := range rmForms {
		v := Judge(p, Subject{Line: line, Shell: "bash", Program: "bash"})
		switch v.Action {
		case policy.Deny:
			denied++
		case policy.Ask:
			asked++
		default:
			t.Errorf("%q: %s by %s", line, v.Action, v.By)
		}
	}
	t.Logf("%d forms of recursive rm: %d denied, %d asked", len(rmForms), denied, asked)
	for _, line := range []string{`rm -rf x`, `rm --rec x`, `sudo rm -fR x`, `find . -delete`, `xargs rm -rf`, `sh -c 'rm -r x'`, `rm {-rf,} V`} {
		if v := Judge(p, Subject{Line: line, Shell: "bash"}); v.Action != policy.Deny || v.By != "policy:no recursive rm" {
			t.Errorf("%q: %s by %s, want denied by the rule", line, v.Action, v.By)
		}
	}
}

// Everyday lines stay as they were: allowed where a rule (or the default)
// allows them, under the docs' policy.
var benign = []string{
	`git status`, `git status --short`, `git log --oneline -5`, `git diff HEAD~1`, `ls -la`, `ls`, `cat f`, `cat -n main.go`, `grep -rn x .`, `go test ./...`,
	`go build ./... && go vet ./...`, `make`, `make -j4 test`, `npm test`, `npm run build`, `cd dir && ls`, `echo "$HOME"`, `echo $HOME`, `echo ${HOME}`, `echo ${#HOME}`,
	`for f in *.go; do wc -l "$f"; done`, `rm f`, `rm -f f.o`, `rm -i f`, `rm -- -rf`, `rm ./*.o`, `rm build/*.o`, `rm -f "$HOME/x"`, `rm -- "$f"`, `rm ./*`, `rmdir d`,
	`cp -r a b`, `mv a b`, `mkdir -p a/b`, `touch x`, `ls *.go`, `cat "$f"`, `wc -l $(ls)`, `echo $((1+2))`, `echo advice-$((6*7))`, `x=1; echo $x`, `export FOO=bar`, `FOO=1 make`,
	`sed -n 1,5p f`, `sed -i 's/a/b/g' f`, `sed 's/hello/world/' f`, `awk '{print $1}' f`, `find . -name '*.go'`, `find . -type f -newer x`, `xargs echo`,
	`git push`, `git push origin main`, `git commit -m "fix: x"`, `git checkout -b x`, `git config user.name "A B"`, `git config --get core.editor`,
	`nice make`, `time go test ./...`, `timeout 60 go test ./...`, `env LANG=C sort f`, `command -v rm`, `sudo -l`, `sh script.sh`, `bash ./run.sh`,
	`[ -f x ] && echo y`, `[[ -n $x ]]`, `[[ $x == y* ]]`, `case $x in a*) echo a;; esac`, `test -d x`, `printf '%s\n' a`, `read -r line`, `while IFS= read -r l; do echo "$l"; done < f`, `HISTFILE=/dev/null ls`, `trap - INT`,
	`python3 main.py`, `node app.js`, `ps aux | grep x`, `tail -f log`, `diff <(ls a) <(ls b)`,
}

func TestEverydayLinesStayAllowed(t *testing.T) {
	p := docsPolicy(t, policy.Allow)
	allowed := 0
	for _, line := range benign {
		v := Judge(p, Subject{Line: line, Shell: "bash", Program: "bash"})
		if v.Action != policy.Allow {
			t.Errorf("%q: %s by %s (%s)", line, v.Action, v.By, v.Why)
			continue
		}
		allowed++
	}
	t.Logf("%d of %d everyday lines allowed", allowed, len(benign))
	// Under an allowlist, what a rule allows stays allowed.
	al := docsPolicy(t, policy.Deny, `^ls( |$)`, `^cat( |$)`, `^git status( |$)`, `^echo( |$)`, `^wc( |$)`, `^go (test|build|vet) `, `^make( |$)`, `^npm (test|run)( |$)`, `^cd( |$)`, `^grep( |$)`)
	for _, line := range []string{`git status`, `ls -la`, `cat f`, `grep -rn x .`, `go test ./...`, `make`, `npm test`, `cd dir && ls`, `echo "$HOME"`, `for f in *.go; do wc -l "$f"; done`} {
		if v := Judge(al, Subject{Line: line, Shell: "bash"}); v.Action != policy.Allow {
			t.Errorf("allowlist: %q: %s by %s (%s)", line, v.Action, v.By, v.Why)
		}
	}
}

func TestCanonicalForms(t *testing.T) {
	for line, want := range map[string]string{
		`rm -rf x`:             "rm --force --recursive\n-- x",
		`rm x --rec -v`:        "rm --recursive --verbose\n-- x",
		`/bin/rm -Rf -- -x`:    "rm --force --recursive\n-- -x",
		`cp -t /d a`:           "cp --target-directory=/d\n-- a",
		`git push -f origin x`: "git push --force\n-- origin x",
		`git push origin +x`:   "git push --force\n-- origin +x",
		`curl -sSk https://x`:  "curl -S -k -s -sSk\n-- https://x",
		`sed -i.bak s/a/b/ f`:  "sed --in-place=.bak\n-- s/a/b/ f",
	} {
		rd, err := read(line, "bash", 0)
		if err != nil || len(rd.forms) == 0 {
			t.Fatalf("%q: %v", line, err)
		}
		if got := rd.forms[0].text; got != want {
			t.Errorf("%q: canonical %q, want %q", line, got, want)
		}
	}
	// An ambiguous prefix is a hole: a rule it could be is asked.
	rd, _ := read(`rm --in x`, "bash", 0) // --interactive only: not ambiguous
	if !strings.Contains(rd.forms[0].text, "--interactive") {
		t.Errorf("rm --in: %q", rd.forms[0].text)
	}
	rd, _ = read(`cp --re x y`, "bash", 0) // --reflink, --remove-destination
	if len(rd.forms[0].holes) == 0 {
		t.Errorf("cp --re is ambiguous but has no hole: %q", rd.forms[0].text)
	}
}

func TestCodeInAnArgumentIsAskedUnlessARuleAllowsItByName(t *testing.T) {
	auto := docsPolicy(t, policy.Allow)
	byName := docsPolicy(t, policy.Allow, `^python3 -c `)
	for _, line := range []string{`python3 -c 'print(1)'`, `perl -pe 's/a/b/' f`, `awk 'BEGIN{system("id")}'`, `source ./env.sh`} {
		if v := Judge(auto, Subject{Line: line, Shell: "bash"}); v.Action != policy.Ask || v.By != "policy:runs-code" {
			t.Errorf("%q: %s by %s", line, v.Action, v.By)
		}
	}
	if v := Judge(byName, Subject{Line: `python3 -c 'print(1)'`, Shell: "bash"}); v.Action != policy.Allow {
		t.Errorf("python3 -c allowed by name: %s by %s", v.Action, v.By)
	}
}

func TestCreatePaneEnvironmentIsJudgedByEnvRulesNotAsAnAssignment(t *testing.T) {
	p, _ := policy.New(policy.Allow, []policy.Rule{{Name: "my path", Action: policy.Allow, Env: "^PATH$"}})
	if v := Judge(p, Subject{Line: "PATH=/x bash", Shell: "bash", Env: map[string]string{"PATH": "/x"}}); v.Action != policy.Allow {
		t.Errorf("create_pane PATH allowed by name: %s by %s", v.Action, v.By)
	}
	if v := Judge(p, Subject{Line: "PATH=/x bash", Shell: "bash"}); v.Action != policy.Ask || v.By != "policy:unseen" {
		t.Errorf("a typed PATH=/x bash: %s by %s", v.Action, v.By)
	}
}

func TestArithmeticOfNumbersIsWrittenOut(t *testing.T) {
	p, _ := policy.New(policy.Allow, []policy.Rule{{Name: "no rm", Action: policy.Deny, Command: `\brm\b`}})
	if v := Judge(p, Subject{Line: "echo advice-$((6*7))", Shell: "bash"}); v.Action != policy.Allow {
		t.Errorf("echo advice-$((6*7)): %s by %s (%s)", v.Action, v.By, v.Why)
	}
	rd, _ := read("rm -$((1/0)) x", "bash", 0)
	if len(rd.forms[0].holes) == 0 {
		t.Errorf("a division by zero is written out: %q", rd.forms[0].text)
	}
}

// From the second attack: a command that reads its shell's tag
// ($__tmuxmcp_tag) could print its own end mark, and one that redefines
// the integration's hook (__tmuxmcp_precmd) chooses every later
// command's status. Under a policy, a line naming them is a person's call.
func TestALineThatNamesTheShellIntegrationIsAsked(t *testing.T) {
	allowAll, err := policy.New(policy.Allow, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		`printf '\e]133;D;0;tmuxmcp=s%s\a' "$__tmuxmcp_tag"; read -e x`,
		`__tmuxmcp_precmd() { :; }`,
		`f=__tmux"mcp"_precmd; unset -f "$f"`,
		`echo ${__tmuxmcp_job_k}`,
		`unset TMUXMCP_SHELL_TAG_FD`,
	} {
		if v := Judge(allowAll, Subject{Line: line, Shell: "bash"}); v.Action == policy.Allow {
			t.Errorf("%q was allowed (%s)", line, v.By)
		}
	}
	for _, line := range []string{"echo tmux is here", "cd ~/src/tmuxmcp && make test", "ls /tmp/tmuxmcp-state"} {
		if v := Judge(allowAll, Subject{Line: line, Shell: "bash"}); v.Action != policy.Allow {
			t.Errorf("everyday line %q was %s (%s)", line, v.Action, v.By)
		}
	}
}
