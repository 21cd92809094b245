package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tmuxmcp/tmuxmcp/cursor"
	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/shell"
	"github.com/tmuxmcp/tmuxmcp/stream"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// State is what a pane is doing when it cannot take a command.
type State string

// The states a Refusal names.
const (
	Dead         State = "dead"         // its program exited
	CopyMode     State = "copy_mode"    // someone is scrolling it
	FullScreen   State = "full_screen"  // a program uses the alternate screen
	InputOff     State = "input_off"    // select-pane -d
	Person       State = "person"       // a person has the pane (the hand-off key, ask_person)
	RunningJob   State = "running_job"  // one of tmuxmcp's jobs runs there
	Busy         State = "busy"         // a program owns the terminal
	Builtin      State = "builtin"      // the shell runs a command itself (read, a function)
	Starting     State = "starting"     // the shell has not shown its first prompt yet
	Drawing      State = "drawing"      // the shell is drawing its next prompt
	Continuation State = "continuation" // the shell waits for the rest of an unfinished command
	Correction   State = "correction"   // zsh asks whether to correct a word
	HalfTyped    State = "half_typed"   // text is on the command line
	Unconfirmed  State = "unconfirmed"  // the line cannot be told apart from a prompt
	NotAShell    State = "not_a_shell"  // the pane's program is not a shell tmuxmcp can run commands in
	Exited       State = "exited"       // the pane's shell exited and the pane is gone
	Unknown      State = "unknown"      // the terminal could not be inspected
)

// transient states end by themselves: Ready waits them out.
func (s State) transient() bool { return s == Starting || s == Drawing || s == Unknown }

// confirmed states are looked at once more, after the pane has been quiet
// for a moment, before they are reported: a prompt still being drawn, or
// a screen a moment behind the output, must not pass for typing.
func (s State) confirmed() bool {
	return s == HalfTyped || s == Unconfirmed || s == Continuation || s == Correction
}

// Refusal says why a pane cannot take a command now. Nothing was typed.
type Refusal struct {
	Pane  int
	State State
	// Program is the program that owns the terminal (Busy, Starting), or
	// the pane's shell.
	Program string
	// Line is the cursor's line as the screen shows it (HalfTyped,
	// Continuation, Correction, Unconfirmed).
	Line string
	// TypedByUs says tmuxmcp itself typed the unsubmitted text (type_text
	// without submit).
	TypedByUs bool
	// Typed is what the line shows after the known prompt (HalfTyped),
	// and Shell the shell reading it: "^X" or zsh's "^" may be only what
	// a control key tmuxmcp sent drew there (OwnKeysOnly).
	Typed string
	Shell *Shell
	// Person is how a person has the pane (Person): tmux.PersonTook or
	// tmux.PersonAsked.
	Person string
	// Job is the job running in the pane (RunningJob).
	Job *jobs.Job
	// Waited is how long Ready waited for a transient state to pass.
	Waited time.Duration
	// Screen holds the pane's last non-empty rows (Starting, Drawing), to
	// show what the shell is doing.
	Screen []string
	// LineEditor: the shell reads input in its line editor (Builtin): a
	// builtin that reads with it, or a prompt the command's removal of the
	// integration's hooks left unmarked.
	LineEditor bool
	// ending: the integrated shell's command is running (Busy, Builtin),
	// and may be about to end: it is given a moment before it is refused.
	ending bool
}

// endingGrace is how long Ready gives a running command of an integrated
// shell to end (a command typed with type_text whose output was just
// waited for is usually a moment from its end mark).
const endingGrace = 500 * time.Millisecond

func (e *Refusal) Error() string {
	return fmt.Sprintf("pane %s cannot take a command: %s", paneName(e.Pane), e.State)
}

// PersonReason says that a person has pane id: how says whether they
// took it (tmux.PersonTook) or an agent asked for them (tmux.PersonAsked).
func PersonReason(id, how string) string {
	if how == tmux.PersonAsked {
		return fmt.Sprintf("pane %s is a person's: an agent asked for one there (ask_person) and they have not given it back yet, so nothing is typed into it", id)
	}
	return fmt.Sprintf("pane %s is a person's: they took it with the hand-off key (prefix %s) and have not given it back yet, so nothing is typed into it", id, tmux.HandOffKey)
}

