package runner

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/shell"
	"github.com/tmuxmcp/tmuxmcp/stream"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// A look at a pane (Ready's) is three steps: gather asks tmux, the kernel
// (/proc and the terminal, through the machine) and the recording what
// the pane is doing; classify decides from those facts alone whether its
// shell can take a command, or names the state that refuses it; look then
// does what the verdict asks the runner to remember.

// paneFacts is what one look gathered.
type paneFacts struct {
	pane int
	now  time.Time
	// gone: tmux has no such pane (its program exited and it closed);
	// lastOutput is what its recording printed last.
	gone       bool
	lastOutput []string
	info       tmux.PaneInfo
	screen     []string
	job        *jobs.Job // one of tmuxmcp's jobs runs in the pane
	probe      shell.Probe
	probeErr   error
	// launching: the pane's first process is the integration's launcher,
	// about to exec the shell.
	launching bool
	marks     markInfo // the marks of the pane's integrated shell (info.ShellTag)
	rec       recording
}

// recording is what the pane's recording, and the runner, know of it.
type recording struct {
	tail       stream.RawChunk // its last 64 KiB (recordingTail)
	born       time.Time       // when the recording began
	lastAppend time.Time
	// keysAt and keysOff: when keys sent by hand last handed the shell a
	// line with Enter, and the stream's end before them (LastKeysEntered).
	keysAt  time.Time
	keysOff int64
	// discardAt and discardOff: when keys sent by hand last discarded the
	// shell's line (C-c), and the stream's end before them
	// (LastKeysDiscarded).
	discardAt  time.Time
	discardOff int64
	// unsubmitted: tmuxmcp typed text into the pane and did not submit it.
	unsubmitted bool
	// released: the pane's shell was let start during this recording.
	released bool
	// broken: the pane's integrated shell was found drawing unmarked
	// prompts during this recording; lost: because a command removed its
	// hooks (they are put back once: rearmed).
	broken, lost, rearmed bool
	// prompt is the prompt tmuxmcp last saw the shell in front draw, when
	// promptKnown (knownPrompt).
	prompt      string
	promptKnown bool
}

// verdict is what classify decided: the shell ready for a command, or the
// refusal; and what the runner is to remember of the look.
type verdict struct {
	shell   *Shell
	refusal *Refusal
	// remember is a prompt line the shell in front just drew, to remember
	// here and in the pane (rememberPrompt), when rememberIt.
	remember   string
	rememberIt bool
	// broken: the integrated shell's prompts carry no marks (markBroken);
	// lost: a command removed its hooks (markLost); strays: marks with its
	// tag came that it did not print (suspectMarks).
	broken, lost, strays bool
}

// look observes the pane once.
func (r *Runner) look(ctx context.Context, pane int, s *stream.PaneStream) (*Shell, error) {
	f, err := r.gather(ctx, pane, s)
	if err != nil {
		return nil, err
	}
	v := classify(f)
	switch {
	case v.lost:
		r.markLost(pane, s, f.info.PID, tailEnd(f.rec.tail))
	case v.broken:
		r.markBroken(pane, s, f.info.PID)
	case v.strays:
		r.suspectMarks(pane, s)
	}
	if v.rememberIt {
		// Remembered, here and in the pane, so a later tmuxmcp (whose
		// recording begins after this prompt) still knows it.
		r.rememberPrompt(ctx, pane, s, f.probe.ForegroundPgrp, v.remember, true)
	}
	if v.refusal != nil {
		return nil, v.refusal
	}
	v.shell.Stream = s
	return v.shell, nil
}

