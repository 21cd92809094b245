package host

import (
	"context"
	"errors"

	"github.com/tmuxmcp/tmuxmcp/shell"
)

func (s *SSH) probe(ctx context.Context, pid int, tty string) (shell.Probe, error) {
	return shell.Probe{}, errors.New("remote probe: pending")
}