// Shell is a pane found idle at a shell prompt, ready for a command.
type Shell struct {
	Pane    int
	PID     int
	TTY     string
	Kind    shell.Kind
	Program string // the shell's program name, e.g. "bash"
	// Group is the shell's process group: the one in front of the terminal
	// when it reads a command.
	Group int
	// Rearm says a command removed the shell integration's hooks: the next
	// job script puts them back.
	Rearm bool
	// Tag is the tag of the integrated shell tmuxmcp started in the pane,
	// when that shell is the one at the prompt (not a shell it started).
	Tag string
	// PaneTag is the tag tmuxmcp gave the pane's first shell, whatever
	// shell is at the prompt now (one without integration too): it names
	// where the pane's job files go (its sandbox's job directory).
	PaneTag string
	// Live says this recording has seen the shell's end-of-prompt mark:
	// its integration is working now.
	Live bool
	// ErrExit says the shell runs under set -e.
	ErrExit bool
	// Wrap says the shell asks for its commands in job scripts (zsh with
	// spelling correction, which may stop a typed line to ask about a word).
	Wrap bool
	// Prompt is the last line of the prompt, as the screen shows it.
	Prompt string
	Stream *stream.PaneStream
	// SeenEnd and SeenActivity are the recording's end and last activity
	// (stream.PaneStream.LastActivity) as the look that found the shell
	// ready began: while both stay so, nothing was printed in the pane
	// and no input sent to it since.
	SeenEnd      int64
	SeenActivity time.Time
}

// Ready returns the pane's shell when it is idle at its prompt and can
// take a command. A shell that is still starting or drawing its prompt is
// waited for, up to wait (or ctx); any other state is refused at once with
// a *Refusal naming it. It types nothing.
func (r *Runner) Ready(ctx context.Context, pane int, wait time.Duration) (*Shell, error) {
	start := time.Now()
	deadline := start.Add(wait)
	recheck := recheckFirst
	r.awaitLearning(ctx, pane)
	r.awaitReaction(ctx, r.stream(pane))
	looked := false
	for {
		s := r.stream(pane)
		seenAct := s.LastActivity()
		c := s.ReadRaw(s.End(), 0, nil)
		changed := c.Changed
		sh, err := r.look(ctx, pane, s)
		var ref *Refusal
		if !errors.As(err, &ref) {
			if sh != nil {
				sh.SeenEnd, sh.SeenActivity = c.End, seenAct
			}
			return sh, err
		}
		if ref.State.confirmed() && !looked {
			looked = true
			qctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
			s.Quiet(qctx, 50*time.Millisecond)
			cancel()
			continue
		}
		left := time.Until(deadline)
		if ref.ending || ref.State == Unknown {
			// Not for long: a command that does not end, or a terminal that
			// cannot be read, is refused after a moment.
			left = min(left, time.Until(start.Add(endingGrace)))
		}
		if !ref.State.transient() && !ref.ending || left <= 0 {
			ref.Waited = time.Since(start)
			return nil, ref
		}
		// Starting and drawing end with output (the prompt); the terminal
		// mode can switch a moment after it, silently: look again then too.
		t := time.NewTimer(min(left, recheck))
		for waiting := true; waiting; {
			waiting = false
			select {
			case <-changed:
				if ref.State == Drawing && r.beforePromptMark(pane, s) {
					// Its prompt is not drawn yet: what it prints before
					// its prompt mark (the prompt's text, a title) is not
					// looked at, only the mark (or the timer).
					changed, waiting = s.ReadRaw(s.End(), 0, nil).Changed, true
					continue
				}
				// What it printed may be its prompt, and the shell reads a
				// moment after: looked at again soon.
				recheck = recheckFirst
			case <-t.C:
				recheck = min(2*recheck, 250*time.Millisecond)
			case <-ctx.Done():
				t.Stop()
				ref.Waited = time.Since(start)
				return nil, ref
			case <-r.closing:
				t.Stop()
				return nil, ref
			}
		}
		t.Stop()
	}
}

// beforePromptMark reports whether the integrated shell of pane is, by
// its marks in s, between its end mark or its prompt's start and its
// prompt mark: still drawing.
func (r *Runner) beforePromptMark(pane int, s *stream.PaneStream) bool {
	r.mu.Lock()
	tag := r.tags[pane]
	r.mu.Unlock()
	last := lastMarks(s, tag).last
	return tag != "" && (last == 'D' || last == 'A')
}

