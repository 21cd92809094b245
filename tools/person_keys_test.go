package tools

import (
	"context"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/internal/tmuxtest"
)

// TestAPersonsLoneEscapeAtThePromptDoesNotChangeTheNextCommand: a person
// watching presses Escape at an idle prompt (readline and zle take it as a
// Meta prefix, vi mode as command mode, and nothing shows on screen); the
// agent's next command still runs exactly as written.
func TestAPersonsLoneEscapeAtThePromptDoesNotChangeTheNextCommand(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, sh, rc string }{
		{"bash", "/bin/bash", ""},
		{"bash-vi", "/bin/bash", "set -o vi\n"},
		{"zsh", "/bin/zsh", ""},
		{"fish", "/usr/bin/fish", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			files := map[string]string{}
			if c.rc != "" {
				files[".bashrc"] = "PS1='$ '\n" + c.rc
			}
			e := homeEnv(t, c.sh, files)
			pane, _ := e.shell(t)
			// The person looks at the agent's pane and presses Escape.
			if _, err := e.target.Run(context.Background(), "select-window", "-t", pane); err != nil {
				t.Fatal(err)
			}
			human := tmuxtest.AttachHuman(t, e.target, "agent", 120, 40)
			if !human.WaitFor(0, "[agent]", 20*time.Second) {
				t.Fatalf("the person's client shows no status line: %q", human.Screen())
			}
			if err := human.Type("\x1b"); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Second) // tmux's escape-time: the Escape reaches the pane alone
			r := e.runCmd(t, map[string]any{"paneId": pane, "command": "echo esc-ok", "waitMs": 20000})
			if r.Str("status") != "completed" || r.Num("exitCode") != 0 || r.Str("output") != "esc-ok\n" {
				t.Fatalf("after a person's Escape, echo esc-ok gave %v", r)
			}
		})
	}
}
