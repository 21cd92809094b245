package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// preflightTimeout bounds the preflight run and the version query.
const preflightTimeout = 10 * time.Second

// Version is what `bwrap --version` prints ("bubblewrap 0.8.0"), checked
// against MinVersion.
func (s *Sandbox) Version(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, preflightTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, s.bwrap, "--version").Output()
	v := strings.TrimSpace(string(out))
	if err != nil {
		return v, &Error{Reason: fmt.Sprintf("%s --version failed: %v", s.bwrap, err), Fix: "reinstall bubblewrap (apt-get install bubblewrap), or run with --sandbox off"}
	}
	if !AtLeast(v, MinVersion) {
		return v, &Error{Reason: fmt.Sprintf("%s is %q; the sandbox needs bubblewrap %s or newer", s.bwrap, v, MinVersion), Fix: "upgrade bubblewrap, or run with --sandbox off"}
	}
	return v, nil
}

// AtLeast reports whether the version in text (its last word, e.g.
// "bubblewrap 0.8.0") is min or newer.
func AtLeast(text, min string) bool {
	f := strings.Fields(text)
	if len(f) == 0 {
		return false
	}
	have, want := strings.Split(f[len(f)-1], "."), strings.Split(min, ".")
	for i := range want {
		if i >= len(have) {
			return false
		}
		h, err1 := strconv.Atoi(strings.TrimLeft(have[i], "v"))
		w, err2 := strconv.Atoi(want[i])
		if err1 != nil || err2 != nil {
			return false
		}
		if h != w {
			return h > w
		}
	}
	return true
}

// Preflight starts the sandbox once, running true in it, with expose
// bound as a pane's would be: what bwrap says when it cannot is the
// reason. tmuxmcp runs it at start-up and refuses to start on failure.
func (s *Sandbox) Preflight(ctx context.Context, expose ...Bind) error {
	if _, err := s.Version(ctx); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, preflightTimeout)
	defer cancel()
	argv := s.Command([]string{"true"}, expose...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return &Error{Reason: "bubblewrap cannot start a sandbox here: " + msg, Fix: "act on bwrap's message above; when it is about namespaces or permissions, make user namespaces available (sysctl user.max_user_namespaces, kernel.unprivileged_userns_clone, Ubuntu's kernel.apparmor_restrict_unprivileged_userns), run tmuxmcp outside a container that forbids them, or run with --sandbox off"}
	}
	return nil
}