// recheckFirst is how soon Ready looks again at a pane that printed (its
// prompt, drawn a moment before its line editor reads: fish switches the
// terminal to raw mode a few milliseconds after it): a look costs a tmux
// round trip and a probe, a fraction of a millisecond. The checks then
// back off while the pane is quiet.
const recheckFirst = 2 * time.Millisecond

// stream returns the pane's live recording, adopting it when needed.
func (r *Runner) stream(pane int) *stream.PaneStream {
	if s, ok := r.hub.Live(pane); ok {
		return s
	}
	return r.hub.Adopt(pane)
}

// youngFor is how long after a shell tmuxmcp did not start began it still
// counts as starting while it is not at its prompt: there are no marks to
// tell.
const youngFor = 10 * time.Second

// brokenAfter is how long an integrated shell's line editor may wait for
// input, with its prompt drawn but unmarked, before tmuxmcp takes its
// integration to be broken.
const brokenAfter = 300 * time.Millisecond

// sincePrompt is where to look for output printed at the prompt: the end
// of the live shell's last B mark, or the last 4 KiB of the recording
// (whose retained tail is tail).
func sincePrompt(tail stream.RawChunk, live bool, promptAt int64) int64 {
	if live {
		return promptAt
	}
	return max(tail.From, tailEnd(tail)-4<<10, 1)
}

// printedLines reports whether what the recording holds from offset from
// on (within its retained tail) is output ending at a line's end: text
// with a line feed last, not keys a person is typing (a line editor echoes
// those without one).
func printedLines(tail stream.RawChunk, from int64) bool {
	end := tailEnd(tail)
	if from <= 0 || end <= from || end-from > 64<<10 || from < tail.From {
		return false
	}
	data := tail.Data[from-tail.From:]
	// The last text unit must be a line feed (not a lone carriage return,
	// which a line editor writes while it redraws), spaces aside.
	lastLF := false
	p := stream.NewPlainAt(from, false)
	unit := func(text []byte, start, end int64) {
		switch {
		case len(text) == 1 && text[0] == '\n':
			lastLF = data[end-1-from] == '\n'
		case len(text) == 1 && text[0] == ' ':
		default:
			lastLF = false
		}
	}
	p.Feed(data, unit)
	p.Flush(unit)
	return lastLF
}

// onlyPrompt reports whether the whole recording (kept from its start in
// its retained tail, and without a command typed into it yet) ends with
// the line text: the pane's shell printed it last, after its start-up
// files' output.
func onlyPrompt(tail stream.RawChunk, text string) bool {
	end := tailEnd(tail)
	if tail.From != 0 || end == 0 || end > 64<<10 || text == "" {
		return false
	}
	var last []byte
	p := stream.NewPlain(0)
	unit := func(t []byte, _, _ int64) {
		if len(t) == 1 && t[0] == '\n' {
			last = last[:0]
			return
		}
		last = append(last, t...)
	}
	p.Feed(tail.Data, unit)
	p.Flush(unit)
	return strings.TrimRight(string(last), " ") == text
}

// brokenSeen names the shell whose integration was found not working: the
// recording and the pane's first process.
type brokenSeen struct {
	stream cursor.StreamID
	pid    int
	// at is the recording's end when it was found: a prompt mark of the
	// shell after it says the integration works again.
	at int64
	// lost: it worked, and a command removed its hooks (it replaced
	// PROMPT_COMMAND or precmd_functions, or exec'd a new shell); the
	// next job script puts them back (rearm), once (rearmed).
	lost, rearmed bool
}

// of reports whether b was found in recording s for the shell whose first
// process is pid (not an earlier recording's, nor an earlier shell's).
func (b brokenSeen) of(s *stream.PaneStream, pid int) bool {
	return b.stream == s.ID() && b.pid == pid
}

// brokenState is what the runner knows of the integration of the shell in
// pane (first process pid), whose last prompt mark in recording s ended
// at promptAt: not working (broken), and whether a command removed its
// hooks (lost). A prompt mark after it was found says it works again.
func (r *Runner) brokenState(pane int, s *stream.PaneStream, pid int, promptAt int64) (b brokenSeen, broken bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	b, ok := r.broken[pane]
	if !ok || !b.of(s, pid) {
		return brokenSeen{}, false
	}
	if b.lost && promptAt > b.at {
		delete(r.broken, pane)
		return brokenSeen{}, false
	}
	return b, true
}

