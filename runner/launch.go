package runner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"time"

	"github.com/tmuxmcp/tmuxmcp/cursor"
	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/shell"
	"github.com/tmuxmcp/tmuxmcp/stream"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// PaneSpec says what pane CreatePane makes.
type PaneSpec struct {
	// Session gets the new window; default: the runner's session.
	Session string
	// Split is "window" (a new window, the default), "horizontal" or
	// "vertical" (a split of Target).
	Split  string
	Target string
	CWD    string
	Env    map[string]string
	// Name names a new window.
	Name string
	// Argv runs a program instead of the shell, directly (never through a
	// shell), lingering 0.3 s after it exits so its last output is seen.
	Argv []string
	// Unsandboxed starts the pane outside the runner's sandbox (an
	// escalated command a person approved).
	Unsandboxed bool
	// Shell is the shell the pane starts outside a sandbox, as PaneShell
	// named it a moment ago ("": PaneShell is asked).
	Shell string
}

// NewPane is a pane CreatePane made.
type NewPane struct {
	Pane                         int
	Session, SessionID, WindowID string
	// Tag is the tag of the integrated shell started in it, or "".
	Tag    string
	Stream *stream.PaneStream
}

// CreatePane makes a new window or split running the default shell with
// tmuxmcp's integration (or spec.Argv), without changing what anyone is
// looking at. It returns at once: Ready waits for the shell.
func (r *Runner) CreatePane(ctx context.Context, spec PaneSpec) (*NewPane, error) {
	ts := tmux.NewPaneSpec{Session: spec.Session, CWD: spec.CWD, Env: maps.Clone(r.cfg.Env)}
	if ts.Session == "" {
		ts.Session = r.cfg.Session
	}
	switch spec.Split {
	case "horizontal", "vertical":
		ts.Split, ts.Target = map[string]string{"horizontal": tmux.SplitHorizontal, "vertical": tmux.SplitVertical}[spec.Split], spec.Target
	default:
		if spec.Name != "" {
			ts.Name = spec.Name
		} else if len(spec.Argv) > 0 {
			ts.Name = filepath.Base(spec.Argv[0]) // not the wrapper's "sh"
		}
	}
	if ts.Env == nil {
		ts.Env = map[string]string{}
	}
	for k, v := range spec.Env {
		ts.Env[k] = v
	}
	tag, id, sb := "", "", r.cfg.Sandbox
	if spec.Unsandboxed {
		sb = nil
	}
	var err error
	switch {
	case len(spec.Argv) > 0:
		// tmux 3.3a discards output still queued for control clients once a
		// pane's program has exited, so a program that prints and exits at
		// once would otherwise be lost.
		ts.Argv = append([]string{"/bin/sh", "-c", `"$@"; s=$?; sleep 0.3; exit $s`, "tmuxmcp"}, spec.Argv...)
		if sb != nil {
			if ts.Argv, err = sb.Wrap(ts.Argv, ""); err != nil {
				return nil, err
			}
		}
	case sb != nil:
		l, err := r.sandboxedLaunch(ctx, sb)
		if err != nil {
			return nil, err
		}
		ts.Argv, tag, id = l.Argv, l.Tag, l.ID
		maps.Copy(ts.Env, l.Env)
	default:
		if l, ok := r.launch(ctx, spec.Shell); ok {
			ts.Argv, tag, id = l.Argv, l.Tag, l.ID
			maps.Copy(ts.Env, l.Env)
		}
	}
	np, err := r.fleet.NewPane(ctx, ts)
	var unread *tmux.UnreadReplyError
	if errors.As(err, &unread) {
		return nil, fmt.Errorf("%w: call list_panes to find it", err)
	}
	if err != nil {
		return nil, err
	}
	n := np.Pane
	s := r.hub.Adopt(n)
	// Its shell started moments ago, for this recording: however long the
	// reply took (a loaded machine, a slow link), it is never "late", so
	// what its startup files run in front reads as its start, not as a
	// busy pane.
	r.mu.Lock()
	if r.released == nil {
		r.released = map[int]cursor.StreamID{}
	}
	r.released[n] = s.ID()
	r.mu.Unlock()
	switch {
	case tag != "":
		// The pane remembers its shell's public ID, never its tag (any
		// process of the pane can read a pane option): readiness, direct
		// typing and a restarted tmuxmcp tell the tag from it (tags.go).
		_ = r.fleet.SetPaneOption(ctx, n, tmux.ShellOption, id)
		s.SetScanner(shell.NewInputRegions(tag, 0))
		r.mu.Lock()
		r.tags[n] = tag
		r.mu.Unlock()
	case len(spec.Argv) > 0:
		// Name the program for list_panes and capture_pane instead of "sh".
		_ = r.fleet.SetPaneOption(ctx, n, tmux.ProgramOption, filepath.Base(spec.Argv[0]))
	}
	r.fleet.RefreshPanes()
	return &NewPane{Pane: n, Session: np.Session, SessionID: np.SessionID, WindowID: np.WindowID, Tag: tag, Stream: s}, nil
}

