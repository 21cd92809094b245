// Package jobs keeps the records of commands run with run_shell_command:
// one JSON file per job under a state directory, so a job's final status
// and output stay collectable after the call that started it returned, and
// across a tmuxmcp restart; and the requestId index that makes a retried
// call return the first job instead of running the command again. It knows
// nothing of tmux or MCP.
package jobs

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tmuxmcp/tmuxmcp/private"
)

// Status is where a job is in its life (SPEC §3, run_shell_command status).
type Status string

// The statuses of a job.
const (
	Completed   Status = "completed"
	Running     Status = "running"
	Interrupted Status = "interrupted"
	TimedOut    Status = "timed_out"
	PaneDied    Status = "pane_died"
	NotStarted  Status = "not_started"
)

// Statuses returns every status, in the order results and docs list them.
func Statuses() []Status {
	return []Status{Completed, Running, Interrupted, TimedOut, PaneDied, NotStarted}
}

// Mode is how a job's command reached its shell.
type Mode string

// The modes of a job.
const (
	// Integrated: typed as is into an integrated shell, whose own marks
	// (with the shell's tag) end it.
	Integrated Mode = "integrated"
	// Wrapper: a job script sourced by the shell, with marks of its own.
	Wrapper Mode = "wrapper"
)

// Job is one command run in a pane.
type Job struct {
	ID          string `json:"id"`
	RequestID   string `json:"requestId,omitempty"`
	Command     string `json:"command"`
	Reason      string `json:"reason,omitempty"`
	Description string `json:"description,omitempty"`
	PaneID      string `json:"paneId"`
	// Host is the host the pane is on: "" or "local" for this machine,
	// else a --host name.
	Host        string  `json:"host,omitempty"`
	FreshPane   bool    `json:"freshPane,omitempty"`
	Keep        bool    `json:"keep,omitempty"`
	Mode        Mode    `json:"mode"`                // Integrated (typed as is) or Wrapper (a sourced script)
	Shell       string  `json:"shell,omitempty"`     // the kind of shell it ran in: bash, zsh, fish or sh
	ShellTag    string  `json:"shellTag,omitempty"`  // the integrated shell's mark tag, when it has one
	PaneTitle   string  `json:"paneTitle,omitempty"` // the title to restore after a description
	Status      Status  `json:"status"`
	Decision    string  `json:"decision"`
	ExitCode    *int    `json:"exitCode"`
	Signal      *string `json:"signal"`
	Stream      string  `json:"stream"`      // stream id (hex) the offsets refer to
	StartOffset int64   `json:"startOffset"` // stream position before the command was typed
	EndOffset   int64   `json:"endOffset"`   // stream position after the command's end mark
	OutputLimit int     `json:"outputLimit"`
	Output      string  `json:"output"` // the bounded tail
	OutputBytes int64   `json:"outputBytes"`
	// OmittedBytes is how much of the output Output leaves out (its
	// middle, when it keeps the head and the tail).
	OmittedBytes int64  `json:"omittedBytes,omitempty"`
	MissedBytes  int64  `json:"missedBytes,omitempty"`
	OutputFile   string `json:"outputFile,omitempty"`
	// OutputFileError is why the output file is not whole (a failed
	// write: a full disk, an I/O error), or "".
	OutputFileError string    `json:"outputFileError,omitempty"`
	TimeoutMs       int64     `json:"timeoutMs,omitempty"`
	Created         time.Time `json:"created"`
	Started         time.Time `json:"started"`
	Ended           time.Time `json:"ended,omitzero"`
	// ShellReady says the pane's shell was back at its prompt, reading
	// input, when the job ended; ReadyWaitMs is how long that took after
	// the command's end mark.
	ShellReady  bool   `json:"shellReady,omitempty"`
	ReadyWaitMs int64  `json:"readyWaitMs,omitempty"`
	LaunchError string `json:"launchError,omitempty"` // why a not_started job did not start
	// Note says what happened to the pane's shell integration around the
	// command: it removed the integration's hooks (its status is then
	// unknown), or tmuxmcp put them back before it ran.
	Note string `json:"note,omitempty"`
	// Secret tags the marks of the job's script (Wrapper): a random
	// value no process of the pane can read, never typed or shown.
	Secret string `json:"secret,omitempty"`
	// Script is the random name of the job's script files (its .run,
	// .sh, .rc, .key and .tag); "" for records written before it had one (the
	// files were named after the job's id).
	Script string `json:"script,omitempty"`
	// ShellGroup is the process group of the shell the command was typed
	// into: only it, in front of the terminal, ends the command.
	ShellGroup int `json:"shellGroup,omitempty"`
	// ScriptTag is the tag (MarkTag's form) of the pane's first shell,
	// which names where the job's script files are (a sandboxed pane's own
	// job directory); "" for the machine's jobs directory. Records from
	// before it use ShellTag.
	ScriptTag string `json:"scriptTag,omitempty"`
	// OutputAt pairs positions in the job's recording (Stream) with
	// positions in its output, in order: a cursor of the recording that a
	// result gave is where the output after it starts.
	OutputAt []Position `json:"outputAt,omitempty"`
	// KeptDead is set while tmux is made to keep the job's pane, dead,
	// if its shell ends during the job (so its exit status or signal can
	// be read): what to put back at the job's end.
	KeptDead *KeptDead `json:"keptDead,omitempty"`

	// FoldedRedraws is how many times a line was drawn again (a progress
	// bar's carriage return) and shown once, in its final state.
	FoldedRedraws int64 `json:"foldedRedraws,omitempty"`
	// PersonInput says a person's tmux client sent keys to the job's pane
	// while it ran (checked for jobs that ran a second or longer).
	PersonInput bool `json:"personInput,omitempty"`
}