func (r *Runner) markBroken(pane int, s *stream.PaneStream, pid int) {
	r.mu.Lock()
	if b, ok := r.broken[pane]; !ok || !b.of(s, pid) {
		r.broken[pane] = brokenSeen{stream: s.ID(), pid: pid, at: s.End()}
	}
	r.mu.Unlock()
}

// markLost records that the integrated shell in pane (first process pid)
// lost its hooks to a command, its recording s then at offset at.
func (r *Runner) markLost(pane int, s *stream.PaneStream, pid int, at int64) {
	r.mu.Lock()
	r.broken[pane] = brokenSeen{stream: s.ID(), pid: pid, at: at, lost: true}
	r.mu.Unlock()
}

// rearming records that a job script puts the hooks back in pane's shell:
// it is tried once.
func (r *Runner) rearming(pane int, s *stream.PaneStream, pid int) {
	r.mu.Lock()
	if b, ok := r.broken[pane]; ok && b.of(s, pid) {
		b.rearmed = true
		r.broken[pane] = b
	}
	r.mu.Unlock()
}

// knownPrompt is the prompt tmuxmcp last saw the shell in front draw: in
// this recording, or remembered by the pane for its own integrated shell
// (a restarted tmuxmcp). A probe with ForegroundPgrp -1 takes the last
// prompt seen in the recording, whatever shell drew it.
func (r *Runner) knownPrompt(pane int, s *stream.PaneStream, p tmux.PaneInfo, probe shell.Probe) (string, bool) {
	r.mu.Lock()
	seen, ok := r.prompts[pane]
	r.mu.Unlock()
	if ok && seen.stream == s.ID() && (seen.shell == probe.ForegroundPgrp || probe.ForegroundPgrp < 0) {
		return seen.text, true
	}
	if p.ShellTag != "" && p.Prompt != "" && probe.ShellGroup {
		return p.Prompt, true
	}
	return "", false
}

// rememberPrompt records the prompt line the shell in front (its process
// group) just drew, here and, for the pane's own shell, in the pane (for a
// later tmuxmcp process).
func (r *Runner) rememberPrompt(ctx context.Context, pane int, s *stream.PaneStream, shellGroup int, text string, persist bool) {
	text = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, text)
	r.mu.Lock()
	old, had := r.prompts[pane]
	r.prompts[pane] = promptSeen{stream: s.ID(), shell: shellGroup, text: text}
	r.mu.Unlock()
	if persist && (!had || old.text != text) {
		_ = r.fleet.SetPaneOption(ctx, pane, tmux.PromptOption, text)
	}
}

// LineCleared says keys that empty a shell's command line (C-u, C-c) were
// just sent to pane: once the pane has redrawn, what the line shows up to
// the cursor is the prompt, so a shell tmuxmcp did not start can be
// checked exactly from then on. It returns at once; the look happens in
// the background.
func (r *Runner) LineCleared(pane int) {
	r.mu.Lock()
	if !r.addWorkerLocked() {
		r.mu.Unlock()
		return
	}
	done := make(chan struct{})
	r.learning[pane] = done
	r.mu.Unlock()
	go func() {
		defer r.wg.Done()
		defer func() {
			r.mu.Lock()
			if r.learning[pane] == done {
				delete(r.learning, pane)
			}
			r.mu.Unlock()
			close(done)
		}()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		r.learnCleared(ctx, pane)
	}()
}

// submitSettle bounds how long a pane is given to react to a line keys
// just submitted by hand.
const submitSettle = time.Second

// awaitReaction gives the program a moment to react to a line that
// type_text or send_keys just submitted (a command starting, a new prompt,
// zsh's correction prompt), so the pane is judged on what the line did, not
// on the moment before: it waits for output after the submit, then for
// reactionQuiet, within submitSettle of the submit.
func (r *Runner) awaitReaction(ctx context.Context, s *stream.PaneStream) {
	at, off := s.LastKeysSubmit()
	if at.IsZero() || time.Since(at) >= submitSettle {
		return
	}
	ctx, cancel := context.WithDeadline(ctx, at.Add(submitSettle))
	defer cancel()
	for s.End() <= off {
		changed := s.ReadRaw(s.End(), 0, nil).Changed
		if s.End() > off {
			break
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return
		}
	}
	s.Quiet(ctx, reactionQuiet)
}

