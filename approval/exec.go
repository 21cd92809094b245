package approval

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Request is what an approver program reads on its standard input, as
// one JSON object (--approval-via exec:PROGRAM).
type Request struct {
	RequestID string `json:"requestId"`
	Tool      string `json:"tool"`
	Command   string `json:"command"`
	// Shown is Command as a person sees it (Visible): control characters,
	// invisible Unicode and long blank runs written out.
	Shown   string `json:"shown"`
	Pane    string `json:"pane,omitempty"`
	Program string `json:"program,omitempty"`
	CWD     string `json:"cwd,omitempty"`
	// Host is the host the command runs on: "local" (this machine; Ask
	// fills it in when empty) or the name given with --host.
	Host   string            `json:"host"`
	Reason string            `json:"reason,omitempty"` // the agent's claim, not checked
	Env    map[string]string `json:"env,omitempty"`
	// Sandbox is where the command runs when tmuxmcp has a sandbox:
	// read-only, workspace, or unsandboxed.
	Sandbox string `json:"sandbox,omitempty"`
	// Escalate says the agent asks to run the command outside the sandbox
	// (escalate: true): approve only if it must leave it.
	Escalate bool `json:"escalate,omitempty"`
}

// AskProgram runs program (a path, no arguments) with req on its standard
// input and returns its answer: the first word of its output, "approve" or
// "deny" (any case), as soon as it is printed. Anything else — another
// answer, no output, a non-zero exit, a crash — is DeniedError with what
// happened; ctx ending first is DeniedTimeout. The program and everything
// it started are killed once the answer is in or ctx ends.
func AskProgram(ctx context.Context, program string, req Request) (Decision, error) {
	return AskCommand(ctx, program, nil, req)
}

// AskCommand is AskProgram with arguments for the program (such as
// tmuxmcp's own approve-telegram subcommand).
func AskCommand(ctx context.Context, program string, args []string, req Request) (Decision, error) {
	in, err := json.Marshal(req)
	if err != nil {
		return DeniedError, fmt.Errorf("encode request: %w", err)
	}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, program, args...)
	cmd.Stdin = bytes.NewReader(append(in, '\n'))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &limited{w: &stderr, n: 2048}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return DeniedError, err
	}
	if err := cmd.Start(); err != nil {
		return DeniedError, fmt.Errorf("start %s: %w", program, err)
	}
	answer := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(io.LimitReader(out, 4096))
		for sc.Scan() {
			if f := strings.Fields(sc.Text()); len(f) > 0 {
				answer <- strings.ToLower(f[0])
				return
			}
		}
		answer <- ""
	}()
	var got string
	select {
	case got = <-answer:
	case <-ctx.Done():
	}
	cancel() // the answer is in, or time is up: stop the program
	werr := cmd.Wait()
	switch got {
	case "approve", "approved", "yes", "y":
		return Approved, nil
	case "deny", "denied", "no", "n":
		return Denied, nil
	case "":
		if parent.Err() != nil {
			return DeniedTimeout, fmt.Errorf("%s did not answer in time", program)
		}
		return DeniedError, fmt.Errorf("%s ended without an answer (%v)%s", program, werr, tail(stderr.String()))
	}
	return DeniedError, fmt.Errorf("%s answered %q, not approve or deny%s", program, got, tail(stderr.String()))
}

func tail(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	return ": " + s
}

// limited writes at most n bytes to w and drops the rest.
type limited struct {
	w io.Writer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		_, _ = l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}
