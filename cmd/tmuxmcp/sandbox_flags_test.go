package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmuxmcp/tmuxmcp/sandbox"
)

func TestSandboxFlagsNameTheProblemAndTheFix(t *testing.T) {
	ws := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--sandbox", "on"}, "read-only"},
		{[]string{"--sandbox", "workspace", "--workspace", filepath.Join(ws, "missing")}, "does not exist"},
		{[]string{"--sandbox", "read-only", "--workspace", ws}, "no writable directory"},
		{[]string{"--workspace", ws}, "--workspace applies to a sandbox, and --sandbox is off: add --sandbox workspace (or read-only), or drop --workspace"},
		{[]string{"--sandbox-network"}, "add --sandbox workspace"},
		{[]string{"--sandbox", "read-only", "--host", "db=ssh://db.example"}, "drop --host"},
	} {
		if _, err := parseFlags("tmuxmcp", c.args, io.Discard); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v (want %q)", c.args, err, c.want)
		}
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(ws, link); err != nil {
		t.Fatal(err)
	}
	c, err := parseFlags("tmuxmcp", []string{"--sandbox", "workspace", "--workspace", link, "--workspace", ws, "--sandbox-network"}, io.Discard)
	real, _ := filepath.EvalSymlinks(ws)
	if err != nil || c.sandbox.Mode != sandbox.Workspace || len(c.sandbox.Workspaces) != 1 || c.sandbox.Workspaces[0] != real || !c.sandbox.Network {
		t.Fatalf("workspace through a symlink: %+v %v", c, err)
	}
	wd, _ := os.Getwd()
	wd, _ = filepath.EvalSymlinks(wd)
	if c, err := parseFlags("tmuxmcp", []string{"--sandbox", "workspace"}, io.Discard); err != nil || len(c.sandbox.Workspaces) != 1 || c.sandbox.Workspaces[0] != wd {
		t.Fatalf("the default workspace is the start directory %s: %+v %v", wd, c, err)
	}
}

// `tmuxmcp help` shows the flag as "-sandbox mode", not with a phrase
// from its description as the value's name.
func TestSandboxHelpNamesItsValueMode(t *testing.T) {
	fs := flag.NewFlagSet("tmuxmcp", flag.ContinueOnError)
	fs.String("sandbox", "off", sandboxHelp)
	if name, _ := flag.UnquoteUsage(fs.Lookup("sandbox")); name != "mode" {
		t.Errorf("-sandbox %s", name)
	}
}

// Started in / or in the home (as an MCP client may start it), the
// default workspace would make everything, or the user's rc files,
// writable inside: it is refused, naming --workspace.
func TestTheDefaultWorkspaceIsNeitherTheRootNorTheHome(t *testing.T) {
	home := t.TempDir()
	project := filepath.Join(home, "src", "project")
	if err := os.MkdirAll(project, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, wd := range []string{"/", home, filepath.Dir(home)} {
		if err := broadWorkspace(wd, home); err == nil || !strings.Contains(err.Error(), "give --workspace DIR") {
			t.Errorf("started in %s: %v", wd, err)
		}
	}
	if err := broadWorkspace(project, home); err != nil {
		t.Errorf("started in the project: %v", err)
	}
}