// reactionQuiet is how long a pane must stay quiet after reacting to a
// line submitted (or discarded) by hand before it is judged: fish, after
// C-c, prints ^C and its prompt, then repaints, and what is typed before
// it settles can be lost (150 ms lost a command in 3 of 6 loaded runs;
// 400 ms none in 6).
const reactionQuiet = 400 * time.Millisecond

// awaitLearning waits until a look LineCleared started on pane is done, so
// a command sent right after send_keys ["C-u"] is judged with what it
// learnt.
func (r *Runner) awaitLearning(ctx context.Context, pane int) {
	r.mu.Lock()
	done := r.learning[pane]
	r.mu.Unlock()
	if done == nil {
		return
	}
	select {
	case <-done:
	case <-ctx.Done():
	case <-r.closing:
	}
}

func (r *Runner) learnCleared(ctx context.Context, pane int) {
	s, ok := r.hub.Live(pane)
	if !ok {
		return
	}
	qctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	s.Quiet(qctx, 50*time.Millisecond)
	cancel()
	p, screen, err := r.fleet.PaneScreen(ctx, pane)
	if err != nil || p.CursorY >= len(screen) || p.Dead || p.InMode || p.Alternate {
		return
	}
	probe, err := r.machine.Probe(p.PID, p.TTY)
	if err != nil || !probe.ReadingCommand() {
		return
	}
	if k, _ := shell.KindOf(probe.Leader); p.ShellTag != "" && probe.ShellGroup && k.Integrated() && lastMarks(s, p.ShellTag).last == 'B' {
		return // its prompt came with marks in this recording
	}
	runes := []rune(screen[p.CursorY])
	before := strings.TrimRight(string(runes[:min(p.CursorX, len(runes))]), " ")
	r.rememberPrompt(ctx, pane, s, probe.ForegroundPgrp, before, false)
}

// releasedIn reports whether pane's shell was let start during recording s.
func (r *Runner) releasedIn(pane int, s *stream.PaneStream) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	id, ok := r.released[pane]
	return ok && id == s.ID()
}

// markInfo is what the retained tail of a recording says about an
// integrated shell's marks.
type markInfo struct {
	last     byte   // kind of the shell's last mark, or 0
	prompted bool   // the shell has drawn a prompt (a B mark) in this recording
	prompt   string // the last line of the prompt before the last B mark
	errExit  bool   // the last B mark says set -e
	wrap     bool   // the last B mark asks for job scripts
	promptAt int64  // the end of the last B mark
	startAt  int64  // the end of the last C mark
	// clipped: the window scanned does not reach the recording's start.
	clipped bool
	// promptAfterStart: a prompt mark came after the shell's last
	// command start, with no end mark between (its PS1 kept the mark, its
	// prompt hooks are gone); a line editor a command uses draws one too
	// in fish.
	promptAfterStart bool
}

// showsOwnPrompt reports whether the shell, inside a command by its marks,
// is back at its own prompt all the same: a prompt mark came after the
// command's start, or line (what it shows before the cursor) is the
// prompt its marks last drew. Its hooks are gone.
func (m markInfo) showsOwnPrompt(line string) bool {
	return m.promptAfterStart || line != "" && line == strings.TrimRight(m.prompt, " ")
}

// strays reports whether the shell's last marks, an end or a prompt's
// start, came after its last drawn prompt with no command started since,
// or fill the whole window scanned (a flood of them): a shell prints
// those after reading a line (an empty one too), and then draws its
// prompt again with its mark.
func (m markInfo) strays() bool {
	return (m.last == 'D' || m.last == 'A') && (m.promptAt > m.startAt || m.clipped && m.promptAt == 0 && m.startAt == 0)
}

// lastMarks scans the last 64 KiB of s for the marks of the shell tagged
// tag.
func lastMarks(s *stream.PaneStream, tag string) markInfo {
	if tag == "" {
		return markInfo{}
	}
	return marksIn(recordingTail(s), tag)
}

// recordingTail reads the last 64 KiB of s: the window lastMarks scans.
func recordingTail(s *stream.PaneStream) stream.RawChunk {
	start, end := s.Bounds()
	from := max(start, end-64<<10)
	return s.ReadRaw(from, int(end-from), nil)
}

// tailEnd is the stream offset after what c holds.
func tailEnd(c stream.RawChunk) int64 { return c.From + int64(len(c.Data)) }

