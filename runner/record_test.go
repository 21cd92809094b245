package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/internal/tmuxtest"
	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/shell"
	"github.com/tmuxmcp/tmuxmcp/stream"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// The recordings in testdata/streams are what real shells printed in a
// pane of a private tmux server while the runner ran one command there:
// TestRecordPaneStreams made them (go test ./runner -run
// TestRecordPaneStreams -record), and the watcher's tests replay them
// without tmux. Each is NAME.raw, the pane's bytes from its start to the
// prompt after the command, and NAME.json, what the runner recorded.

var recordStreams = flag.Bool("record", false, "record testdata/streams from real shells in a private tmux server")

// recordedTag stands for the random tag of the shell that was recorded, so
// that a recording does not change from one run to the next.
const recordedTag = "0123456789abcdef"

// recordedCommand is one recorded command.
type recordedCommand struct {
	Name    string `json:"-"`
	Shell   string `json:"shell"`   // the shell's program name
	Command string `json:"command"` // typed as is
	// From is the stream offset before the command was typed; StopAt, when
	// the command was stopped, the stream's end when cancel was asked.
	From   int64 `json:"from"`
	StopAt int64 `json:"stopAt,omitempty"`
	// Catches says the stopped command catches SIGINT; Program names its
	// program in front, with Others of its process group.
	Catches bool     `json:"catches,omitempty"`
	Program string   `json:"program,omitempty"`
	Others  []string `json:"others,omitempty"`
	// Job is the record the runner wrote; Prompt the prompt it remembered
	// in the pane.
	Job    recordedJob `json:"job"`
	Prompt string      `json:"prompt"`
	Stream []byte      `json:"-"`
}

// recordedJob is what a replay must reproduce of the job's record.
type recordedJob struct {
	Status     jobs.Status `json:"status"`
	ExitCode   *int        `json:"exitCode"`
	Signal     *string     `json:"signal"`
	Output     string      `json:"output"`
	EndOffset  int64       `json:"endOffset"`
	ShellReady bool        `json:"shellReady"`
}

func recordOf(j *jobs.Job) recordedJob {
	return recordedJob{Status: j.Status, ExitCode: j.ExitCode, Signal: j.Signal, Output: j.Output, EndOffset: j.EndOffset, ShellReady: j.ShellReady}
}

// loadRecordings reads testdata/streams.
func loadRecordings(t *testing.T) []recordedCommand {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "streams", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recordings in testdata/streams: %v", err)
	}
	var out []recordedCommand
	for _, f := range files {
		var rec recordedCommand
		b, err := os.ReadFile(f)
		if err == nil {
			err = json.Unmarshal(b, &rec)
		}
		if err == nil {
			rec.Stream, err = os.ReadFile(strings.TrimSuffix(f, ".json") + ".raw")
		}
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		rec.Name = strings.TrimSuffix(filepath.Base(f), ".json")
		out = append(out, rec)
	}
	return out
}

// scenario is a command to record.
type scenario struct {
	name, command string
	stop          bool // cancelled once its program runs
}

// recordedShells are the shells recorded, with the startup files that give
// each a short prompt.
var recordedShells = []struct {
	name, path string
	rc         map[string]string
}{
	{"bash", "/bin/bash", nil},
	{"zsh", "/usr/bin/zsh", nil},
	{"fish", "/usr/bin/fish", map[string]string{".config/fish/config.fish": "set -g fish_greeting\nfunction fish_prompt; echo -n '> '; end\n"}},
}

var recordedScenarios = []scenario{
	{name: "exit7", command: "printf 'hello\\n'; sh -c 'exit 7'"},
	{name: "sigint", command: "sleep 30", stop: true},
	{name: "trap", command: `sh -c 'trap "exit 3" INT; while :; do sleep 0.05; done'`, stop: true},
}

func TestRecordPaneStreams(t *testing.T) {
	if !*recordStreams {
		t.Skip("records testdata/streams: go test ./runner -run TestRecordPaneStreams -record")
	}
	for _, sh := range recordedShells {
		if _, err := exec.LookPath(sh.path); err != nil {
			t.Fatalf("%s is not installed", sh.path)
		}
		for _, sc := range recordedScenarios {
			t.Run(sh.name+"-"+sc.name, func(t *testing.T) {
				home := t.TempDir()
				for name, body := range sh.rc {
					if err := os.MkdirAll(filepath.Dir(filepath.Join(home, name)), 0o700); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(home, name), []byte(body), 0o600); err != nil {
						t.Fatal(err)
					}
				}
				if err := tmuxtest.DefaultRC(home); err != nil {
					t.Fatal(err)
				}
				rec := recordScenario(t, home, sh.path, sc)
				rec.Shell = sh.name
				writeRecording(t, sh.name+"-"+sc.name, rec)
			})
		}
	}
}

