package tools

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/tmuxmcp/tmuxmcp/audit"
	"github.com/tmuxmcp/tmuxmcp/cursor"
	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/shell"
	"github.com/tmuxmcp/tmuxmcp/stream"
)

// shellCommand returns how to start a pane's shell: with integration when
// tmux would start bash or zsh and no default-command overrides it.
func (h *Handlers) shellCommand(ctx context.Context) (argv []string, env map[string]string, integrated bool) {
	if h.integ == nil {
		return nil, nil, false
	}
	if cmd, err := h.fleet.Exec(ctx, "show-options", "-gv", "default-command"); err != nil || strings.TrimSpace(strings.Join(cmd, "")) != "" {
		return nil, nil, false
	}
	sh, err := h.fleet.Exec(ctx, "show-options", "-gv", "default-shell")
	if err != nil || len(sh) == 0 {
		return nil, nil, false
	}
	argv, env, ok := h.integ.Command(strings.TrimSpace(sh[0]))
	return argv, env, ok
}

// waitMark sleeps on the stream until a mark of kind appears.
func waitMark(ctx context.Context, s *stream.PaneStream, kind byte) error {
	scanner := shell.NewMarkScanner(0)
	var pos int64
	var buf []byte
	for {
		c := s.ReadRaw(pos, 64<<10, buf)
		buf = c.Data[:0]
		if c.From > pos {
			scanner = shell.NewMarkScanner(c.From)
		}
		for _, m := range scanner.Feed(c.Data) {
			if m.Kind == kind {
				return nil
			}
		}
		pos = c.From + int64(len(c.Data))
		if pos < c.End {
			continue
		}
		if c.Ended {
			return fmt.Errorf("the pane closed")
		}
		select {
		case <-c.Changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// hubStream finds a recording by its id's hex form.
func (h *Handlers) hubStream(hexID string) (*stream.PaneStream, bool) {
	c, err := cursor.Parse("ltxc1." + hexID + ".0")
	if err != nil {
		return nil, false
	}
	return h.hub.Stream(c.Stream)
}

type fileTail struct {
	text string
	size int64
}

// readTail reads the last limit bytes of a file and its size.
func readTail(path string, limit int) (fileTail, error) {
	f, err := os.Open(path)
	if err != nil {
		return fileTail{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fileTail{}, err
	}
	off := max(0, st.Size()-int64(limit))
	b := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(b, off); err != nil && err != io.EOF {
		return fileTail{}, err
	}
	return fileTail{text: strings.ToValidUTF8(string(b), ""), size: st.Size()}, nil
}

// resumeJobs picks up jobs that were running when tmuxmcp stopped: each
// is watched again on its pane's new recording.
func (h *Handlers) resumeJobs(ctx context.Context) {
	for _, j := range h.jobs.List() {
		if j.Decision == "pending" {
			// Nobody answers a review that a previous tmuxmcp opened.
			_, _ = h.jobs.Update(j.ID, func(x *jobs.Job) { x.Decision, x.Ended = "denied-error", time.Now().UTC() })
			h.audit(audit.Event{Event: "decision", JobID: j.ID, PaneID: j.PaneID, Command: j.Command, Decision: "denied-error", DecidedBy: "tmuxmcp: restarted during the review"})
			continue
		}
		if j.Done() {
			continue
		}
		n, err := parsePaneID("paneId", j.PaneID)
		if err == nil {
			err = h.paneExists(ctx, "paneId", n)
		}
		if err != nil {
			_, _ = h.jobs.Update(j.ID, func(x *jobs.Job) { x.Status = jobs.PaneDied; x.Ended = time.Now().UTC() })
			continue
		}
		s, ok := h.hub.Live(n)
		if !ok {
			s = h.hub.Adopt(n)
		}
		if s.ID().String() != j.Stream {
			// A new recording: its first end mark is this job's.
			_, _ = h.jobs.Update(j.ID, func(x *jobs.Job) { x.Stream, x.StartOffset = s.ID().String(), 0 })
			h.watch(j.ID, s, 0, true)
			continue
		}
		h.watch(j.ID, s, j.StartOffset, false)
	}
}
