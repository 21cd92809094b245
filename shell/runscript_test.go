package shell

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// hostile defines functions and aliases named after what job scripts run
// (special builtins too, where the shell lets a function have their
// name): each writes its name to mark when it runs, and prints a
// command, as attack round 4's function named command did.
func hostile(mark string, specials bool) string {
	names := []string{"command", "printf", "cat", "rm", "read", "type", "sleep", "history", "print", "shopt"}
	if specials {
		names = append(names, "builtin", "eval", "trap", "set", "unset", "return", "source")
	}
	var b strings.Builder
	for _, n := range names {
		b.WriteString(n + "() { echo " + n + " >> " + mark + "; echo 'echo pwned >> " + mark + "'; }\n")
	}
	for _, n := range []string{"command", "printf", "cat", "rm", "read", "eval", "case", "builtin"} {
		b.WriteString("alias " + n + "='echo alias-" + n + " >> " + mark + ";'\n")
	}
	b.WriteString("alias ll='echo user-alias-ll'\n")
	return b.String()
}

// A job script sourced by a shell whose functions and aliases shadow
// every builtin and program it uses still runs the command as typed (its
// output, its status, the user's own alias in it), reads and removes its
// key, writes the status file, and never runs one of those definitions.
func TestAJobScriptNeverRunsTheShellsFunctionsOrAliases(t *testing.T) {
	for _, c := range []struct {
		kind     Kind
		argv     []string
		specials bool
		alias    bool // the user's alias ll works in the command
	}{
		{Bash, []string{"bash", "--norc", "-i", "-c"}, true, true},
		{Zsh, []string{"zsh", "-f", "-i", "-c"}, true, true},
		{POSIX, []string{"dash", "-i", "-c"}, false, false},
		{POSIX, []string{"mksh", "-i", "-c"}, false, true},
		{POSIX, []string{"yash", "-i", "-c"}, false, true},
		{POSIX, []string{"bash", "--posix", "--norc", "-i", "-c"}, false, true},
	} {
		t.Run(strings.Join(c.argv[:len(c.argv)-2], "-"), func(t *testing.T) {
			if _, err := exec.LookPath(c.argv[0]); err != nil {
				t.Skipf("%s is not installed", c.argv[0])
			}
			dir := t.TempDir()
			at := func(n string) string { return filepath.Join(dir, n) }
			cmd := "echo hello; (exit 3)"
			if c.alias {
				cmd = "echo hello; ll; (exit 3)"
			}
			for n, body := range map[string]string{"j.key": "secret\n", "j.sh": cmd + "\n", "j.rc": "", "home/.yashrc": ""} {
				if err := os.MkdirAll(filepath.Dir(at(n)), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(at(n), []byte(body), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			sc := Script{Kind: c.kind, KeyFile: at("j.key"), Name: "x", CommandFile: at("j.sh"), StatusFile: at("j.rc"), Dir: dir}
			if err := os.WriteFile(at("j.run"), []byte(sc.Text()), 0o600); err != nil {
				t.Fatal(err)
			}
			mark := at("shadowed")
			rc := hostile(mark, c.specials) + c.kind.SourceLine(at("j.run")) + "\n" + "echo \"status=$?\"\n"
			if err := os.WriteFile(at("rc"), []byte(rc), 0o600); err != nil {
				t.Fatal(err)
			}
			run := exec.Command(c.argv[0], append(c.argv[1:], ". "+Quote(at("rc")))...)
			run.Env = []string{"HOME=" + at("home"), "PATH=" + os.Getenv("PATH"), "ENV=/dev/null", "TERM=dumb"}
			out, _ := run.CombinedOutput()
			o := string(out)
			want := "\033]133;C;tmuxmcp=secret\007hello\n"
			if c.alias {
				want += "user-alias-ll\n"
			}
			want += "\033]133;D;3;tmuxmcp=secret\007status=3\n"
			if !strings.Contains(o, want) {
				t.Errorf("output %q lacks %q", o, want)
			}
			if b, _ := os.ReadFile(at("j.rc")); string(b) != "3\n" {
				t.Errorf("status file %q", b)
			}
			if b, err := os.ReadFile(at("j.key")); err == nil && len(b) > 0 {
				t.Errorf("the key file still holds %q: the secret must be gone before the command runs", b)
			}
			if b, err := os.ReadFile(mark); err == nil {
				t.Errorf("the job script ran the shell's definitions: %q (output %q)", b, o)
			}
		})
	}
}

// fish's job script reaches builtin source and functions, and printf,
// through builtin, and rm through command: functions named after them
// never run.
func TestAFishJobScriptNeverRunsTheShellsFunctions(t *testing.T) {
	if _, err := exec.LookPath("fish"); err != nil {
		t.Skip("fish is not installed")
	}
	dir := t.TempDir()
	at := func(n string) string { return filepath.Join(dir, n) }
	for n, body := range map[string]string{"j.key": "secret\n", "j.sh": "echo hello; false\n", "j.rc": ""} {
		if err := os.WriteFile(at(n), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// (no Dir: fish autoloads its cd function through a function named
	// source, as it does every function it autoloads)
	sc := Script{Kind: Fish, KeyFile: at("j.key"), Name: "x", CommandFile: at("j.sh"), StatusFile: at("j.rc"), TrapExit: true}
	if err := os.WriteFile(at("j.run"), []byte(sc.Text()), 0o600); err != nil {
		t.Fatal(err)
	}
	mark := at("shadowed")
	var rc strings.Builder
	for _, n := range []string{"source", "functions", "printf", "rm", "sleep", "cat"} {
		rc.WriteString("function " + n + "; echo " + n + " >> " + Fish.Quote(mark) + "; end\n")
	}
	rc.WriteString(Fish.SourceLine(at("j.run")) + "\n")
	run := exec.Command("fish", "--no-config", "-c", rc.String())
	run.Env = []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH"), "TERM=dumb"}
	out, _ := run.CombinedOutput()
	if want := "\033]133;C;tmuxmcp=secret\ahello\n\033]133;D;1;tmuxmcp=secret\a"; !strings.Contains(string(out), want) {
		t.Errorf("output %q lacks %q", out, want)
	}
	if b, _ := os.ReadFile(at("j.rc")); string(b) != "1\n" {
		t.Errorf("status file %q", b)
	}
	if b, err := os.ReadFile(mark); err == nil {
		t.Errorf("the job script ran the shell's functions: %q (output %q)", b, out)
	}
}
