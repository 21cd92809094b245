package approval

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/internal/tmuxtest"
)

func TestMain(m *testing.M) { tmuxtest.Main(m) }

// The popup script in a real terminal: a request that fits takes y; one
// taller than the window shows its top and takes only n, so nobody
// approves what scrolled out of sight.
func TestThePopupNeverApprovesWhatDoesNotFit(t *testing.T) {
	target := tmuxtest.Server(t, "popup", 100, 12)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dir := t.TempDir()
	script := filepath.Join(dir, "ask.sh")
	if err := os.WriteFile(script, []byte(popupScript), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		rows int
		want string
	}{
		{"fits", 3, "y"},
		{"too tall", 30, "n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			details := filepath.Join(dir, c.name+".txt")
			answer := filepath.Join(dir, c.name+".answer")
			if err := os.WriteFile(details, []byte(strings.Repeat("    echo row\n", c.rows)), 0o600); err != nil {
				t.Fatal(err)
			}
			signal := "popup-" + strings.ReplaceAll(c.name, " ", "-")
			cmd := "sh " + quote(script) + " " + quote(answer) + " " + quote(details) + "; tmux wait-for -S " + signal
			if _, err := target.Run(ctx, "new-window", "-t", "popup", cmd); err != nil {
				t.Fatal(err)
			}
			// y first: taken only when the request fits; then n.
			if _, err := target.Run(ctx, "send-keys", "-t", "popup", "y"); err != nil {
				t.Fatal(err)
			}
			if c.want == "n" {
				if _, err := target.Run(ctx, "send-keys", "-t", "popup", "n"); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := target.Run(ctx, "wait-for", signal); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(answer)
			if string(got) != c.want {
				t.Fatalf("answer %q, want %q", got, c.want)
			}
		})
	}
}
