package tools

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/jobs"
)

type listCommandsIn struct {
	Status *string `json:"status,omitempty"`
	Limit  *int    `json:"limit,omitempty"`
}

type commandSummary struct {
	JobID      string `json:"jobId"`
	Status     string `json:"status"`
	Command    string `json:"command"`
	PaneID     string `json:"paneId"`
	Host       string `json:"host"`
	ExitCode   *int   `json:"exitCode"`
	Created    string `json:"created"`
	DurationMs int64  `json:"durationMs"`
}

func (in *listCommandsIn) check() error {
	if in.Limit != nil && (*in.Limit < 1 || *in.Limit > 1000) {
		return errorf("limit %d: must be 1..1000", *in.Limit)
	}
	if in.Status != nil && !slices.Contains(jobs.Statuses(), jobs.Status(*in.Status)) {
		return errorf("status %q: use one of %s", *in.Status, strings.Join(names(jobs.Statuses()), ", "))
	}
	return nil
}

type listCommandsOut struct {
	Commands   []commandSummary `json:"commands"`
	HostErrors []hostError      `json:"hostErrors"`
}

func (h *Handlers) listCommandsTool() Tool {
	in := object(map[string]*jsonschema.Schema{
		"status": enum("Only jobs with this status.", names(jobs.Statuses())...),
		"limit":  withDefault(integer("At most this many jobs, newest first.", 1, 1000), 50),
	})
	item := outputObject(map[string]*jsonschema.Schema{
		"jobId":      str("Pass to await_command_result or cancel_command."),
		"status":     enum("The job's status.", names(jobs.Statuses())...),
		"command":    str("The command (first 200 bytes)."),
		"paneId":     paneID("Where it runs."),
		"host":       str("The host of its pane: local, or a --host name."),
		"exitCode":   nullable(integer("Exit status, or null.", 0, 255)),
		"created":    str("When it was submitted (RFC 3339)."),
		"durationMs": count("How long it ran (so far)."),
	})
	tool := &mcp.Tool{
		Name:         "list_commands",
		Title:        "List commands",
		Description:  "List the jobs run with run_shell_command (also before a tmuxmcp restart), newest first, with status and exit code: to find a lost jobId for await_command_result.",
		InputSchema:  in,
		OutputSchema: outputObject(map[string]*jsonschema.Schema{"commands": {Type: "array", Items: item, Description: "Jobs, newest first (of every host unless host is given)."}, "hostErrors": hostErrorsSchema()}),
		Annotations:  &mcp.ToolAnnotations{Title: "List commands", ReadOnlyHint: true, DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)},
	}
	return typed(h, tool, h.listCommands)
}

func (h *Handlers) listCommands(_ context.Context, _ *mcp.CallToolRequest, in *listCommandsIn) (*listCommandsOut, error) {
	limit := 50
	if in.Limit != nil {
		limit = *in.Limit
	}
	out := &listCommandsOut{Commands: []commandSummary{}, HostErrors: []hostError{}}
	for _, j := range h.jobs.List() {
		if in.Status != nil && string(j.Status) != *in.Status {
			continue
		}
		if len(out.Commands) == limit {
			break
		}
		r := h.jobResult(j)
		out.Commands = append(out.Commands, commandSummary{JobID: j.ID, Status: string(j.Status), Command: truncate(j.Command, 200),
			PaneID: j.PaneID, Host: h.opts.Host, ExitCode: j.ExitCode, Created: j.Created.Format(time.RFC3339), DurationMs: r.DurationMs})
	}
	return out, nil
}