// gather collects the facts of one look at pane, in the order classify
// reads them: a pane whose description decides (dead, in copy mode, ...)
// or that runs a job is not probed.
func (r *Runner) gather(ctx context.Context, pane int, s *stream.PaneStream) (paneFacts, error) {
	f := paneFacts{pane: pane}
	p, screen, err := r.fleet.PaneScreen(ctx, pane)
	if errors.Is(err, tmux.ErrNoPane) {
		// Its program exited and the pane closed: say what it printed.
		f.gone, f.lastOutput = true, lastOutput(s, 5)
		return f, nil
	}
	if err != nil {
		return f, err
	}
	f.info, f.screen = p, screen
	if p.Dead || p.InMode || p.Alternate || p.InputOff || p.Person != "" {
		return f, nil
	}
	if j, ok := r.runningIn(paneName(pane)); ok {
		f.job = j
		return f, nil
	}
	tail := r.probeWithTail(&f, s)
	if f.probeErr != nil {
		return f, nil
	}
	f.launching = r.cfg.Shell != nil && r.cfg.Shell.Launching(f.probe.FirstArgs)
	f.rec = recording{tail: tail, born: s.Born(), lastAppend: s.LastAppend(), unsubmitted: s.Unsubmitted(),
		released: r.releasedIn(pane, s)}
	f.rec.keysAt, f.rec.keysOff = s.LastKeysEntered()
	f.rec.discardAt, f.rec.discardOff = s.LastKeysDiscarded()
	f.rec.prompt, f.rec.promptKnown = r.knownPrompt(pane, s, p, f.probe)
	f.marks = marksIn(f.rec.tail, p.ShellTag)
	b, broken := r.brokenState(pane, s, p.PID, f.marks.promptAt)
	f.rec.broken, f.rec.lost, f.rec.rearmed = broken, b.lost, b.rearmed
	f.now = time.Now()
	return f, nil
}

// probeWithTail probes the pane's terminal into f and returns the
// recording's tail as it was when the probe began: the marks classify
// reads must not be newer than what the probe saw (a probe, slow on a
// remote host, can see a login shell's startup program while the shell
// draws its first prompt meanwhile: that prompt's mark with the program
// in front would read as a busy pane). When the pane printed during the
// probe, it probes again (twice at most).
func (r *Runner) probeWithTail(f *paneFacts, s *stream.PaneStream) stream.RawChunk {
	for try := 0; ; try++ {
		before := s.End()
		f.probe, f.probeErr = r.machine.Probe(f.info.PID, f.info.TTY)
		tail := recordingTail(s)
		if f.probeErr != nil || tailEnd(tail) <= before || try == 2 {
			return tail
		}
	}
}

// classify decides from the facts of one look whether the pane's shell
// can take a command. It does no I/O.
func classify(f paneFacts) verdict {
	if ref := paneRefusal(f); ref != nil {
		return verdict{refusal: ref}
	}
	probe, p := f.probe, f.info
	if strings.HasPrefix(probe.First, "tmux") || p.ShellTag != "" && (probe.FirstArgs[0] == "" || f.launching) {
		// tmux's child before its exec, or the launcher before the shell's
		// (a process in the middle of an exec shows no command line).
		return verdict{refusal: &Refusal{Pane: f.pane, State: Starting}}
	}
	sh := shellStateOf(f)
	v := verdict{broken: sh.broken, lost: sh.lost, strays: sh.strays}
	if v.refusal = sh.notAtPrompt(f); v.refusal != nil {
		return v
	}
	if sh.own && sh.marks.last == 'B' {
		// The prompt its marks say it drew.
		v.remember, v.rememberIt = sh.marks.prompt, true
	}
	v.shell, v.refusal = sh.commandLine(f)
	if v.shell != nil {
		v.shell.Rearm = sh.rearms(f)
	}
	if sh.firstPrompt {
		v.remember, v.rememberIt = v.shell.Prompt, true
	}
	return v
}

// rearms reports whether the next job's script puts the hooks of the
// integrated shell back: a command removed them (this look found it, or an
// earlier one whose job script has not tried yet), in a bash or zsh
// tmuxmcp started (fish's hooks are not replaced so).
func (sh *shellState) rearms(f paneFacts) bool {
	return (sh.lost || f.rec.lost && !f.rec.rearmed) && (sh.kind == shell.Bash || sh.kind == shell.Zsh) && f.info.ShellTag != ""
}

// paneRefusal refuses a pane that its description, a job of tmuxmcp's or
// a failed probe already decides.
func paneRefusal(f paneFacts) *Refusal {
	refuse := func(st State) *Refusal { return &Refusal{Pane: f.pane, State: st} }
	p := f.info
	switch {
	case f.gone:
		return &Refusal{Pane: f.pane, State: Exited, Screen: f.lastOutput}
	case p.Dead:
		return refuse(Dead)
	case p.InMode:
		return refuse(CopyMode)
	case p.Alternate:
		ref := refuse(FullScreen)
		ref.Program = p.CurrentCommand
		return ref
	case p.InputOff:
		return refuse(InputOff)
	case p.Person != "":
		ref := refuse(Person)
		ref.Person = p.Person
		return ref
	case f.job != nil:
		ref := refuse(RunningJob)
		ref.Job = f.job
		return ref
	case f.probeErr != nil:
		ref := refuse(Unknown)
		ref.Program = f.probeErr.Error()
		return ref
	}
	return nil
}

