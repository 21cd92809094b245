package shell

import (
	"context"
	"os/exec"
	"testing"
)

// A plain command is taken as complete without asking zsh or fish; every
// one they are asked about agrees, and common commands are plain.
func TestAPlainCommandIsOneZshAndFishTakeAsComplete(t *testing.T) {
	commonPlain := []string{"true", "ls -la", "go test ./...", "make build", "git status", "echo hello | wc -l",
		"cd /tmp; ls", "npm run test:unit", "python3 -m pytest -x", "git log -n 5 --oneline", "sleep 1; false"}
	notPlain := []string{"if true", "for x", "echo 'a", "true |", "| true", "; true", "end", "begin", "x=1", "echo $HOME",
		"echo *", "a > b", "echo (pwd)", "true;;", "break", "a && b", "a || b", "echo #c", "switch x", "function f",
		"time ls", "else", "done", "echo hi &"}
	for _, c := range commonPlain {
		if !plain(c, "") || !plain(c, "&") {
			t.Errorf("%q is not plain", c)
		}
	}
	for _, c := range notPlain {
		if plain(c, "") {
			t.Errorf("%q is plain for fish", c)
		}
	}
	ctx := context.Background()
	all := append(append([]string{}, commonPlain...), notPlain...)
	all = append(all, "a & b", "true&", "a|b|c", "x -y ;z", "true ;", ".", "-", "a,b:c@d+e")
	for _, sh := range []struct {
		kind Kind
		more string
		prog string
	}{{Zsh, "&", "zsh"}, {Fish, "", "fish"}} {
		if _, err := exec.LookPath(sh.prog); err != nil {
			t.Logf("%s is not installed", sh.prog)
			continue
		}
		for _, c := range all {
			if !plain(c, sh.more) {
				continue
			}
			var ok bool
			if sh.kind == Zsh {
				ok = check(ctx, nil, "zsh", "-f", "-n", "-c", c)
			} else {
				ok = check(ctx, []byte(c), "fish", "--no-config", "-n")
			}
			if !ok {
				t.Errorf("%q is plain, but %s does not take it as complete", c, sh.prog)
			}
		}
	}
}