// recordEvents feeds a fleet's pane output into a hub and its listings to
// the runner, as tools does.
type recordEvents struct {
	hub *stream.Hub
	r   func() *Runner
}

func (e recordEvents) PaneOutput(pane int, data []byte) { e.hub.Output(pane, data) }
func (e recordEvents) PaneRestarted(pane int)           { e.hub.Restart(pane, stream.TopologyChanged) }
func (e recordEvents) PaneOutputDropped(pane int)       { e.hub.Dropped(pane) }
func (e recordEvents) Disconnected(error)               { e.hub.Lost() }
func (e recordEvents) Reconnected()                     { e.hub.Reconnected() }
func (e recordEvents) PanesListed(panes []tmux.PaneInfo, listedAt time.Time) {
	states := make([]stream.PaneState, len(panes))
	for i, p := range panes {
		states[i] = stream.PaneState{Pane: p.ID, Dead: p.Dead}
	}
	e.hub.Sync(states, listedAt)
	if r := e.r(); r != nil {
		r.Track(panes)
	}
}

// recordScenario runs sc in a new pane of shellPath's and returns what the
// pane printed and what the runner recorded.
func recordScenario(t *testing.T, home, shellPath string, sc scenario) recordedCommand {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	target := tmuxtest.ServerWith(t, tmux.SessionSpec{Name: "main", Width: 80, Height: 24}, home, "SHELL="+shellPath)
	state := t.TempDir()
	integ, err := shell.Install(filepath.Join(state, "shell"))
	if err != nil {
		t.Fatal(err)
	}
	store, err := jobs.Open(filepath.Join(state, "jobs"))
	if err != nil {
		t.Fatal(err)
	}
	hub := stream.NewHub(0)
	var r *Runner
	fleet, err := tmux.StartFleet(ctx, target, recordEvents{hub: hub, r: func() *Runner { return r }}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	r = New(Config{Hub: hub, Fleet: fleet, Jobs: store, Shell: integ, Session: "main"})
	defer func() {
		r.Close()
		fleet.Close()
		hub.Close()
	}()
	np, err := r.CreatePane(ctx, PaneSpec{CWD: home}) // fish shows its directory: ~ in every recording
	if err != nil {
		t.Fatal(err)
	}
	sh, err := r.Ready(ctx, np.Pane, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	j, err := store.Create(&jobs.Job{Status: jobs.Running, Command: sc.command, OutputLimit: 8192, Decision: "allowed"})
	if err != nil {
		t.Fatal(err)
	}
	st, err := r.Start(ctx, j, sh, "")
	if err != nil || st.Job.Mode != jobs.Integrated {
		t.Fatalf("start: %v (mode %v)", err, st.Job.Mode)
	}
	r.Spawn(st)
	rec := recordedCommand{Command: sc.command, From: st.From}
	if sc.stop {
		rec.StopAt, rec.Program, rec.Others, rec.Catches = stopWhenRunning(t, ctx, r, sh, st)
	}
	for {
		got, _ := r.Await(ctx, j.ID, 10*time.Second)
		if got.Done() {
			rec.Job = recordOf(got)
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the job did not end: %+v", got)
		}
	}
	p, err := fleet.Pane(ctx, np.Pane)
	if err != nil {
		t.Fatal(err)
	}
	rec.Prompt = p.Prompt
	c := np.Stream.ReadRaw(0, int(np.Stream.End()), nil)
	if c.From != 0 {
		t.Fatal("the recording lost its start")
	}
	rec.Stream = bytes.ReplaceAll(c.Data, []byte(np.Tag), []byte(recordedTag))
	return rec
}

// stopWhenRunning cancels the job once its start mark is in the stream and
// its program runs in front of the shell, and returns the stream's end
// then and what the probe saw.
func stopWhenRunning(t *testing.T, ctx context.Context, r *Runner, sh *Shell, st *Started) (int64, string, []string, bool) {
	for ctx.Err() == nil {
		probe, err := r.machine.Probe(sh.PID, sh.TTY)
		if err == nil && !probe.ShellGroup && probe.RunsProgram() && lastMarks(st.Stream, sh.Tag).last == 'C' {
			at := st.Stream.End()
			r.Cancel(st.Job.ID)
			return at, probe.Leader, probe.Others, probe.CatchesInterrupt()
		}
		select {
		case <-ctx.Done():
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatal("the command's program never ran")
	return 0, "", nil, false
}

func writeRecording(t *testing.T, name string, rec recordedCommand) {
	dir := filepath.Join("testdata", "streams")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".json"), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".raw"), rec.Stream, 0o644); err != nil {
		t.Fatal(err)
	}
}