// shellState is what classify makes of the pane's shell.
type shellState struct {
	kind, firstKind shell.Kind
	marks           markInfo
	// tagged: the pane's first process is the integrated shell tmuxmcp
	// started (not what its startup files exec'd in its place without an
	// integration, such as dash), its integration working.
	tagged bool
	broken bool // this look found its integration not working
	// strays: this look found end or prompt marks with its tag that it
	// did not print, after its drawn prompt.
	strays bool
	// lost: this look found that a command removed its hooks: the shell
	// reads at its prompt, and no end mark came after its command's start.
	lost bool
	// late: the recording began after the shell had started.
	late bool
	// own: the integrated shell is the one in front, at its prompt or
	// about to be.
	own bool
	// starting: the shell has not drawn its first prompt; drawing: it is
	// between its end mark and the end of its next prompt.
	starting, drawing bool
	// firstPrompt: a ready line is the first prompt of a shell tmuxmcp
	// started (set by commandLine).
	firstPrompt bool
}

// shellStateOf works out what the facts say of the pane's shell; a look
// that finds its integration not working says so (broken).
func shellStateOf(f paneFacts) *shellState {
	probe, p, marks := f.probe, f.info, f.marks
	sh := &shellState{}
	sh.kind, _ = shell.KindOf(probe.Leader)
	sh.firstKind, _ = shell.KindOf(probe.First)
	sh.tagged = p.ShellTag != "" && sh.firstKind.Integrated()
	switch {
	case sh.tagged && f.rec.broken:
		sh.tagged = false
	case sh.tagged && !marks.prompted && probe.ShellGroup && probe.ReadingCommand() && tailEnd(f.rec.tail) > 0 && f.now.Sub(f.rec.lastAppend) > brokenAfter:
		// Its line editor has waited quietly for input, but its prompt
		// never carried the mark: the integration is not working (the
		// user's files made PS1 readonly, replaced PROMPT_COMMAND, or
		// exec'd a plain shell). Commands then run through job scripts,
		// which bring their own; the shell stays judged so.
		sh.tagged, sh.broken = false, true
	case sh.tagged && marks.prompted && marks.strays() && (sleepsReading(probe) || hooksGone(f)):
		// End and prompt marks after its drawn prompt, with no command
		// started between, and the shell reading at it (the kernel says
		// so, or it has been quiet there): they are not the shell's (it
		// prints them after it reads a line, and its prompt mark follows
		// before it reads again), but a program's that learnt the tag. The
		// shell is at the prompt it drew (the one remembered, when the
		// marks pushed it out of the window scanned).
		marks.last, sh.strays = 'B', true
		if marks.promptAt == 0 && f.rec.promptKnown {
			marks.prompt = f.rec.prompt
		}
	case sh.tagged && marks.prompted && marks.last != 'B' && hooksGone(f):
		sh.tagged, sh.broken, sh.lost = false, true, true
	}
	// late: this recording began after the shell had started (tmuxmcp
	// restarted, or reconnected): the prompts it drew before are not in
	// it, so a missing mark says nothing about its start.
	// A shell this recording let start (it waited for tmuxmcp, its process
	// older than its start) is never late.
	sh.late = probe.Age > f.now.Sub(f.rec.born)+2*time.Second && !f.rec.released // Age is exact to about 1 s
	// A shell whose prompt an earlier tmuxmcp saw (the pane remembers it,
	// PromptOption) has started too, however close its start is to this
	// recording's (a second tmuxmcp on the same server a moment later).
	if sh.tagged && (sh.late || p.Prompt != "") && !marks.prompted {
		marks.prompted = true
	}
	sh.marks = marks
	sh.own = sh.tagged && probe.ShellGroup && sh.kind.Integrated()
	// Until the shell has drawn its first prompt, whatever runs in front
	// (its startup files' programs, canonical mode) is its start; between
	// its end mark and the end of its next prompt, whatever runs (prompt
	// hooks, command substitutions in PS1, a slow git status) draws the
	// prompt. For a shell tmuxmcp did not start there are no marks: a young
	// one counts as starting.
	sh.starting = sh.tagged && !marks.prompted || !sh.tagged && (p.ShellTag != "" || sh.firstKind.LineEditor()) && probe.Age < youngFor
	sh.drawing = sh.tagged && (marks.last == 'D' || marks.last == 'A')
	return sh
}