// KeptDead is how a pane was changed to be kept when its shell dies: its
// own setting to put back ("": none, it inherits), and whether it closes
// once its status is read (it would have closed by itself).
type KeptDead struct {
	Restore string `json:"restore,omitempty"`
	Closes  bool   `json:"closes,omitempty"`
}

// Position is one place in a job's output: Stream is the offset in the
// pane's recording, Output the output bytes before it.
type Position struct {
	Stream int64 `json:"s"`
	Output int64 `json:"o"`
}

// Done reports whether the job has reached a final status.
func (j *Job) Done() bool { return j.Status != Running }

// Store holds job records in memory and in dir.
type Store struct {
	dir string

	mu        sync.Mutex
	jobs      map[string]*Job
	byRequest map[string]string
	ignored   []error // records Open did not load, and why
}

// Open loads the records under dir, making it (mode 0700) when missing.
// The directory must be private (package private): another user's, or
// one others may write, is refused. A record that is not a private file
// of the user's is ignored (Ignored says which and why).
func Open(dir string) (*Store, error) {
	if err := private.Dir(dir); err != nil {
		return nil, fmt.Errorf("job state directory: %w", err)
	}
	s := &Store{dir: dir, jobs: map[string]*Job{}, byRequest: map[string]string{}}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		j, err := readRecord(f)
		if err != nil {
			var pe *private.Error
			if errors.As(err, &pe) {
				s.ignored = append(s.ignored, err)
			}
			continue
		}
		s.jobs[j.ID] = j
		if j.RequestID != "" {
			s.byRequest[j.RequestID] = j.ID
		}
	}
	return s, nil
}

// Ignored lists the records Open found but did not load because they were
// not the user's private files (another user's, a link, a mode others may
// write), each error naming the file and the fix.
func (s *Store) Ignored() []error { return s.ignored }

