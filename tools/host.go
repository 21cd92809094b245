package tools

import (
	"context"
	"io"

	"github.com/tmuxmcp/tmuxmcp/engine"
	"github.com/tmuxmcp/tmuxmcp/stream"
)

// Host is what the adapter needs of one host: a method per tool, and the
// panes' recordings for the resources. *engine.Host is one; tests of what
// MCP adds (decoding, schemas, errors, elicitation, progress) use a fake.
type Host interface {
	WaitForText(context.Context, engine.Caller, *engine.WaitForTextRequest) (*engine.WaitForTextResult, error)
	CaptureSince(context.Context, engine.Caller, *engine.CaptureSinceRequest) (*engine.CaptureSinceResult, error)
	CapturePane(context.Context, engine.Caller, *engine.CapturePaneRequest) (*engine.CapturePaneResult, error)
	TypeText(context.Context, engine.Caller, *engine.TypeTextRequest) (*engine.InputResult, error)
	SendKeys(context.Context, engine.Caller, *engine.SendKeysRequest) (*engine.InputResult, error)
	CreatePane(context.Context, engine.Caller, *engine.CreatePaneRequest) (*engine.CreatePaneResult, error)
	KillPane(context.Context, engine.Caller, *engine.KillPaneRequest) (*engine.KillPaneResult, error)
	RunShellCommand(context.Context, engine.Caller, *engine.RunShellCommandRequest) (*engine.JobResult, error)
	AwaitCommandResult(context.Context, engine.Caller, *engine.AwaitCommandResultRequest) (*engine.JobResult, error)
	CancelCommand(context.Context, engine.Caller, *engine.CancelCommandRequest) (*engine.JobResult, error)
	AskPerson(context.Context, engine.Caller, *engine.AskPersonRequest) (*engine.AskPersonResult, error)

	// OnPanes calls f with the panes now and after every change.
	OnPanes(f func([]engine.PaneEntry))
	// Recording is a pane's live recording; field names the argument.
	Recording(ctx context.Context, field, paneID string) (*stream.PaneStream, error)
	// Recorded are the panes with a live recording.
	Recorded() []int
	// RecordPane writes a pane's retained output as an asciicast v2
	// recording.
	RecordPane(ctx context.Context, paneID string, w io.Writer) (*engine.RecordInfo, error)
	// CloseStreams ends every stream (the first step of a drain).
	CloseStreams()
}

// Hosts is what the adapter needs of the set of hosts.
type Hosts interface {
	// For is the host a request runs on.
	For(ctx context.Context, req engine.Routed) (Host, error)
	// Local is this machine's host (the resources' panes).
	Local() Host
	// Started are the hosts running now.
	Started() []Host
	// Remote reports whether hosts other than this machine are configured.
	Remote() bool
	// ListPanes lists the panes of the host named, or of every host.
	ListPanes(context.Context, engine.Caller, *engine.ListPanesRequest) (*engine.ListPanesResult, error)
	// ListCommands lists the jobs of the host named, or of every host.
	ListCommands(context.Context, engine.Caller, *engine.ListCommandsRequest) (*engine.ListCommandsResult, error)
	// Config is the local host's configuration (limits in descriptions).
	Config() engine.Config
}

// Engine is hosts as the adapter consumes them.
func Engine(hosts *engine.Hosts) Hosts { return engineHosts{hosts} }

type engineHosts struct{ hs *engine.Hosts }

func (e engineHosts) For(ctx context.Context, req engine.Routed) (Host, error) {
	h, err := e.hs.For(ctx, req)
	if err != nil {
		return nil, err
	}
	return h, nil
}

func (e engineHosts) Local() Host { return e.hs.Local() }

func (e engineHosts) Started() []Host {
	var out []Host
	for _, h := range e.hs.Started() {
		out = append(out, h)
	}
	return out
}

func (e engineHosts) Remote() bool { return len(e.hs.Remotes()) > 0 }

func (e engineHosts) ListPanes(ctx context.Context, c engine.Caller, in *engine.ListPanesRequest) (*engine.ListPanesResult, error) {
	return e.hs.ListPanes(ctx, c, in)
}

func (e engineHosts) ListCommands(ctx context.Context, c engine.Caller, in *engine.ListCommandsRequest) (*engine.ListCommandsResult, error) {
	return e.hs.ListCommands(ctx, c, in)
}

func (e engineHosts) Config() engine.Config { return e.hs.Local().Config() }
