package tools

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oklog/ulid/v2"
	"github.com/tmuxmcp/tmuxmcp/approval"
	"github.com/tmuxmcp/tmuxmcp/cursor"
	"github.com/tmuxmcp/tmuxmcp/jobs"
)

type jobOut struct {
	JobID        string  `json:"jobId"`
	Status       string  `json:"status"`
	Decision     string  `json:"decision"`
	ExitCode     *int    `json:"exitCode"`
	Signal       *string `json:"signal"`
	Output       string  `json:"output"`
	OutputBytes  int64   `json:"outputBytes"`
	OmittedBytes int64   `json:"omittedBytes"`
	OutputFile   *string `json:"outputFile"`
	// OutputFileComplete says outputFile holds every byte; false with
	// OutputFileError when a write failed.
	OutputFileComplete bool    `json:"outputFileComplete"`
	OutputFileError    *string `json:"outputFileError"`
	MissedBytes        int64   `json:"missedBytes"`
	Cursor             *string `json:"cursor"`
	OutputCursor       string  `json:"outputCursor"`
	PaneID             *string `json:"paneId"`
	Host               string  `json:"host"`
	DurationMs         int64   `json:"durationMs"`
	LaunchOutcome      string  `json:"launchOutcome"`
	LaunchError        *string `json:"launchError"`
	Shell              *string `json:"shell"`
	ShellReady         bool    `json:"shellReady"`
	WaitingForInput    bool    `json:"waitingForInput"`
	Foreground         *string `json:"foreground"`
	Prompt             *string `json:"prompt"`
}

func jobOutSchema() *jsonschema.Schema {
	return outputObject(map[string]*jsonschema.Schema{
		"jobId":              str("The job's id: pass it to await_command_result or cancel_command."),
		"host":               str("The host the job runs on: local, or a --host name."),
		"status":             terms("", jobs.Statuses(), statusMeans(), ""),
		"decision":           terms("Whether it was allowed to run", approval.Reported(), decisionMeans(), ""),
		"exitCode":           nullable(integer("The shell's exit status of the command ($?), or null while running or when unknown. Above 128 means killed by a signal (see signal).", 0, 255)),
		"signal":             nullable(str("The signal that ended it (e.g. SIGINT, SIGTERM), or null.")),
		"output":             str("The command's own output (stdout and stderr as the terminal showed them; no echo, prompt or marks), plain text. When it is longer than outputLimit: its first and last whole lines, with one line between them saying how many bytes and lines were left out (outputFile has them all)."),
		"outputBytes":        count("Total bytes of output so far."),
		"omittedBytes":       count("Bytes of the output left out of output (its middle) by outputLimit: read outputFile for all of it."),
		"outputFile":         nullable(str("A file holding the whole output, when output was cut; else null.")),
		"outputFileComplete": boolean("outputFile holds every byte of the output (true also when no file was needed). false: writing it failed (outputFileError says why: a full disk, an I/O error); output and outputBytes are still right."),
		"outputFileError":    nullable(str("Why outputFile is not whole, or null.")),
		"missedBytes":        count("Output lost before tmuxmcp could record it (evicted, or printed while tmuxmcp was restarting): non-zero means output is incomplete."),
		"cursor":             nullable(cursorSchema("Stream position after the command; while it runs, after its output so far (never before tmuxmcp's own typed line): wait_for_text or capture_since from it.")),
		"outputCursor":       cursorSchema("The position after the output so far: pass it as cursor to await_command_result to get only what the command prints next."),
		"paneId":             nullable(paneID("The pane it runs in, or null while no pane was chosen yet (a fresh pane waiting for approval, or blocked).")),
		"durationMs":         count("How long it has run."),
		"launchOutcome":      enum("STARTED when the command was typed into the shell; NOT_STARTED when nothing ran (with status running: a fresh pane's shell is still starting, and the command is typed once it is ready).", "STARTED", "NOT_STARTED"),
		"launchError":        nullable(str("Why a not_started command did not start (its fresh pane's shell never got ready, the shell took it as unfinished), or null.")),
		"shell":              nullable(enum("The shell that ran it — the command is that shell's language: bash, zsh, fish, or sh (sh, dash, ksh); null before it started.", "bash", "zsh", "fish", "sh")),
		"shellReady":         boolean("The pane's shell is back at its prompt reading input: the next command, type_text or send_keys on the pane can go at once. false while running, for a fresh pane (closed when done), or when the prompt did not come back within 5 s of the command's end."),
		"waitingForInput":    boolean("With status running: its program is blocked reading the terminal and has printed nothing for 0.5 s — a question ([y/N], Password:), a REPL, a pager or an editor. The call returns as soon as that is so. Answer with type_text (submit: true) or send_keys (q quits a pager), or stop it with cancel_command; awaiting again only waits."),
		"foreground":         nullable(str("With waitingForInput: the program waiting (less, python3, sudo), else null.")),
		"prompt":             nullable(str("With waitingForInput: the text before the cursor on its line — the question it asks, a pager's : or (END) — else null.")),
	})
}

// outputCursor is the position after the first offset bytes of job id's
// output: ltxc1.<the job id's 16 bytes>.<offset>.
func outputCursor(id string, offset int64) string {
	var sid cursor.StreamID
	if u, err := ulid.ParseStrict(strings.ToUpper(id)); err == nil {
		sid = cursor.StreamID(u)
	}
	return cursor.Cursor{Stream: sid, Offset: offset}.String()
}

