package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// What a peer spawned is summarised by tmux command, most frequent first,
// the socket flag's value never taken for the command and control clients
// marked.
func TestSpawnedTmuxProcessesAreSummarisedByCommand(t *testing.T) {
	calls := []string{
		"-u -L sock -C attach-session -t $0",
		"-L capture-pane capture-pane -p -t %1",
		"-u -L sock -C attach-session -t $0",
		"-L sock wait-for chan",
	}
	got := tmuxKinds(calls)
	want := "attach-session (-C) ×2, capture-pane ×1, wait-for ×1"
	if got != want {
		t.Fatalf("tmuxKinds = %q, want %q", got, want)
	}
	if tmuxKinds(nil) != "none" {
		t.Fatalf("no calls: %q", tmuxKinds(nil))
	}
}

// The peer's reply carries the matched line among others; its timestamp is
// that line's, not a neighbour's whose number starts the same.
func TestPeerTimestampIsTheMatchedLines(t *testing.T) {
	lines := []any{"$ emit -tag N -from 10", "LATN 10 111", "LATN 1 222", "\x1b[?2004lLATN 1 333"}
	if ts, ok := peerStamp(lines, "N", 1); !ok || ts != 222 {
		t.Fatalf("peerStamp(1) = %d, %v; want 222", ts, ok)
	}
	if _, ok := peerStamp(lines, "N", 2); ok {
		t.Fatal("a line not in the reply was found")
	}
}

// A peer named without a path is looked for in bin/peers, and a missing
// one is an error that says how to build it; its revision comes from the
// .rev file make peer writes beside it.
func TestPeersResolveFromBinPeersWithTheirRevision(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	_, err := resolvePeers("libtmux-mcp")
	if err == nil || !strings.Contains(err.Error(), "make peer PEER_SRC=") {
		t.Fatalf("missing peer: err = %v, want one naming make peer", err)
	}
	if err := os.MkdirAll(filepath.Join("bin", "peers"), 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join("bin", "peers", "libtmux-mcp")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin+".rev", []byte("0123456789abcdef0123456789abcdef01234567\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	peers, err := resolvePeers(" libtmux-mcp ")
	if err != nil {
		t.Fatal(err)
	}
	if len(peers) != 1 || peers[0].rev != "0123456789abcdef0123456789abcdef01234567" || peers[0].short() != "libtmux-mcp @ 0123456789ab" {
		t.Fatalf("peers = %+v", peers)
	}
	if got, _ := resolvePeers(""); len(got) != 0 {
		t.Fatalf("no -peers gave %v", got)
	}
}

// The peer is built against its own tree's modules: the go.work uses its
// mcp module and replaces every other module of the tree with the local
// copy.
func TestPeerWorkspaceReplacesTheTreesModules(t *testing.T) {
	tree := t.TempDir()
	for dir, mod := range map[string]string{
		".":         "module example.com/lib\n\ngo 1.25\n",
		"mcp":       "module example.com/lib/mcp\n\ngo 1.26.0\n",
		"workspace": "module example.com/lib/workspace\n\ngo 1.25\n",
	} {
		if err := os.MkdirAll(filepath.Join(tree, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tree, dir, "go.mod"), []byte(mod), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path, err := peerWorkspace(tree, filepath.Join(t.TempDir(), "peer.work"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	got := string(b)
	for _, want := range []string{"go 1.26.0\n", "use " + filepath.Join(tree, "mcp") + "\n", "example.com/lib => " + tree + "\n", "example.com/lib/workspace => " + filepath.Join(tree, "workspace") + "\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("go.work lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "example.com/lib/mcp =>") {
		t.Errorf("go.work replaces the module it uses:\n%s", got)
	}
}