// launch is how new panes start their shell: with the integration when
// tmux would start a shell (no default-command is set). sh, when set, is
// that shell, as PaneShell named it a moment ago.
func (r *Runner) launch(ctx context.Context, sh string) (shell.Launch, bool) {
	if sh == "" {
		sh = r.PaneShell(ctx)
	}
	if r.cfg.Shell == nil || sh == "" {
		return shell.Launch{}, false
	}
	return r.cfg.Shell.Launch(sh), true
}

// sandboxedLaunch is how a new pane starts its shell in sandbox sb:
// always through the launcher, which inside cannot ask tmux for its
// default-command, so it is handed over.
func (r *Runner) sandboxedLaunch(ctx context.Context, sb Sandbox) (shell.Launch, error) {
	if r.cfg.Shell == nil {
		return shell.Launch{}, errors.New("the shell integration is not installed, and a sandboxed pane starts only through its launcher: check the state directory (tmuxmcp doctor)")
	}
	sh, command, err := r.fleet.DefaultShell(ctx)
	if err != nil {
		return shell.Launch{}, err
	}
	if r.cfg.ShellProgram != "" {
		sh, command = r.cfg.ShellProgram, ""
	}
	var l shell.Launch
	if command != "" {
		l = r.cfg.Shell.Launch("")
		l.Env[shell.DefaultCommandVar] = command
	} else {
		l = r.cfg.Shell.Launch(sh)
	}
	if l.Argv, err = sb.Wrap(l.Argv, l.Tag); err != nil {
		return shell.Launch{}, err
	}
	return l, nil
}

// PaneShell is the shell program a new pane starts: --shell
// (Config.ShellProgram), else tmux's default-shell; "" when tmux runs a
// default-command in new panes instead (or cannot say).
func (r *Runner) PaneShell(ctx context.Context) string {
	if r.cfg.ShellProgram != "" {
		return r.cfg.ShellProgram
	}
	sh, command, err := r.fleet.DefaultShell(ctx)
	if err != nil || command != "" {
		return ""
	}
	return sh
}

// SessionLaunch is how a session's first pane starts its shell: the
// launcher picks the shell tmux would start (its default-shell, or its
// default-command) inside the pane, so it works before the server runs;
// and it waits until tmuxmcp records the pane (Track signals it), so its
// first prompt is seen.
//
// In sandbox sb (nil: none) the launcher's first stage waits and reads the
// default-command outside it, then execs into it. An error says why the
// sandbox cannot start: the session is not to be created.
func SessionLaunch(in *shell.Integration, sb Sandbox) (argv []string, env map[string]string, options map[string]string, err error) {
	return SessionLaunchOf(in, sb, "")
}

// SessionLaunchOf is SessionLaunch starting program (--shell; "": the
// shell tmux would start).
func SessionLaunchOf(in *shell.Integration, sb Sandbox, program string) (argv []string, env map[string]string, options map[string]string, err error) {
	if in == nil {
		if sb != nil {
			return nil, nil, nil, errors.New("the shell integration is not installed, and a sandboxed pane starts only through its launcher: check the state directory (tmuxmcp doctor)")
		}
		if program != "" {
			return []string{program}, nil, nil, nil
		}
		return nil, nil, nil, nil
	}
	l := in.Launch(program)
	ch := "tmuxmcp-start-" + l.ID
	l.Env["TMUXMCP_START_AFTER"] = ch
	if sb != nil {
		inner, err := sb.Wrap(l.Argv, l.Tag)
		if err != nil {
			return nil, nil, nil, err
		}
		l.Argv = in.SandboxedLaunch(inner)
	}
	return l.Argv, l.Env, map[string]string{tmux.ShellOption: l.ID, tmux.StartOption: ch}, nil
}

