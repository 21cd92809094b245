package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// buildPeer is `tmuxbench build-peer` (make peer): it builds libtmux-go's
// MCP server, libtmux-mcp, from a source the user gives — a checkout or a
// git directory (at -rev), or a plain source tree — into -out, with a .rev
// file beside the binary naming what it was built from. Nothing is fetched
// but the Go modules the peer needs; the source is exported into a
// temporary directory, and only the binary and its .rev land in -out
// (bin/peers, which git ignores).
func buildPeer(args []string) {
	fs := flag.NewFlagSet("build-peer", flag.ExitOnError)
	src := fs.String("src", "", "a libtmux-go checkout, git directory or source tree")
	rev := fs.String("rev", "HEAD", "the revision to build, when -src is a git checkout or directory")
	out := fs.String("out", "bin/peers", "where the binary and its .rev go")
	_ = fs.Parse(args)
	bin, err := peerBuild(*src, *rev, *out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tmuxbench build-peer:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "tmuxbench build-peer: built %s; measure it with make bench PEERS=%s\n", bin, filepath.Base(bin))
}

// peerBinary is the peer's command, and where it sits in its source tree.
const (
	peerBinary = "libtmux-mcp"
	peerCmdDir = "mcp/cmd/libtmux-mcp"
)

func peerBuild(src, rev, out string) (string, error) {
	if src == "" {
		return "", errors.New("-src is empty: give a libtmux-go checkout or git directory (make peer PEER_SRC=/path/to/libtmux-go [PEER_REV=commit])")
	}
	out, err := filepath.Abs(out)
	if err != nil {
		return "", err
	}
	// The source is exported and built outside the repository (and
	// removed after), so no tool walking the repository meets it.
	tmp, err := os.MkdirTemp("", "tmuxbench-peer")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	tree, revision, err := peerTree(src, rev, tmp)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(tree, peerCmdDir)); err != nil {
		return "", fmt.Errorf("%s has no %s: not a libtmux-go source tree (%w)", src, peerCmdDir, err)
	}
	work, err := peerWorkspace(tree, filepath.Join(tmp, "peer.work"))
	if err != nil {
		return "", err
	}
	bin := filepath.Join(out, peerBinary)
	build := exec.Command("go", "build", "-o", bin, "./cmd/"+peerBinary)
	build.Dir = filepath.Join(tree, "mcp")
	build.Env = append(os.Environ(), "GOWORK="+work)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("go build %s: %w", peerCmdDir, err)
	}
	if err := os.WriteFile(bin+".rev", []byte(revision+"\n"), 0o644); err != nil {
		return "", err
	}
	return bin, nil
}

// peerTree is the source to build: rev of src exported into dir when src
// is git (a checkout or a git directory), else src itself. revision names
// what was built.
func peerTree(src, rev, dir string) (tree, revision string, err error) {
	commit, err := exec.Command("git", "-C", src, "rev-parse", "--verify", rev+"^{commit}").Output()
	if err != nil {
		if rev != "HEAD" {
			return "", "", fmt.Errorf("%s is not a git checkout or directory with revision %s: %w", src, rev, err)
		}
		abs, err := filepath.Abs(src)
		return abs, "unknown (built from the source tree " + abs + ", not from git)", err
	}
	revision = strings.TrimSpace(string(commit))
	tree = filepath.Join(dir, "libtmux-go-"+revision[:12])
	if err := os.MkdirAll(tree, 0o755); err != nil {
		return "", "", err
	}
	archive := exec.Command("git", "-C", src, "archive", revision)
	untar := exec.Command("tar", "-x", "-C", tree)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		return "", "", err
	}
	untar.Stdin = pipe
	if err := untar.Start(); err != nil {
		return "", "", err
	}
	if err := archive.Run(); err != nil {
		return "", "", fmt.Errorf("git archive %s: %w", revision, err)
	}
	if err := untar.Wait(); err != nil {
		return "", "", fmt.Errorf("untar %s: %w", revision, err)
	}
	return tree, revision, nil
}

// peerWorkspace writes a go.work that builds the peer's mcp module with
// every module of its tree (the root and each directory below it with a
// go.mod) replaced by the local copy: the tree's own go.work names
// versions of its modules the module proxy does not serve.
func peerWorkspace(tree, path string) (string, error) {
	var replaces []string
	dirs, err := filepath.Glob(filepath.Join(tree, "*", "go.mod"))
	if err != nil {
		return "", err
	}
	goVersion := ""
	for _, mod := range append([]string{filepath.Join(tree, "go.mod")}, dirs...) {
		module, version, err := readGoMod(mod)
		if err != nil {
			return "", err
		}
		if filepath.Dir(mod) == filepath.Join(tree, "mcp") {
			goVersion = version
			continue
		}
		replaces = append(replaces, fmt.Sprintf("\t%s => %s\n", module, filepath.Dir(mod)))
	}
	if goVersion == "" {
		return "", fmt.Errorf("%s/mcp/go.mod names no go version", tree)
	}
	body := fmt.Sprintf("go %s\n\nuse %s\n\nreplace (\n%s)\n", goVersion, filepath.Join(tree, "mcp"), strings.Join(replaces, ""))
	return path, os.WriteFile(path, []byte(body), 0o644)
}

// readGoMod returns a go.mod's module path and go version.
func readGoMod(path string) (module, version string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 2 && fields[0] == "module" {
			module = fields[1]
		}
		if len(fields) == 2 && fields[0] == "go" && version == "" {
			version = fields[1]
		}
	}
	if module == "" {
		return "", "", fmt.Errorf("%s names no module", path)
	}
	return module, version, sc.Err()
}