// readRecord reads the job record at path: a private file of the user's
// (a *private.Error otherwise) holding a job.
func readRecord(path string) (*Job, error) {
	f, err := private.OpenFile(path, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	var j Job
	if err := json.Unmarshal(b, &j); err != nil {
		return nil, err
	}
	if j.ID == "" {
		return nil, fmt.Errorf("%s: no job id", path)
	}
	return &j, nil
}

// MaxRecords bounds the job records kept: past it, the oldest finished
// jobs (and their output files) are deleted first.
const MaxRecords = 10000

// prune deletes the oldest finished records beyond MaxRecords; s.mu is held.
func (s *Store) pruneLocked() {
	if len(s.jobs) <= MaxRecords {
		return
	}
	ids := make([]string, 0, len(s.jobs))
	for id, j := range s.jobs {
		if j.Done() && j.Decision != "pending" {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids) // ULIDs sort by creation time
	for _, id := range ids {
		if len(s.jobs) <= MaxRecords {
			break
		}
		j := s.jobs[id]
		delete(s.jobs, id)
		if j.RequestID != "" {
			delete(s.byRequest, j.RequestID)
		}
		for _, suffix := range []string{".json", ".out"} {
			_ = os.Remove(s.Path(id, suffix))
		}
	}
}

// Dir returns the directory the records live in.
func (s *Store) Dir() string { return s.dir }

// ErrDuplicate is returned by Create when the request id already has a job.
var ErrDuplicate = errors.New("request id already has a job")

// Create records a new running job, unless requestID already names one:
// then it returns that job and ErrDuplicate. The check and the insert are
// atomic, so two concurrent calls with one id make one job.
func (s *Store) Create(j *Job) (*Job, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if j.RequestID != "" {
		if id, ok := s.byRequest[j.RequestID]; ok {
			return s.jobs[id].clone(), ErrDuplicate
		}
	}
	j.ID = strings.ToLower(ulid.Make().String())
	j.Created = time.Now().UTC()
	if err := s.writeLocked(j); err != nil {
		// Not saved: not known either, so the requestId stays free and a
		// retry runs the command once.
		return nil, err
	}
	s.jobs[j.ID] = j.clone()
	if j.RequestID != "" {
		s.byRequest[j.RequestID] = j.ID
	}
	s.pruneLocked()
	return j.clone(), nil
}

// Update applies change to the job and saves it.
func (s *Store) Update(id string, change func(*Job)) (*Job, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j, ok := s.jobs[id]
	if !ok {
		return nil, fmt.Errorf("no job %s", id)
	}
	change(j)
	return j.clone(), s.writeLocked(j)
}

// Get returns a copy of the job.
func (s *Store) Get(id string) (*Job, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j, ok := s.jobs[id]
	if !ok {
		return nil, false
	}
	return j.clone(), true
}

// ByRequest returns a copy of the job a request id names.
func (s *Store) ByRequest(requestID string) (*Job, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := s.byRequest[requestID]
	if !ok {
		return nil, false
	}
	return s.jobs[id].clone(), true
}

// List returns copies of every job, newest first.
func (s *Store) List() []*Job {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*Job, 0, len(s.jobs))
	for _, j := range s.jobs {
		out = append(out, j.clone())
	}
	slices.SortFunc(out, func(a, b *Job) int { return strings.Compare(b.ID, a.ID) })
	return out
}

// Path returns a path for a job's file with the given suffix.
func (s *Store) Path(id, suffix string) string { return filepath.Join(s.dir, id+suffix) }

func (s *Store) writeLocked(j *Job) error {
	b, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return err
	}
	if err := private.WriteFile(s.Path(j.ID, ".json"), b); err != nil {
		return fmt.Errorf("save the job record %s: %w", s.Path(j.ID, ".json"), err)
	}
	return nil
}

func (j *Job) clone() *Job {
	c := *j
	c.OutputAt = slices.Clone(j.OutputAt)
	return &c
}

// RequestIndex maps each requestId of the job records in dir to its job
// id, read from disk without opening the store (for a host whose store is
// not open yet). A record that cannot be read is skipped.
func RequestIndex(dir string) map[string]string {
	out := map[string]string{}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		j, err := readRecord(filepath.Join(dir, e.Name()))
		if err == nil && j.RequestID != "" {
			out[j.RequestID] = j.ID
		}
	}
	return out
}