// hooksGone reports whether the integrated shell, whose last mark is not
// its prompt's end, is at its prompt all the same: alone, reading a command
// in its line editor, and quiet. After its end or prompt mark (D, A) that
// is its prompt, drawn without the end mark its prompt hook prints. After
// a command's start (C) it is, when the line shows its prompt (the one its
// marks drew, or one tmuxmcp learnt since), or its prompt mark came without
// the end mark its prompt hook prints; a builtin reading with the line
// editor (read -e, vared) shows its own prompt. Then a command removed its
// hooks (replaced PROMPT_COMMAND or precmd_functions, exec'd a new shell).
// fish's hooks are event handlers its files do not replace, and its read
// builtin draws prompts with marks: it is left out.
func hooksGone(f paneFacts) bool {
	probe := f.probe
	k, _ := shell.KindOf(probe.Leader)
	if !probe.ShellGroup || !probe.ReadingCommand() || !k.LineEditor() || k == shell.Fish {
		return false
	}
	quiet := f.now.Sub(f.rec.lastAppend)
	switch f.marks.last {
	case 'D', 'A':
		return quiet > lostAfter
	case 'C':
		if quiet <= brokenAfter {
			return false
		}
	default:
		return false
	}
	line := cursorText(f.screen, f.info)
	return f.marks.showsOwnPrompt(line) || line != "" && f.rec.promptKnown && line == strings.TrimRight(f.rec.prompt, " ")
}

// sleepsReading reports whether the pane's own shell, a line editor's
// (not fish, whose prompt marks follow rules of their own), sleeps reading
// its terminal in its line editor now, as the kernel tells.
func sleepsReading(probe shell.Probe) bool {
	k, _ := shell.KindOf(probe.Leader)
	return probe.ShellGroup && probe.ReadingCommand() && probe.LeaderReadKnown && probe.LeaderReads && k.LineEditor() && k != shell.Fish
}

// readsAtStart reports whether the shell in front of a starting shell's
// terminal reads it: as the kernel tells, or where it cannot tell, at
// least the shell is the pane's own (not its startup files' subshell).
func readsAtStart(probe shell.Probe) bool {
	if probe.LeaderReadKnown {
		return probe.LeaderReads
	}
	return probe.ShellGroup
}

// lostAfter is how long an integrated shell's line editor may wait for
// input after its end or prompt mark, without the prompt's end mark,
// before tmuxmcp takes its hooks to be gone (a prompt whose expansion
// runs slow programs is still being drawn until then).
const lostAfter = time.Second