// scriptPath is where the job script file name with suffix goes: in the
// job directory of its pane's sandbox, for a job in a sandboxed pane whose
// shell has the secret tag (MarkTag's form, as jobs record it), else the
// machine's jobs directory.
func (r *Runner) scriptPath(name, tag, suffix string) string {
	if r.cfg.Sandbox != nil && tag != "" {
		if d, status := r.cfg.Sandbox.JobDir(strings.TrimPrefix(tag, "s")); d != "" {
			if suffix == ".rc" {
				d = status // the one file the script writes
			}
			return filepath.Join(d, name+suffix)
		}
	}
	return r.machine.ScriptPath(name, suffix)
}

// Started is a job whose command was typed: where its watcher reads from.
type Started struct {
	Job     *jobs.Job
	Stream  *stream.PaneStream
	From    int64 // stream offset before the typed line
	Resumed bool  // the command was already running (tmuxmcp restarted)
	// PID and TTY are the pane's first process and terminal, as read when
	// the command was typed (0 and "": read again when needed).
	PID int
	TTY string
	// spool and untap: the job's spool, tapped before the line was typed
	// (nil: the watcher makes one).
	spool *spool
	untap func()
}

// Start types job j's command into the ready shell sh: as is when the
// shell's integration is live and the text may be typed directly (the
// person watching sees the command), else as a short line sourcing a job
// script. cwd, when set, is cd'd to first. It records the job's mode and
// start and returns where to watch it from (Watch).
func (r *Runner) Start(ctx context.Context, j *jobs.Job, sh *Shell, cwd string) (*Started, error) {
	id := paneName(sh.Pane)
	s := sh.Stream
	// On a remote host every command goes through a job script: its
	// status file there is how a job that ends while the link is down is
	// still known (typed as is, only the stream would say).
	direct := sh.Live && sh.Tag != "" && !j.FreshPane && cwd == "" && !sh.ErrExit && !sh.Wrap && !r.cfg.Remote && sh.Kind.TypedDirectly(ctx, j.Command)
	typed, mode, name, secret := j.Command, jobs.Integrated, "", ""
	dirTag := markTagOf(sh.PaneTag) // where the script goes: the pane's own job directory in a sandbox
	note := ""
	if !direct {
		mode = jobs.Wrapper
		var rearm *shell.Rearm
		if sh.Rearm && r.cfg.Shell != nil {
			rearm = &shell.Rearm{Integration: r.cfg.Shell.RearmFile(sh.Kind), TagFile: sh.PaneTag}
			note = RearmNote
		}
		var err error
		if typed, name, secret, err = r.writeScript(ctx, j, sh.Kind, dirTag, cwd, rearm); err != nil {
			return nil, err
		}
		if rearm != nil {
			r.rearming(sh.Pane, s, sh.PID)
		}
	}
	// The job's files are all there before its line is typed: its spool
	// keeps every byte from before the line on.
	sp, untap, err := r.jobSpool(j.ID, s)
	if err != nil {
		r.log.Warn("job spool", "job", j.ID, "err", err)
	}
	drop := func() {
		if sp != nil {
			untap()
			sp.remove()
		}
	}
	if sh.Kind == shell.Fish {
		keysAt, _ := s.LastKeysSubmit()
		if left := fishResetSettle - time.Since(keysAt); left > 0 {
			t := time.NewTimer(left)
			select {
			case <-t.C:
			case <-ctx.Done():
			}
			t.Stop()
		}
	}
	var in stream.Input
	mark := func() { in = s.Typed(typed, time.Now()) }
	if err := r.fleet.MarkPane(ctx, sh.Pane, mark); err != nil {
		s.Untype(in)
		drop()
		return nil, err
	}
	tag := markTagOf(sh.Tag)
	kept := r.keepDead(ctx, sh.Pane) // a shell that ends during the job tells how (deadend.go)
	j, err = r.jobs.Update(j.ID, func(x *jobs.Job) {
		x.Mode, x.ShellTag, x.Shell, x.Stream, x.StartOffset, x.Started, x.PaneID = mode, tag, string(sh.Kind), s.ID().String(), in.At, time.Now().UTC(), id
		x.Script, x.Secret, x.ShellGroup, x.ScriptTag, x.KeptDead = name, secret, sh.Group, dirTag, kept
		x.Note = note
	})
	if err != nil {
		s.Untype(in)
		drop()
		r.letGo(&jobs.Job{PaneID: id, KeptDead: kept}, false)
		return nil, err
	}
	if j.Description != "" && !j.FreshPane {
		// Show people watching what runs. select-pane -T only sets the
		// title; it does not change the selected pane. The old title comes
		// back after.
		if p, err := r.fleet.Pane(ctx, sh.Pane); err == nil {
			j, _ = r.jobs.Update(j.ID, func(x *jobs.Job) { x.PaneTitle = p.Title })
		}
		_ = r.fleet.SetPaneTitle(ctx, sh.Pane, j.Description)
	}
	// The line and its Enter in one pass of tmux's loop.
	if err := r.fleet.TypeText(ctx, sh.Pane, typed, "tmuxmcp-"+j.ID, true); err != nil {
		s.Untype(in)
		drop()
		r.letGo(j, false)
		if j.Description != "" && !j.FreshPane {
			_ = r.fleet.SetPaneTitle(context.WithoutCancel(ctx), sh.Pane, j.PaneTitle)
		}
		return nil, err
	}
	s.Submitted(time.Now())
	r.log.Debug("job typed", "job", j.ID, "pane", id, "mode", mode, "at", in.At, "end", s.End())
	return &Started{Job: j, Stream: s, From: in.At, PID: sh.PID, TTY: sh.TTY, spool: sp, untap: untap}, nil
}