// awaitJob waits up to wait for the job to end and reports its state.
// When the client sent a progress token, it is told each second how long
// the job has run and its last line of output.
func (h *Handlers) awaitJob(ctx context.Context, req *mcp.CallToolRequest, id string, wait time.Duration) (*jobOut, error) {
	if _, ok := h.jobs.Get(id); !ok {
		return nil, errorf("jobId %q: no such job (list_commands shows the jobs tmuxmcp knows)", id)
	}
	if req != nil && req.Params != nil && req.Session != nil {
		if token := req.Params.GetProgressToken(); token != nil && wait > time.Second {
			stop := make(chan struct{})
			defer close(stop)
			go h.reportProgress(ctx, req, token, id, wait, stop)
		}
	}
	if j, _ := h.jobs.Get(id); h.opts.Machine != nil && !j.Done() && j.Decision != "pending" && !h.run.Watching(id) {
		// A job of a remote host nobody watches: the link dropped. Once it
		// is back the job is watched again, or its status collected.
		if h.connected() == nil {
			h.run.Rewatch(ctx)
		}
	}
	j, _ := h.run.Await(ctx, id, wait)
	h.lineAfterJob(j) // before the caller's next call, whenever the job's own end was noted
	out := h.jobResult(j)
	h.noteInputWait(ctx, j, out)
	return out, nil
}

// noteInputWait sets waitingForInput, foreground and prompt on a running
// job's result whose program waits for someone to type.
func (h *Handlers) noteInputWait(ctx context.Context, j *jobs.Job, out *jobOut) {
	if j.Done() || j.Started.IsZero() || j.PaneID == "" {
		return
	}
	pane, err := parsePaneID("paneId", j.PaneID)
	if err != nil {
		return
	}
	if w, ok := h.run.WaitingForInput(ctx, pane); ok {
		out.WaitingForInput, out.Foreground, out.Prompt = true, ptr(w.Program), ptr(w.Prompt)
	}
}

// reportProgress sends a progress notification each second until stop:
// the job's running time against wait, and its last line of output.
func (h *Handlers) reportProgress(ctx context.Context, req *mcp.CallToolRequest, token any, id string, wait time.Duration, stop <-chan struct{}) {
	start := time.Now()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		case <-t.C:
		}
		j, ok := h.jobs.Get(id)
		if !ok || j.Done() {
			return
		}
		text, size, _ := h.run.Output(j)
		last := strings.TrimSpace(text[strings.LastIndexByte(strings.TrimRight(text, "\n"), '\n')+1:])
		msg := fmt.Sprintf("job %s running, %d bytes of output", id, size)
		if last != "" {
			msg += ": " + truncate(approval.Visible(last), 200)
		}
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
			ProgressToken: token,
			Progress:      float64(time.Since(start).Milliseconds()),
			Total:         float64(wait.Milliseconds()),
			Message:       msg,
		})
	}
}

func (h *Handlers) jobResult(j *jobs.Job) *jobOut {
	out := &jobOut{JobID: j.ID, Host: h.opts.Host, Status: string(j.Status), Decision: j.Decision, ExitCode: j.ExitCode, Signal: j.Signal,
		LaunchOutcome: "STARTED"}
	if j.PaneID != "" {
		out.PaneID = ptr(j.PaneID)
	}
	if j.Status == jobs.NotStarted || j.Started.IsZero() {
		// Nothing typed (yet: a fresh pane's shell may still be starting).
		out.LaunchOutcome = "NOT_STARTED"
	}
	end := j.Ended
	if end.IsZero() {
		end = time.Now()
	}
	if !j.Started.IsZero() {
		out.DurationMs = end.Sub(j.Started).Milliseconds()
	}
	out.Output, out.OutputBytes, out.OmittedBytes = j.Output, j.OutputBytes, j.OmittedBytes
	// The cursor is taken before the output is read: output may then hold
	// a little more than the cursor is past (seen twice), never less.
	var running struct {
		at    int64
		begun bool
	}
	if !j.Done() {
		running.at, running.begun = h.run.RunningCursor(j.ID)
		out.Output, out.OutputBytes, out.OmittedBytes = h.run.Output(j)
	}
	out.OutputCursor = outputCursor(j.ID, out.OutputBytes)
	if j.Shell != "" {
		out.Shell = ptr(j.Shell)
	}
	out.ShellReady = j.ShellReady
	if j.LaunchError != "" {
		out.LaunchError = ptr(j.LaunchError)
	}
	if out.OmittedBytes == 0 && j.OmittedBytes == 0 && out.OutputBytes > int64(len(out.Output)) && j.Done() {
		// A record from before head-and-tail output: its text is the tail.
		out.OmittedBytes = out.OutputBytes - int64(len(out.Output))
	}
	out.MissedBytes = j.MissedBytes
	if j.OutputFile != "" {
		out.OutputFile = ptr(j.OutputFile)
	}
	out.OutputFileComplete = j.OutputFileError == ""
	if j.OutputFileError != "" {
		out.OutputFileError = ptr(j.OutputFileError)
	}
	if n, err := parsePaneID("paneId", j.PaneID); err == nil {
		if s, ok := h.hub.Live(n); ok && s.ID().String() == j.Stream {
			off := j.EndOffset
			if !j.Done() || off == 0 {
				off = s.End()
			}
			if !j.Done() && running.begun {
				off = running.at // after the typed line and the output so far
			}
			out.Cursor = cursorText(s, off)
		} else if s, ok := h.hubStream(j.Stream); ok {
			out.Cursor = cursorText(s, j.EndOffset)
		}
	}
	return out
}