// notAtPrompt refuses a shell that is not reading a command at a drawn
// prompt: not a shell, something else in front, its line editor not
// reading, a command of its own running, its prompt not drawn yet, or a
// line handed to it that it has not answered.
func (sh *shellState) notAtPrompt(f paneFacts) *Refusal {
	probe, p, marks := f.probe, f.info, sh.marks
	refuse := func(st State) *Refusal { return &Refusal{Pane: f.pane, State: st} }
	if _, isShell := shell.KindOf(probe.Leader); p.ShellTag != "" && !sh.tagged && probe.ShellGroup && !isShell && len(probe.Others) == 0 {
		// The pane was started with a shell, and what is in front in its
		// place is not one tmuxmcp knows (the default shell, or what its
		// startup files exec'd).
		ref := refuse(NotAShell)
		ref.Program = probe.Leader
		return ref
	}
	if _, sub := shell.KindOf(probe.Busy()); sh.tagged && marks.last == 'B' && sub {
		// After its prompt mark, with nothing typed, a shell of its own
		// group in front is the prompt's own work (a hook's subshell), as
		// a slow remote probe can catch it: it is still drawing.
		sh.drawing = true
	}
	if !probe.AtShellPrompt() {
		ref := refuse(Busy)
		switch {
		case sh.starting:
			ref.State = Starting
		case sh.drawing:
			ref.State = Drawing
		}
		if ref.State != Busy {
			ref.Screen = lastRows(f.screen, 5)
		}
		ref.Program = probe.Busy()
		ref.ending = sh.tagged && marks.last == 'C'
		return ref
	}
	if sh.starting && !sh.tagged && p.ShellTag != "" && !readsAtStart(probe) {
		// A shell tmuxmcp started, without marks, still starting: what its
		// startup files run between their programs (a `( … )` under job
		// control, in a group of its own led by a fork of the shell; the
		// shell's own builtins) shows an idle shell and an empty line, and a
		// line typed then is read ahead of its prompt, or by what
		// runs. Its first prompt is where it reads the terminal.
		ref := refuse(Starting)
		ref.Program, ref.Screen = probe.Leader, lastRows(f.screen, 5)
		return ref
	}
	if sh.kind.LineEditor() && probe.Canonical {
		// The shell is not in its line editor: starting, drawing the
		// prompt (PROMPT_COMMAND, precmd hooks), or running a builtin.
		ref := refuse(Builtin)
		ref.Program = probe.Leader
		switch {
		case sh.starting:
			ref.State = Starting
		case sh.drawing || sh.own && marks.last == 'B':
			ref.State = Drawing
		}
		if ref.State != Builtin {
			ref.Screen = lastRows(f.screen, 5)
		}
		ref.ending = sh.own && marks.last == 'C'
		return ref
	}
	if sh.own && marks.last == 'C' {
		// A command runs and the shell's line editor reads for it (fish's
		// read builtin, bash's read -e, zsh's vared): a builtin, maybe about
		// to end.
		ref := refuse(Builtin)
		ref.Program, ref.ending, ref.LineEditor = probe.Leader, true, true
		return ref
	}
	if sh.own && sh.drawing && sh.kind == shell.Fish && probe.LeaderReadKnown && probe.LeaderReads && f.now.Sub(f.rec.lastAppend) > lostAfter {
		// fish took a C-c while it drew its prompt (a cancel racing the
		// command's own end): it reads its line, quiet, and never draws
		// that prompt again. It is ready, not drawing forever.
		sh.drawing = false
	}
	if sh.own && (sh.drawing || !marks.prompted) {
		// The line editor runs, but its prompt is not drawn yet.
		ref := refuse(Drawing)
		if !marks.prompted {
			ref.State = Starting
		}
		ref.Screen = lastRows(f.screen, 5)
		return ref
	}
	if sh.own && sh.kind == shell.Fish && f.rec.keysAt.IsZero() && !f.rec.discardAt.IsZero() && f.now.Sub(f.rec.discardAt) < fishRepaint && marks.promptAt <= f.rec.discardOff {
		// Keys discarded fish's line (C-c; no Enter handed it a line
		// since) and fish has not drawn its prompt again: it repaints
		// with marks, slowly on a loaded machine, and what the screen
		// shows meanwhile (the old line's first row) is not its line.
		return &Refusal{Pane: f.pane, State: Drawing, Screen: lastRows(f.screen, 5)}
	}
	return sh.unanswered(f)
}

// fishRepaint bounds how long fish is given to draw its prompt again after
// keys discarded its line.
const fishRepaint = 5 * time.Second

// unanswered refuses an integrated shell that keys handed a line with
// Enter after its prompt was drawn, and that neither started it (no start
// mark) nor drew a new prompt: it waits for the rest of the command
// (bash's and zsh's continuation prompt). fish, which repaints its prompt
// as it edits, is caught where the keys are sent (tools: a line that does
// not parse stays in its editor).
func (sh *shellState) unanswered(f paneFacts) *Refusal {
	at, off := f.rec.keysAt, f.rec.keysOff
	if !sh.own || sh.marks.last != 'B' || at.IsZero() || sh.marks.promptAt > off || shell.IsCorrection(cursorText(f.screen, f.info)) {
		return nil
	}
	if f.now.Sub(at) < 2*submitSettle {
		// It may still be drawing its next prompt (after C-c, zsh's
		// precmd hooks run first): waited out like any drawing.
		return &Refusal{Pane: f.pane, State: Drawing, Screen: lastRows(f.screen, 5)}
	}
	return &Refusal{Pane: f.pane, State: Continuation, Program: f.probe.Leader, TypedByUs: true,
		Line: strings.Join(lastRows(f.screen, 3), " / ")}
}