// markTagOf is the tag the marks of the shell tagged tag carry
// (shell.MarkTag), "" for a shell without one.
func markTagOf(tag string) string {
	if tag == "" {
		return ""
	}
	return shell.MarkTag(tag)
}

// The notes a job carries about its shell's integration (jobs.Job.Note).
const (
	HooksLostNote = "no end mark came: the command removed the shell integration's hooks (it replaced PROMPT_COMMAND, precmd_functions or fish_prompt, or exec'd a new shell), so its exit status is unknown; the next command in this pane puts them back"
	RearmNote     = "the command before removed the shell integration's hooks: this one ran from a job script that put them back first"
)

// conflictNote says that end marks with different statuses came for one
// command (statuses, -1 for a mark without one): a program other than
// the shell printed end marks with its tag, so its exit status is unknown.
func conflictNote(statuses []int) string {
	var b strings.Builder
	for i, s := range statuses {
		if i > 0 {
			b.WriteString(", ")
		}
		if s < 0 {
			b.WriteString("none")
		} else {
			fmt.Fprint(&b, s)
		}
	}
	return "conflicting end marks arrived for this command (exit statuses " + b.String() + "): a program other than the shell printed end marks with the shell integration's secret tag (a background process that read it), so its exit status is unknown (exitCode null); look at its output, or run it again"
}

