package main

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The command line follows the conventions people expect: help on stdout
// with exit 0, the version with its revision, and a short error with a
// hint and exit 2 for what it cannot take.
func TestHelpVersionAndBadFlagsFollowTheConventions(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "tmuxmcp")
	build := exec.Command("go", "build", "-ldflags", "-X main.revision=0123abcd -X main.committed=2026-12-01T10:00:00Z", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	run := func(args ...string) (stdout, stderr string, code int) {
		var o, e bytes.Buffer
		cmd := exec.Command(bin, args...)
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return o.String(), e.String(), code
	}
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}, {"-L", "x", "--help"}} {
		out, errOut, code := run(args...)
		if code != 0 || !strings.HasPrefix(out, "usage: tmuxmcp") || !strings.Contains(out, "-retain") || errOut != "" {
			t.Errorf("%v: exit %d, stdout %.60q, stderr %q", args, code, out, errOut)
		}
	}
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, _, code := run(args...)
		if code != 0 || !strings.HasPrefix(out, "tmuxmcp ") || !strings.Contains(out, "revision 0123abcd") || !strings.Contains(out, "2026-12-01T10:00:00Z") {
			t.Errorf("%v: exit %d, %q", args, code, out)
		}
	}
	for _, args := range [][]string{{"--bogus"}, {"--retain", "10"}, {"version", "extra"}, {"stray-argument"}} {
		out, errOut, code := run(args...)
		if code != 2 || out != "" || !strings.Contains(errOut, "tmuxmcp --help") || strings.Count(errOut, "\n") > 3 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}