// marksIn scans the tail of a recording (recordingTail) for the marks of the
// shell tagged tag.
func marksIn(c stream.RawChunk, tag string) markInfo {
	var mi markInfo
	if tag == "" {
		return mi
	}
	want := shell.MarkTag(tag)
	var lastB shell.Mark
	var ps shell.PromptState
	clean := c.From // where decoding can start: after a mark, or at the stream's start
	found := c.From == 0
	for _, m := range shell.NewMarkScanner(c.From).Feed(c.Data) {
		if !found {
			clean, found = m.End, true
		}
		if m.Tag != want {
			continue
		}
		if !ps.Feed(m) {
			mi.promptAfterStart = mi.promptAfterStart || m.Kind == 'B' && mi.last == 'C'
			continue
		}
		mi.promptAfterStart = false
		mi.last = m.Kind
		if m.Kind == 'C' {
			mi.startAt = m.End
		}
		if m.Kind == 'B' {
			lastB, mi.prompted, mi.errExit, mi.wrap, mi.promptAt = m, true, m.ErrExit, m.Wrap, m.End
		}
	}
	mi.clipped = c.From > 0
	if !mi.prompted {
		if c.From > 0 {
			// The window does not reach the stream's start: the shell
			// prompted before it (a command has printed much since).
			mi.prompted = true
		}
		return mi
	}
	if lastB.Start >= clean {
		mi.prompt = promptLine(c.Data[clean-c.From:lastB.Start-c.From], clean)
	}
	return mi
}

// promptLine is the plain text of the last line of raw (the prompt, when
// raw ends at its end mark).
func promptLine(raw []byte, at int64) string {
	var line []byte
	dec := stream.NewPlain(at)
	dec.Feed(raw, func(t []byte, _, _ int64) {
		if t[0] == '\n' {
			line = line[:0]
			return
		}
		line = append(line, t...)
	})
	return string(line)
}

// lastOutput returns up to n of the last non-empty lines a recording holds.
func lastOutput(s *stream.PaneStream, n int) []string {
	start, end := s.Bounds()
	from := max(start, end-4096)
	c := s.Capture(stream.CaptureSpec{From: from, MaxBytes: 4096})
	return lastRows(strings.Split(c.Output, "\n"), n)
}

// lastRows returns up to n of the last non-empty rows of a screen.
func lastRows(screen []string, n int) []string {
	var out []string
	for i := len(screen) - 1; i >= 0 && len(out) < n; i-- {
		if t := strings.TrimRight(screen[i], " "); t != "" {
			out = append([]string{t}, out...)
		}
	}
	return out
}

// StaleAltScreen reports a FullScreen refusal whose program in front is a
// shell: the alternate screen outlived the program that turned it on.
func (e *Refusal) StaleAltScreen() bool {
	_, isShell := shell.KindOf(e.Program)
	return e.State == FullScreen && isShell
}