// writeScript writes job j's script for a shell of kind k, and returns the
// line that sources it, the scripts' random name and the secret its marks
// carry. Neither the name nor anything typed or written in the script
// says which job it is or what its secret is: the secret waits in a key
// file the script reads and removes before the command runs. The files
// go where scriptPath puts those of the pane whose marks carry dirTag.
//
// rearm, when set, holds the shell's secret tag in TagFile: it is written
// to the script's own tag file, which the script reads and removes before
// it puts the integration's hooks back.
func (r *Runner) writeScript(ctx context.Context, j *jobs.Job, k shell.Kind, dirTag, cwd string, rearm *shell.Rearm) (line, name, secret string, err error) {
	// The script is written for the shell's own kind: each reaches its
	// builtins its own way, whatever functions and aliases it defines.
	kind := k
	if kind != shell.Bash && kind != shell.Zsh && kind != shell.Fish {
		kind = shell.POSIX
	}
	name, secret = shell.NewTag(), shell.NewSecret()
	path := func(suffix string) string { return r.scriptPath(name, dirTag, suffix) }
	script := shell.Script{Kind: kind, KeyFile: path(".key"), Name: name, CommandFile: path(".sh"), StatusFile: path(".rc"),
		Dir: cwd, TrapExit: j.FreshPane}
	files := []struct{ path, body string }{{path(".rc"), ""}, {path(".key"), secret + "\n"}, {path(".sh"), j.Command + "\n"}}
	if rearm != nil && kind != shell.Fish {
		files = append(files, struct{ path, body string }{path(".tag"), rearm.TagFile + "\n"})
		script.Rearm = &shell.Rearm{Integration: rearm.Integration, TagFile: path(".tag")}
	}
	// Each file is new (created exclusively, mode 0600, never through a
	// link, in the private jobs directory or the pane's own job directory
	// in a sandbox): nothing another user or the sandboxed pane put there
	// is sourced. The status file is made empty here, so the shell that
	// writes it keeps its mode 0600 whatever its umask.
	files = append(files, struct{ path, body string }{path(".run"), script.Text()})
	for _, f := range files {
		if err := r.machine.WriteFile(ctx, f.path, []byte(f.body)); err != nil {
			r.machine.Remove(context.WithoutCancel(ctx), path(".rc"), path(".key"), path(".sh"), path(".tag"))
			return "", "", "", fmt.Errorf("write job script: %w", err)
		}
	}
	return kind.SourceLine(path(".run")), name, secret, nil
}

// Spawn watches a started job in a run of its own.
func (r *Runner) Spawn(st *Started) {
	r.Go(st.Job.ID, func(run *Run) { r.Watch(run, st) })
}

// freshReady bounds how long a fresh pane's shell may take to start.
const freshReady = 60 * time.Second

// RunFresh starts job j in the fresh pane np once its shell is ready, and
// watches it, in a run of its own: the caller's wait (waitMs) goes on
// while the shell starts. A shell that never gets ready within a minute,
// or exits, ends the job not_started with the reason, and its pane is
// closed.
func (r *Runner) RunFresh(j *jobs.Job, np *NewPane) {
	r.Go(j.ID, func(run *Run) { r.RunFreshIn(run, j, np) })
}

// RunFreshIn is RunFresh in a run that already exists (a person's review
// of the job, which then runs it).
func (r *Runner) RunFreshIn(run *Run, j *jobs.Job, np *NewPane) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stopped := make(chan struct{})
	go func() {
		select {
		case st := <-run.stop:
			// Stop waiting for the shell; a command typed meanwhile is
			// interrupted by its watcher, which gets the request too.
			close(stopped)
			cancel()
			run.requestStop(st)
		case <-r.closing:
			cancel()
		case <-ctx.Done():
		}
	}()
	sh, err := r.Ready(ctx, np.Pane, freshReady)
	select {
	case <-stopped:
		err = errCancelled
	default:
	}
	if err == nil {
		var st *Started
		if st, err = r.Start(context.WithoutCancel(ctx), j, sh, ""); err == nil {
			cancel()
			r.Watch(run, st)
			return
		}
	}
	select {
	case <-r.closing:
		return // the record stays running: the next process collects it
	default:
	}
	reason := "its shell did not start: " + err.Error()
	var ref *Refusal
	switch {
	case errors.Is(err, errCancelled):
		reason = "cancelled before its shell was ready; nothing was typed"
	case errors.As(err, &ref):
		reason = ref.Reason()
	}
	r.NotStarted(j.ID, reason)
	kctx, kcancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer kcancel()
	_ = r.fleet.KillPane(kctx, np.Pane)
}

var errCancelled = errors.New("cancelled")

// NotStarted ends a job that never ran, saying why.
func (r *Runner) NotStarted(id, reason string) {
	_, _ = r.jobs.Update(id, func(x *jobs.Job) {
		x.Status, x.LaunchError, x.Ended = jobs.NotStarted, reason, time.Now().UTC()
	})
}

// DefaultShell names the shell a new pane would run (tmux's default-shell),
// or "" when tmux runs a default-command instead.
func (r *Runner) DefaultShell(ctx context.Context) string {
	if sh := r.PaneShell(ctx); sh != "" {
		return filepath.Base(sh)
	}
	return ""
}
