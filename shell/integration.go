package shell

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tmuxmcp/tmuxmcp/private"
)

//go:embed scripts
var scripts embed.FS

// installed maps each script to where it goes under the integration
// directory: the launcher at the top, bash's ENV file, zsh's ZDOTDIR, and
// fish's vendor configuration under an XDG data directory.
var installed = map[string]string{
	"launch.sh":    "launch",
	"tmuxmcp.bash": "bash/tmuxmcp.bash",
	"zshenv.zsh":   "zsh/.zshenv",
	"zprofile.zsh": "zsh/.zprofile",
	"zshrc.zsh":    "zsh/.zshrc",
	"zlogin.zsh":   "zsh/.zlogin",
	"tmuxmcp.fish": "data/fish/vendor_conf.d/tmuxmcp.fish",
}

// TagVar is the environment variable that hands the launcher a new
// shell's tag. The launcher takes it out of the environment and passes it
// on a descriptor the integration reads and closes first thing (see
// scripts/launch.sh), so no process of the pane finds it in
// /proc/PID/environ.
const TagVar = "TMUXMCP_SHELL_TAG"

// TraceVar names a file that the bash integration traces the user's
// startup files into (set -x), for tmuxmcp doctor.
const TraceVar = "TMUXMCP_SHELL_TRACE"

// Integration is the installed integration scripts, and the key its
// shells' secret tags are made with.
type Integration struct {
	dir string
	key []byte
}

// Install writes the integration scripts under dir. The key that makes
// shells' tags (Secret) is kept beside it, in dir+".key" (0600), so a
// restarted tmuxmcp knows the tags of the shells an earlier one started;
// it is never in dir, which a sandboxed pane may read.
func Install(dir string) (*Integration, error) {
	for src, dst := range installed {
		body, err := scripts.ReadFile("scripts/" + src)
		if err != nil {
			return nil, fmt.Errorf("install shell integration: %w", err)
		}
		p := filepath.Join(dir, dst)
		if err := private.Dir(filepath.Dir(p)); err != nil {
			return nil, fmt.Errorf("install shell integration: %w", err)
		}
		if err := writeIfChanged(p, body); err != nil {
			return nil, fmt.Errorf("install shell integration: %w", err)
		}
	}
	key, err := loadKey(strings.TrimRight(dir, "/") + ".key")
	if err != nil {
		return nil, fmt.Errorf("install shell integration: %w", err)
	}
	return &Integration{dir: dir, key: key}, nil
}

// loadKey reads the key in path (a private file of the user's, never
// through a link), or makes it (0600, created exclusively: one another
// process made first is read instead).
func loadKey(path string) ([]byte, error) {
	for range 3 {
		f, err := private.OpenFile(path, os.O_RDONLY)
		if err == nil {
			b, err := io.ReadAll(io.LimitReader(f, 4096))
			f.Close()
			key, derr := hex.DecodeString(strings.TrimSpace(string(b)))
			if err != nil || derr != nil || len(key) < 16 {
				return nil, fmt.Errorf("shell tag key %s is not a key tmuxmcp wrote: remove it (a new one is made)", path)
			}
			return key, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("read shell tag key: %w", err)
		}
		key := make([]byte, 32)
		_, _ = rand.Read(key)
		if err := private.Create(path, []byte(hex.EncodeToString(key)+"\n")); err == nil {
			return key, nil
		} else if _, lerr := os.Lstat(path); lerr != nil {
			return nil, fmt.Errorf("make shell tag key: %w", err)
		}
		// Another process made it first: read that one.
	}
	return nil, fmt.Errorf("shell tag key %s: could not be read or made", path)
}

// Files returns every integration script by its path under the
// integration directory, for installing it on another machine.
func Files() (map[string][]byte, error) {
	out := make(map[string][]byte, len(installed))
	for src, dst := range installed {
		body, err := scripts.ReadFile("scripts/" + src)
		if err != nil {
			return nil, fmt.Errorf("shell integration: %w", err)
		}
		out[dst] = body
	}
	return out, nil
}

// At is the integration installed (by whoever has put Files there) in
// dir, a directory on the machine the panes run on. Its key is this
// process's own: the tags of shells an earlier tmuxmcp started there are
// not known (those panes run commands through job scripts).
func At(dir string) *Integration {
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	return &Integration{dir: dir, key: key}
}