// commandLine judges what the command line of a shell at its prompt holds:
// the text before the cursor must be the prompt, and nothing must be at or
// right after the cursor.
func (sh *shellState) commandLine(f paneFacts) (*Shell, *Refusal) {
	probe, p, marks := f.probe, f.info, sh.marks
	ready := &Shell{Pane: f.pane, PID: p.PID, TTY: p.TTY, Kind: sh.kind, Program: probe.Leader, Group: probe.ForegroundPgrp, PaneTag: p.ShellTag}
	if sh.own {
		ready.Tag = p.ShellTag
	}
	if sh.own && marks.last == 'B' {
		ready.Live, ready.ErrExit, ready.Wrap = true, marks.errExit, marks.wrap
	}
	row := ""
	if p.CursorY >= 0 && p.CursorY < len(f.screen) {
		row = f.screen[p.CursorY]
	}
	runes := []rune(row)
	cx := min(p.CursorX, len(runes))
	before, after := strings.TrimRight(string(runes[:cx]), " "), string(runes[cx:])
	line := strings.TrimSpace(row)
	prompt, known := marks.prompt, ready.Live
	if !known {
		prompt, known = f.rec.prompt, f.rec.promptKnown
	}
	typed := func(st State) *Refusal {
		ref := &Refusal{Pane: f.pane, State: st, Program: probe.Leader, Line: line, TypedByUs: f.rec.unsubmitted}
		if p := strings.TrimRight(prompt, " "); known && st == HalfTyped && strings.HasPrefix(strings.TrimRight(row, " "), p) {
			ref.Typed, ref.Shell = strings.TrimSpace(strings.TrimRight(row, " ")[len(p):]), ready
			ready.Prompt = prompt
		}
		return ref
	}
	if after != "" && !strings.HasPrefix(after, " ") {
		// Text right at the cursor was typed (the cursor moved back into
		// it); text after a gap is a right-hand prompt.
		return nil, typed(HalfTyped)
	}
	switch {
	case known && before == strings.TrimRight(prompt, " "):
		ready.Prompt = prompt
		return ready, nil
	case ready.Live && before != "" && strings.HasSuffix(strings.TrimRight(prompt, " "), before):
		// The prompt moved the cursor while it was drawn (a clock printed
		// at the right edge, then the cursor restored): what it printed
		// reads in order as more than the row shows before the cursor, and
		// the row ends with the prompt's last part. Typing would come
		// after it.
		ready.Prompt = before
		return ready, nil
	case (ready.Live || known) && line == "" && printedLines(f.rec.tail, sincePrompt(f.rec.tail, ready.Live, marks.promptAt)):
		// Since its prompt, the shell or a background job printed whole
		// lines (a job's "Done" notice under set -b, a server's log), and
		// the cursor waits at the start of an empty row: the shell did not
		// draw its prompt again, and nothing was typed after them.
		ready.Prompt = ""
		return ready, nil
	case shell.IsCorrection(before):
		return nil, typed(Correction)
	case sh.kind.IsContinuation(before) && (!known || !strings.HasPrefix(before, strings.TrimRight(prompt, " "))):
		return nil, typed(Continuation)
	case known:
		return nil, typed(HalfTyped)
	case before == "" && p.ShellTag != "" && !sh.late && tailEnd(f.rec.tail) == 0 && probe.Age < youngFor:
		// A shell tmuxmcp started that has printed nothing yet: its
		// startup files run (between their commands it can look idle).
		return nil, &Refusal{Pane: f.pane, State: Starting, Program: probe.Leader}
	case before == "":
		// A shell that shows no prompt at all (PS1 empty): nothing typed.
		return ready, nil
	case p.ShellTag != "" && !sh.late && onlyPrompt(f.rec.tail, before):
		// A shell tmuxmcp started, and all it has printed since ends with
		// this line: its first prompt, which nobody typed after yet.
		ready.Prompt = before
		sh.firstPrompt = true
		return ready, nil
	case shell.LooksLikePrompt(before):
		// A shell tmuxmcp has never seen draw a prompt: a prompt ending is
		// the best guess until it has.
		ready.Prompt = before
		return ready, nil
	}
	return nil, typed(Unconfirmed)
}