// Reason says in a sentence what the pane is doing, for a person or an
// agent (the caller adds what to do about it).
func (e *Refusal) Reason() string {
	id := paneName(e.Pane)
	waited := ""
	if e.Waited >= time.Second {
		waited = fmt.Sprintf(" (waited %.1f s)", e.Waited.Seconds())
	}
	shown := ""
	if len(e.Screen) > 0 {
		shown = fmt.Sprintf("; it shows: %q", strings.Join(e.Screen, " / "))
	}
	switch e.State {
	case Dead:
		return fmt.Sprintf("pane %s is dead: its program exited", id)
	case CopyMode:
		return fmt.Sprintf("pane %s is in copy mode (someone is scrolling it)", id)
	case FullScreen:
		if e.StaleAltScreen() {
			return fmt.Sprintf("pane %s is still on the alternate screen although its shell (%s) is in front: a full-screen program ended without leaving it (killed, or it crashed)", id, e.Program)
		}
		return fmt.Sprintf("pane %s shows a full-screen program (%s, alternate screen), not a shell prompt", id, e.Program)
	case InputOff:
		return fmt.Sprintf("pane %s has input disabled (select-pane -d)", id)
	case Person:
		return PersonReason(id, e.Person)
	case RunningJob:
		return fmt.Sprintf("pane %s is still running job %s (%q)", id, e.Job.ID, truncate(e.Job.Command, 60))
	case Busy:
		return fmt.Sprintf("pane %s is busy: %s is running in it (it owns the terminal)", id, e.Program)
	case Builtin:
		if e.LineEditor {
			return fmt.Sprintf("pane %s's shell (%s) reads input in its line editor, and no end mark came since its last command started: a builtin reading input (read -e, vared, fish's read), or that command removed the shell integration's hooks and this is its prompt (after send_keys [\"C-c\"] shows the prompt again, the next command puts the hooks back)", id, e.Program)
		}
		return fmt.Sprintf("pane %s's shell (%s) is running a command of its own (a builtin such as read, or a shell function), not waiting at its prompt", id, e.Program)
	case Starting:
		what := ""
		if _, isShell := shell.KindOf(e.Program); e.Program != "" && !isShell {
			what = fmt.Sprintf(" (its startup files are running %s)", e.Program)
		}
		return fmt.Sprintf("pane %s's shell is still starting%s and has not shown its prompt%s%s", id, what, waited, shown)
	case Drawing:
		return fmt.Sprintf("pane %s's shell is still drawing its prompt (its prompt hooks are running)%s%s", id, waited, shown)
	case Continuation:
		who := ""
		if e.TypedByUs {
			who = " that tmuxmcp typed (type_text or send_keys submitted it)"
		}
		return fmt.Sprintf("pane %s is at a continuation prompt (%q): the shell waits for the rest of an unfinished command%s (an unclosed quote, a heredoc, an open block, a trailing | or \\)", id, e.Line, who)
	case Correction:
		return fmt.Sprintf("pane %s shows zsh's spelling correction prompt (%q), waiting for a key", id, e.Line)
	case HalfTyped:
		who := "someone may be typing there"
		if e.TypedByUs {
			who = "it is text an earlier type_text left there without submit"
		}
		return fmt.Sprintf("pane %s has a half-typed command line (%q): %s", id, e.Line, who)
	case Unconfirmed:
		return fmt.Sprintf("pane %s's command line reads %q, and tmuxmcp has not seen this shell draw its prompt, so it cannot tell the prompt from someone's typing", id, e.Line)
	case NotAShell:
		if shell.Unsupported(e.Program) {
			return fmt.Sprintf("pane %s runs %s, a shell tmuxmcp cannot run commands in (its command language is neither POSIX sh's nor fish's)", id, e.Program)
		}
		return fmt.Sprintf("pane %s runs %s, not a shell tmuxmcp can run commands in", id, e.Program)
	case Exited:
		if len(e.Screen) == 0 {
			return fmt.Sprintf("pane %s's program exited and the pane closed, printing nothing", id)
		}
		return fmt.Sprintf("pane %s's program exited and the pane closed; its last output: %q", id, strings.Join(e.Screen, " / "))
	}
	return fmt.Sprintf("pane %s cannot be inspected (%s)", id, e.Program)
}

// OwnKeysOnly reports whether typed, the text a line shows after its
// prompt, is only what control keys draw on a shell's line (caret
// notation: bash's "^X" for an unbound key or a quoted one, zsh's "^"
// while a quoted insert waits): nothing a person would type.
func OwnKeysOnly(typed string) bool {
	if typed == "" {
		return false
	}
	for i := 0; i < len(typed); i++ {
		if typed[i] != '^' {
			return false
		}
		if i+1 < len(typed) && (typed[i+1] >= '@' && typed[i+1] <= '_' || typed[i+1] == '?') {
			i++
		}
	}
	return true
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// Prompt returns the last line of the prompt pane's shell draws, as the
// screen shows it, when tmuxmcp knows it (from the shell's own marks, or a
// look at an earlier prompt); "" otherwise.
func (r *Runner) Prompt(ctx context.Context, pane int) string {
	s, ok := r.hub.Live(pane)
	if !ok {
		return ""
	}
	p, err := r.fleet.Pane(ctx, pane)
	if err != nil {
		return ""
	}
	if p.ShellTag != "" {
		if mi := lastMarks(s, p.ShellTag); mi.prompted && mi.prompt != "" {
			return mi.prompt
		}
	}
	r.mu.Lock()
	seen, ok := r.prompts[pane]
	r.mu.Unlock()
	if ok && seen.stream == s.ID() {
		return seen.text
	}
	return p.Prompt
}

// cursorText is the text before the terminal cursor on its row.
func cursorText(screen []string, p tmux.PaneInfo) string {
	if p.CursorY < 0 || p.CursorY >= len(screen) {
		return ""
	}
	runes := []rune(screen[p.CursorY])
	return strings.TrimRight(string(runes[:min(p.CursorX, len(runes))]), " ")
}