// writeIfChanged writes body to p unless p already holds it (as a private
// file of the user's: one that is not is replaced), so a shell reading the
// file while another tmuxmcp starts never sees it half-written.
func writeIfChanged(p string, body []byte) error {
	if private.CheckFile(p) == nil {
		if old, err := os.ReadFile(p); err == nil && string(old) == string(body) {
			return nil
		}
	}
	return private.WriteFile(p, body)
}

// Launching reports whether a process with command line args is the
// launcher, about to exec the shell, or a sandbox (bwrap) about to start
// it.
func (in *Integration) Launching(args []string) bool {
	return len(args) > 1 && args[1] == filepath.Join(in.dir, "launch") || len(args) > 0 && filepath.Base(args[0]) == SandboxProgram
}

// SandboxProgram is the program that puts a pane in a sandbox
// (bubblewrap): a pane's first process, the shell below it.
const SandboxProgram = "bwrap"

// DefaultCommandVar hands the launcher in a sandbox, where tmux cannot be
// asked, tmux's default-command ("" for none).
const DefaultCommandVar = "TMUXMCP_DEFAULT_COMMAND"

// SandboxedLaunch is how a session's first pane starts in a sandbox:
// sandboxed (the sandbox's command line, ending in the launcher's) runs
// after the launcher's first stage, outside the sandbox, has waited for
// tmuxmcp and read tmux's default-command, which it cannot inside.
func (in *Integration) SandboxedLaunch(sandboxed []string) []string {
	return append([]string{"/bin/sh", filepath.Join(in.dir, "launch"), "--sandbox"}, sandboxed...)
}

// SandboxedInner is the sandbox's command line a SandboxedLaunch command
// line args carries (the launcher's first stage, before it execs into
// it), and whether args is one.
func (in *Integration) SandboxedInner(args []string) ([]string, bool) {
	if in == nil {
		return nil, false
	}
	prefix := in.SandboxedLaunch(nil)
	if len(args) <= len(prefix) || !slices.Equal(args[:len(prefix)], prefix) {
		return nil, false
	}
	return args[len(prefix):], true
}

// RearmFile is the integration file a job script sources (in its
// hooks-only form) to put back the hooks of a shell of kind k that a
// command removed: bash's ENV file, or zsh's .zshrc; "" for other kinds.
func (in *Integration) RearmFile(k Kind) string {
	switch k {
	case Bash:
		return filepath.Join(in.dir, installed["tmuxmcp.bash"])
	case Zsh:
		return filepath.Join(in.dir, installed["zshrc.zsh"])
	}
	return ""
}

// Dir is where the scripts are.
func (in *Integration) Dir() string { return in.dir }

// Launch is how to start a pane's shell with the integration.
type Launch struct {
	// Argv starts the shell through the launcher, as a login shell (as tmux
	// starts one); the shell reads the user's own startup files.
	Argv []string
	// Env is the launcher's extra environment: the shell's tag, which the
	// launcher takes out of the environment before any other process runs.
	Env map[string]string
	// ID names the shell in public (a pane option): Secret(ID) is Tag.
	ID string
	// Tag is the shell's secret tag: its marks carry tmuxmcp=s<Tag>.
	Tag string
}

// Launch returns how to start shellPath with the integration; "" starts
// the shell tmux would ($SHELL in the pane, tmux's default-shell, or its
// default-command when one is set). A shell without an integration is
// started plainly, as tmux would.
func (in *Integration) Launch(shellPath string) Launch {
	id := NewTag()
	tag := in.Secret(id)
	argv := []string{"/bin/sh", filepath.Join(in.dir, "launch")}
	if shellPath != "" {
		argv = append(argv, shellPath)
	}
	return Launch{Argv: argv, Env: map[string]string{TagVar: tag}, ID: id, Tag: tag}
}

// Secret is the secret tag of the shell whose public ID is id (a Launch's
// ID), or "" for none: only the holder of the integration's key can tell
// it, and nothing about it shows in the pane.
func (in *Integration) Secret(id string) string {
	if in == nil || id == "" || len(in.key) == 0 {
		return ""
	}
	m := hmac.New(sha256.New, in.key)
	m.Write([]byte("shell\x00" + id))
	return hex.EncodeToString(m.Sum(nil)[:16])
}

// NewTag returns a new random public name (a shell's ID, a job script's
// file name).
func NewTag() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// NewSecret returns a new random secret (a job's mark tag).
func NewSecret() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// MarkTag is the tag a shell with tag tag puts in its marks.
func MarkTag(tag string) string { return "s" + tag }
