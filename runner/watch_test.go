package runner

import (
	"errors"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/cursor"
	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/shell"
	"github.com/tmuxmcp/tmuxmcp/stream"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// The watcher's transitions, from a pane's bytes. The hand-written streams
// use the marks the bash integration prints (as in
// testdata/streams/bash-exit7.raw), tagged with recordedTag; a job script's
// marks carry its job's id instead.

// mark is an integrated shell's OSC 133 mark of kind ("A", "D;7").
func mark(kind string) string { return osc(kind, shell.MarkTag(recordedTag)) }

// osc is an OSC 133 mark of kind tagged tag.
func osc(kind, tag string) string { return "\x1b]133;" + kind + ";tmuxmcp=" + tag + "\a" }

// prompt is what bash draws after a command: its end mark with status,
// then its prompt between its A and B marks.
func prompt(status string) string { return mark("D;"+status) + mark("A") + "$ " + mark("B") }

// integrated is a command typed as is into the integrated bash.
func integrated() *jobs.Job {
	return &jobs.Job{Command: "sleep 30", Mode: jobs.Integrated, ShellTag: shell.MarkTag(recordedTag), Shell: "bash"}
}

// typedLine is the echo of the typed command and its start mark.
var typedLine = "sleep 30\r\n" + mark("C")

func TestRecordedCommandsEndAsTheyDidInARealPane(t *testing.T) {
	for _, rec := range loadRecordings(t) {
		t.Run(rec.Name, func(t *testing.T) {
			b := newBench(t, 0, rec.Shell, false)
			b.feed(string(rec.Stream[:rec.From]))
			_, run := b.watch(&jobs.Job{Command: rec.Command, Mode: jobs.Integrated, ShellTag: shell.MarkTag(recordedTag), Shell: rec.Shell}, rec.From)
			rest := rec.Stream[rec.From:]
			if rec.StopAt > 0 {
				b.machine.set(running(rec.Shell, rec.Program, rec.Catches, rec.Others...))
				b.feed(string(rec.Stream[rec.From:rec.StopAt]))
				b.begun(run)
				b.r.Cancel(run.ID)
				if sig := b.signal(); sig != "SIGINT to -200" {
					t.Fatalf("sent %s, want SIGINT to the command's group", sig)
				}
				b.machine.set(atPrompt(rec.Shell))
				rest = rec.Stream[rec.StopAt:]
			}
			for len(rest) > 0 { // in pieces that split the marks
				n := min(len(rest), 7)
				b.feed(string(rest[:n]))
				rest = rest[n:]
			}
			got := b.ended(run)
			if !reflect.DeepEqual(recordOf(got), rec.Job) {
				t.Fatalf("replayed:\n%+v\nin the real pane:\n%+v", recordOf(got), rec.Job)
			}
			// The job ends at its end mark; its prompt is learnt once drawn.
			deadline := time.Now().Add(10 * time.Second)
			for b.tmux.option(tmux.PromptOption) != rec.Prompt && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			if p := b.tmux.option(tmux.PromptOption); p != rec.Prompt {
				t.Fatalf("remembered the prompt %q, want %q", p, rec.Prompt)
			}
		})
	}
}

func TestTheStartMarkBeginsTheOutputAfterTheTypedLine(t *testing.T) {
	b := newBench(t, 0, "bash", false)
	_, run := b.watch(integrated(), 0)
	b.feed(typedLine)
	b.begun(run)
	if j, _ := b.r.jobs.Get(run.ID); j.Done() {
		t.Fatalf("done at its start mark: %+v", j)
	}
	b.feed("hi\r\n" + prompt("0"))
	if got := b.ended(run); got.Status != jobs.Completed || got.Output != "hi\n" || !got.ShellReady || *got.ExitCode != 0 {
		t.Fatalf("got %+v", got)
	}
}

func TestEndMarkSplitAcrossReads(t *testing.T) {
	b := newBench(t, 0, "bash", false)
	j := integrated()
	j.FreshPane = true
	_, run := b.watch(j, 0)
	end := mark("D;7")
	b.feed(typedLine + "hello\r\n" + end[:6])
	b.feed(end[6:] + mark("A") + "$ ")
	got := b.ended(run)
	if got.Status != jobs.Completed || got.ExitCode == nil || *got.ExitCode != 7 || got.Output != "hello\n" {
		t.Fatalf("got %+v", got)
	}
}

func TestAFreshPaneClosesAtTheEndMark(t *testing.T) {
	b := newBench(t, 0, "bash", false)
	j := integrated()
	j.FreshPane = true
	_, run := b.watch(j, 0)
	b.feed(typedLine + mark("D;0")) // its shell exits: no prompt comes
	got := b.ended(run)
	if got.Status != jobs.Completed || got.ShellReady || got.EndOffset != int64(len(typedLine+mark("D;0"))) {
		t.Fatalf("got %+v", got)
	}
	if cmds := b.tmux.commands(); !slices.Equal(cmds, []string{"kill %7"}) {
		t.Fatalf("sent %q, want the pane killed", cmds)
	}
}

func TestAJobsDescriptionGivesThePaneItsTitleBack(t *testing.T) {
	b := newBench(t, 0, "bash", false)
	j := integrated()
	j.Description, j.PaneTitle = "sleeping", "old title"
	_, run := b.watch(j, 0)
	b.feed(typedLine + prompt("0"))
	b.ended(run)
	if cmds := b.tmux.commands(); !slices.Contains(cmds, `title %7 "old title"`) {
		t.Fatalf("sent %q, want the old title back", cmds)
	}
}

// The command's end mark, written before the interrupt went out (it was
// ending as the stop arrived), is its own end: completed, its own status.
func TestAnEndMarkWrittenBeforeTheInterruptIsTheCommandsOwnEnd(t *testing.T) {
	b := newBench(t, 0, "bash", false)
	_, run := b.watch(integrated(), 0)
	b.feed(typedLine)
	b.begun(run)
	b.machine.set(running("bash", "sleep", false))
	var once sync.Once
	b.tmux.setOnPane(func() { // the stop's look, before it probes and signals
		if run.stopping.Load() {
			once.Do(func() { b.feed(mark("D;0")) })
		}
	})
	// The command had exited: its shell, in front again, printed its end.
	b.machine.mu.Lock()
	b.machine.onSignal = func() { b.machine.set(atPrompt("bash")) }
	b.machine.mu.Unlock()
	b.r.Cancel(run.ID)
	if sig := b.signal(); sig != "SIGINT to -200" {
		t.Fatalf("sent %s", sig)
	}
	b.feed(mark("A") + "$ " + mark("B"))
	got := b.ended(run)
	if got.Status != jobs.Completed || *got.ExitCode != 0 || got.Signal != nil || !got.ShellReady {
		t.Fatalf("got %+v", got)
	}
}

// SIGINT kills a program that does not catch it: one that exits 0 after
// it was sent was exiting already.
func TestACommandThatWasExitingAlreadyIsCompleted(t *testing.T) {
	b := newBench(t, 0, "bash", false)
	_, run := b.watch(integrated(), 0)
	b.feed(typedLine)
	b.begun(run)
	b.machine.set(running("bash", "sleep", false))
	b.r.Cancel(run.ID)
	b.signal()
	b.machine.set(atPrompt("bash"))
	b.feed(prompt("0"))
	if got := b.ended(run); got.Status != jobs.Completed || *got.ExitCode != 0 || got.Signal != nil {
		t.Fatalf("got %+v", got)
	}
}

func TestACaughtInterruptReportsTheCommandsOwnExitCode(t *testing.T) {
	b := newBench(t, 0, "bash", false)
	_, run := b.watch(integrated(), 0)
	b.feed(typedLine)
	b.begun(run)
	b.machine.set(running("bash", "python3", true))
	b.r.Cancel(run.ID)
	b.signal()
	b.machine.set(atPrompt("bash"))
	b.feed(prompt("0"))
	if got := b.ended(run); got.Status != jobs.Interrupted || *got.ExitCode != 0 || got.Signal != nil {
		t.Fatalf("got %+v", got)
	}
}

func TestAStopAfterTheEndSendsNothing(t *testing.T) {
	b := newBench(t, 0, "bash", false)
	_, run := b.watch(integrated(), 0)
	b.machine.set(running("bash", "sleep", false))
	b.feed(typedLine + mark("D;0"))
	b.r.Cancel(run.ID) // whether the watcher has read the end mark or not
	b.machine.set(atPrompt("bash"))
	b.feed(mark("A") + "$ " + mark("B"))
	got := b.ended(run)
	if got.Status != jobs.Completed || *got.ExitCode != 0 || got.Signal != nil {
		t.Fatalf("got %+v", got)
	}
	if sigs, cmds := b.machine.signals(), b.tmux.commands(); len(sigs) > 0 || slices.ContainsFunc(cmds, func(c string) bool { return strings.HasPrefix(c, "press") }) {
		t.Fatalf("sent %q and %q after the command's end", sigs, cmds)
	}
}

// A stop before the shell started the command (no start mark yet) types
// C-c: there is no program to signal.
func TestAStopBeforeTheStartMarkTypesCtrlC(t *testing.T) {
	b := newBench(t, 0, "bash", false)
	_, run := b.watch(integrated(), 0)
	b.feed("sleep 30\r\n")
	b.r.Cancel(run.ID)
	if k := b.key(); k != "C-c" {
		t.Fatalf("pressed %s", k)
	}
	b.feed(mark("C") + "^C\r\n" + prompt("130"))
	if got := b.ended(run); got.Status != jobs.Interrupted || *got.ExitCode != 130 || *got.Signal != "SIGINT" {
		t.Fatalf("got %+v", got)
	}
	if at, _ := b.s.LastKeysSubmit(); at.IsZero() {
		t.Fatal("the C-c typed was not noted as keys submitted")
	}
}

func TestTheTimeoutStopsTheCommandAsTimedOut(t *testing.T) {
	b := newBench(t, 0, "bash", false)
	b.machine.set(running("bash", "sleep", false))
	j := integrated()
	j.TimeoutMs = 1
	b.feed(typedLine) // started before the timeout is read
	_, run := b.watch(j, 0)
	if sig := b.signal(); sig != "SIGINT to -200" {
		t.Fatalf("sent %s", sig)
	}
	b.machine.set(atPrompt("bash"))
	b.feed(prompt("130"))
	if got := b.ended(run); got.Status != jobs.TimedOut || *got.ExitCode != 130 || *got.Signal != "SIGINT" {
		t.Fatalf("got %+v", got)
	}
}

func TestACommandThatSurvivesSIGINTGetsSIGTERMASecondLater(t *testing.T) {
	b := newBench(t, 0, "bash", false)
	_, run := b.watch(integrated(), 0)
	b.feed(typedLine)
	b.begun(run)
	b.machine.set(running("bash", "server", true))
	asked := time.Now()
	b.r.Cancel(run.ID)
	if sig := b.signal(); sig != "SIGINT to -200" {
		t.Fatalf("sent %s first", sig)
	}
	if sig := b.signal(); sig != "SIGTERM to -200" || time.Since(asked) < escalation[1] {
		t.Fatalf("sent %s %v after the stop", sig, time.Since(asked))
	}
	b.machine.set(atPrompt("bash"))
	b.feed(prompt("143"))
	if got := b.ended(run); got.Status != jobs.Interrupted || *got.ExitCode != 143 || *got.Signal != "SIGTERM" {
		t.Fatalf("got %+v", got)
	}
}

// Where tmux discarded output, the job's output says so on a line of its
// own and counts it missed, instead of splicing the two sides together.
func TestDiscardedOutputIsMarkedInPlace(t *testing.T) {
	b := newBench(t, 0, "bash", false)
	_, run := b.watch(integrated(), 0)
	b.feed(typedLine + "before-")
	b.hub.Dropped(testPane)
	b.feed("-after\r\n" + prompt("0"))
	got := b.ended(run)
	if want := "before-\n" + gapLine + "-after\n"; got.Output != want || got.MissedBytes < 1 {
		t.Fatalf("output %q, missed %d; want %q", got.Output, got.MissedBytes, want)
	}
}

func TestStartMarkEvictedBeforeItWasRead(t *testing.T) {
	b := newBench(t, 1024, "bash", false)
	j := integrated()
	j.FreshPane = true
	_, run := b.watch(j, 0)
	b.feed(typedLine + strings.Repeat("x", 4096) + "\r\n" + mark("D;0") + mark("A") + "$ ")
	// Either the bytes were lost before the job's spool was tapped (and
	// counted), or the spool kept them all.
	if got := b.ended(run); got.Status != jobs.Completed || got.MissedBytes == 0 && got.OutputBytes != 4097 {
		t.Fatalf("got %+v", got)
	}
}

func TestAJobOutlivesTmuxmcpsShutdown(t *testing.T) {
	b := newBench(t, 0, "bash", false)
	_, run := b.watch(integrated(), 0)
	b.feed(typedLine)
	b.begun(run)
	b.hub.Close()
	if got := b.ended(run); got.Done() {
		t.Fatalf("got %+v: the next tmuxmcp resumes it", got)
	}
}

func TestALostLinkLeavesARemoteJobRunning(t *testing.T) {
	b := newBench(t, 0, "bash", true)
	_, run := b.watch(integrated(), 0)
	b.feed(typedLine)
	b.begun(run)
	b.hub.Lost()
	if got := b.ended(run); got.Done() {
		t.Fatalf("got %+v: it is watched again once the host is back", got)
	}
}

func TestALostLocalServerKillsTheJob(t *testing.T) {
	b := newBench(t, 0, "bash", false)
	_, run := b.watch(integrated(), 0)
	b.feed(typedLine)
	b.begun(run)
	b.hub.Lost()
	if got := b.ended(run); got.Status != jobs.PaneDied || got.ExitCode != nil || got.EndOffset != int64(len(typedLine)) {
		t.Fatalf("got %+v", got)
	}
}

func TestAPaneThatDiedEndsItsJobWithTheStatusItsScriptRecorded(t *testing.T) {
	b := newBench(t, 0, "bash", false)
	_, run := b.watch(&jobs.Job{Command: "exit 3", Mode: jobs.Wrapper, ShellTag: shell.MarkTag(recordedTag), FreshPane: true}, 0)
	b.feed(". /tmp/job.run\r\n" + osc("C", run.ID))
	b.begun(run)
	if err := os.WriteFile(b.machine.ScriptPath(run.ID, ".rc"), []byte("3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	b.hub.Sync([]stream.PaneState{{Pane: testPane, Dead: true}}, time.Now())
	if got := b.ended(run); got.Status != jobs.PaneDied || got.ExitCode == nil || *got.ExitCode != 3 {
		t.Fatalf("got %+v", got)
	}
}

// A job script whose end mark never came (its shell's prompt came back
// without it, as after an interrupt) ends with the status its script
// recorded, once the pane is quiet.
func TestAScriptsStatusFileEndsAJobWithoutItsEndMark(t *testing.T) {
	b := newBench(t, 0, "bash", false)
	_, run := b.watch(&jobs.Job{Command: "make", Mode: jobs.Wrapper, ShellTag: shell.MarkTag(recordedTag)}, 0)
	if err := os.WriteFile(b.machine.ScriptPath(run.ID, ".rc"), []byte("5\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	b.feed(". /tmp/job.run\r\n" + osc("C", run.ID) + "built\r\n")
	if got := b.ended(run); got.Status != jobs.Completed || *got.ExitCode != 5 || !got.ShellReady || got.Output != "built\n" {
		t.Fatalf("got %+v", got)
	}
}

// A shell without integration has no prompt marks: once its job's end
// mark came and the pane has been quiet a moment with the prompt drawn,
// the shell reading again is the sign, and the prompt it shows is learnt.
func TestAShellWithoutMarksIsReadyOnceItsPromptIsDrawn(t *testing.T) {
	b := newBench(t, 0, "sh", false)
	b.tmux.screen = []string{"$ . /tmp/job.run", "done", "$ "}
	b.tmux.info.CursorX, b.tmux.info.CursorY = 2, 2
	_, run := b.watch(&jobs.Job{Command: "echo done", Mode: jobs.Wrapper}, 0)
	b.feed(". /tmp/job.run\r\n" + osc("C", run.ID) + "done\r\n" + osc("D;0", run.ID) + "$ ")
	if got := b.ended(run); got.Status != jobs.Completed || !got.ShellReady || got.Output != "done\n" {
		t.Fatalf("got %+v", got)
	}
	if p, ok := b.r.knownPrompt(testPane, b.s, tmux.PaneInfo{}, shell.Probe{ForegroundPgrp: -1}); !ok || p != "$" {
		t.Fatalf("learnt the prompt %q (%v)", p, ok)
	}
}

// bash takes a line with an unclosed quote as unfinished and waits at its
// continuation prompt: the line is cleared with C-c and nothing ran.
func TestALineTheShellTookAsUnfinishedIsClearedAndNotStarted(t *testing.T) {
	b := newBench(t, 0, "bash", false)
	b.tmux.screen = []string{"$ echo 'oops", "> "}
	b.tmux.info.CursorX, b.tmux.info.CursorY = 2, 1
	_, run := b.watch(integrated(), 0)
	b.feed("echo 'oops\r\n> ")
	got := b.ended(run)
	if got.Status != jobs.NotStarted || !strings.Contains(got.LaunchError, "continuation prompt (>)") {
		t.Fatalf("got %+v", got)
	}
	if cmds := b.tmux.commands(); !slices.Contains(cmds, "press %7 C-c") {
		t.Fatalf("sent %q, want C-c", cmds)
	}
}

// An end mark printed while a program of the command holds the terminal
// (it found the tag somewhere) is its output: the command's own end, with
// its status and all its output, comes after.
func TestAnEndMarkPrintedWhileTheCommandRunsIsOutput(t *testing.T) {
	b := newBench(t, 0, "bash", false)
	_, run := b.watch(integrated(), 0)
	b.feed(typedLine)
	b.begun(run)
	b.machine.set(running("bash", "sh", false))
	b.feed("before\r\n" + prompt("0"))
	time.Sleep(2 * holdMax) // its hold runs out: the bytes are output
	b.feed("after\r\n")
	if j, _ := b.r.jobs.Get(run.ID); j.Done() {
		t.Fatalf("ended by a forged mark: %+v", j)
	}
	b.machine.set(atPrompt("bash"))
	b.feed(prompt("1"))
	got := b.ended(run)
	if got.Status != jobs.Completed || got.ExitCode == nil || *got.ExitCode != 1 || !strings.Contains(got.Output, "after") || !strings.Contains(got.Output, "before") {
		t.Fatalf("got %+v", got)
	}
}

// An end mark printed while a program of the command held the terminal
// (it learnt the tag) is followed by more of the command and by the
// shell's real end, printed with the shell alone in front: the later one
// stands, and what came between is output.
func TestALaterEndMarkReplacesAnEarlierOne(t *testing.T) {
	b := newBench(t, 0, "bash", false)
	_, run := b.watch(integrated(), 0)
	b.feed(typedLine)
	b.begun(run)
	b.machine.set(running("bash", "sleep", false)) // the shell reads nothing: its B is no prompt
	b.probed(func() { b.feed(mark("D;0")) })
	b.feed(mark("A") + "$ " + mark("B") + "after\r\n")
	b.machine.set(atPrompt("bash"))
	b.feed(prompt("1"))
	got := b.ended(run)
	if got.Status != jobs.Completed || got.ExitCode == nil || *got.ExitCode != 1 || !strings.Contains(got.Output, "after") || got.Note != "" {
		t.Fatalf("got %+v", got)
	}
}

// Two end marks with different statuses, each with the shell in front of
// its terminal (a background program that learnt the tag printed one as
// the shell got the terminal back): neither status is reported, and the
// job says why; in a sandboxed pane (which waits for the shell to read)
// too.
func TestConflictingEndMarksLeaveTheStatusUnknown(t *testing.T) {
	for _, sandboxed := range []bool{false, true} {
		for _, order := range [][2]string{{"0", "1"}, {"1", "0"}} {
			b := newBench(t, 0, "bash", false)
			if sandboxed {
				b.sandboxed()
			}
			_, run := b.watch(integrated(), 0)
			b.feed(typedLine + "out\r\n")
			b.begun(run)
			b.tmux.mu.Lock()
			b.tmux.onMark = func() { b.feed(prompt(order[1])) } // before the barrier
			b.tmux.mu.Unlock()
			b.feed(prompt(order[0]))
			got := b.ended(run)
			// The later mark is where it ended: the prompt drawn between is
			// output.
			if got.Status != jobs.Completed || got.ExitCode != nil || got.Signal != nil || !strings.Contains(got.Note, "conflicting end marks") ||
				!strings.Contains(got.Note, order[0]+", "+order[1]) || got.Output != "out\n$ " {
				t.Fatalf("sandboxed %v, end marks %v: got %+v", sandboxed, order, got)
			}
		}
	}
}

// A background program that floods end marks of the shell's tag (with the
// command's own status) before every look at the pane does not keep the
// job running: once its end was seen with the shell alone in front, marks
// that agree with it are nothing new.
func TestAFloodOfEndMarksDoesNotKeepTheJobRunning(t *testing.T) {
	for _, sandboxed := range []bool{false, true} {
		b := newBench(t, 0, "bash", false)
		if sandboxed {
			b.sandboxed()
		}
		_, run := b.watch(integrated(), 0)
		b.feed(typedLine)
		b.begun(run)
		var flood func()
		flood = func() {
			b.feed(strings.Repeat(mark("D;0")+mark("A"), 20))
			b.tmux.mu.Lock()
			b.tmux.onMark = flood // before every round trip
			b.tmux.mu.Unlock()
		}
		b.tmux.mu.Lock()
		b.tmux.onMark = flood
		b.tmux.mu.Unlock()
		b.feed(prompt("0"))
		got := b.ended(run)
		if got.ExitCode == nil || *got.ExitCode != 0 || got.Note != "" {
			t.Fatalf("sandboxed %v: got %+v", sandboxed, got)
		}
	}
}

// An end mark with the shell's tag before the command's start mark (a
// background program printed it as the line was typed) is not its end:
// the command's output and status come after.
func TestAnEndMarkBeforeTheCommandsStartIsNotItsEnd(t *testing.T) {
	b := newBench(t, 0, "bash", false)
	_, run := b.watch(integrated(), 0)
	b.probed(func() { b.feed("sleep 30\r\n" + mark("D;0") + mark("A")) })
	b.feed(mark("C") + "out\r\n" + prompt("2"))
	got := b.ended(run)
	if got.ExitCode == nil || *got.ExitCode != 2 || got.Output != "out\n" || got.Note != "" {
		t.Fatalf("got %+v", got)
	}
}

// The same end mark again (its status agrees) changes nothing.
func TestARepeatedEndMarkWithTheSameStatusChangesNothing(t *testing.T) {
	b := newBench(t, 0, "bash", false)
	_, run := b.watch(integrated(), 0)
	b.feed(typedLine + "out\r\n")
	b.begun(run)
	b.tmux.mu.Lock()
	b.tmux.onMark = func() { b.feed(prompt("3") + prompt("3")) }
	b.tmux.mu.Unlock()
	b.feed(prompt("3"))
	got := b.ended(run)
	if got.ExitCode == nil || *got.ExitCode != 3 || got.Note != "" || got.Output != "out\n" {
		t.Fatalf("got %+v", got)
	}
}

// The shell's prompt hooks may start a program the moment after its end
// mark: the end still counts once the shell reads its next command, and
// the prompt is not output.
func TestAnEndMarkThenAPromptHooksProgramStillEnds(t *testing.T) {
	b := newBench(t, 0, "bash", false)
	_, run := b.watch(integrated(), 0)
	b.feed(typedLine + "hi\r\n")
	b.begun(run)
	b.machine.set(running("bash", "git", false))
	b.feed(mark("D;3") + mark("A"))
	b.machine.set(atPrompt("bash"))
	b.feed("$ " + mark("B"))
	got := b.ended(run)
	if got.Status != jobs.Completed || got.ExitCode == nil || *got.ExitCode != 3 || got.Output != "hi\n" || !got.ShellReady {
		t.Fatalf("got %+v", got)
	}
}

// A status file the command wrote itself (it found the path) ends
// nothing while the command holds the terminal.
func TestAStatusFileWrittenWhileTheCommandRunsEndsNothing(t *testing.T) {
	b := newBench(t, 0, "bash", false)
	j := &jobs.Job{Command: "make", Mode: jobs.Wrapper, ShellTag: shell.MarkTag(recordedTag), Script: "r4nd0m", Secret: "5ecret"}
	_, run := b.watch(j, 0)
	b.feed(osc("C", "5ecret"))
	b.begun(run)
	b.machine.set(running("bash", "make", false))
	if err := os.WriteFile(b.machine.ScriptPath("r4nd0m", ".rc"), []byte("0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * idleAfter) // the pane is quiet: the runner looks (after idleAfter, then 2*idleAfter later)
	if j, _ := b.r.jobs.Get(run.ID); j.Done() {
		t.Fatalf("ended by a status file the command wrote: %+v", j)
	}
	b.machine.set(atPrompt("bash"))
	b.feed(osc("D;2", "5ecret") + prompt("2"))
	if got := b.ended(run); *got.ExitCode != 2 {
		t.Fatalf("got %+v", got)
	}
}

// Marks without a tag, or with one that is not the job's, are output: a
// command typed as is has no script secret for them to match.
func TestMarksWithoutTheJobsTagAreOutput(t *testing.T) {
	b := newBench(t, 0, "bash", false)
	_, run := b.watch(integrated(), 0)
	b.feed(typedLine)
	b.begun(run)
	b.feed("\x1b]133;D;0\a" + osc("D;0", "x") + "real-end\r\n")
	if j, _ := b.r.jobs.Get(run.ID); j.Done() {
		t.Fatalf("ended by an untagged mark: %+v", j)
	}
	b.feed(prompt("4"))
	if got := b.ended(run); *got.ExitCode != 4 || !strings.HasSuffix(got.Output, "real-end\n") {
		t.Fatalf("got %+v", got)
	}
}

// A line a person typed while the command ran is read by the shell the
// moment the command ends, and its program takes the terminal before the
// end mark is looked at: the command still ends with its own status and
// output, not the typed line's.
func TestALineTypedAheadByAPersonDoesNotTakeTheCommandsStatus(t *testing.T) {
	b := newBench(t, 0, "bash", false)
	_, run := b.watch(integrated(), 0)
	b.feed(typedLine + "mine\r\n")
	b.begun(run)
	b.machine.set(running("bash", "sleep", false)) // the typed-ahead line's program
	b.feed(prompt("7") + "sleep 4; false\r\n" + mark("C") + "theirs\r\n")
	got := b.ended(run)
	if got.Status != jobs.Completed || got.ExitCode == nil || *got.ExitCode != 7 || got.Output != "mine\n" {
		t.Fatalf("got %+v", got)
	}
}

// A person typed into a shell without marks while its command ran: the
// shell draws the typed text after its prompt. The prompt learnt stays the
// one it knew, so the next command is refused as half-typed, not typed
// after the person's text.
func TestTextTypedDuringACommandIsNotLearntAsThePrompt(t *testing.T) {
	b := newBench(t, 0, "sh", false)
	b.tmux.screen = []string{"$ . /tmp/job.run", "done", "$ "}
	b.tmux.info.CursorX, b.tmux.info.CursorY = 2, 2
	_, run := b.watch(&jobs.Job{Command: "echo done", Mode: jobs.Wrapper}, 0)
	b.feed(". /tmp/job.run\r\n" + osc("C", run.ID) + "done\r\n" + osc("D;0", run.ID) + "$ ")
	b.ended(run)
	b.tmux.screen = []string{"$ . /tmp/job2.run", "hellodone", "$ hello"}
	b.tmux.info.CursorX = 7
	_, run = b.watch(&jobs.Job{Command: "sleep 3; echo done", Mode: jobs.Wrapper}, b.s.End())
	b.feed(". /tmp/job2.run\r\n" + osc("C", run.ID) + "hellodone\r\n" + osc("D;0", run.ID) + "$ hello")
	b.ended(run)
	if p, ok := b.r.knownPrompt(testPane, b.s, tmux.PaneInfo{}, shell.Probe{ForegroundPgrp: -1}); !ok || p != "$" {
		t.Fatalf("learnt the prompt %q (%v)", p, ok)
	}
}

// tmux drew the shell's next prompt on the pane's screen while the bytes
// with its end mark and the command's last output were still on their way
// to the recording (a loaded machine): a look at the quiet pane sees the
// prompt. The command's status and output come from those bytes, not a
// guess that its hooks were removed.
func TestAPromptOnScreenBeforeItsEndMarkWasReadWaitsForTheEndMark(t *testing.T) {
	b := newBench(t, 0, "bash", false)
	b.tmux.info.ShellTag, b.tmux.info.Prompt = recordedTag, "$ "
	b.tmux.screen = []string{"$ read x; echo got-$x", "zed", "got-zed", "$ "}
	b.tmux.info.CursorX, b.tmux.info.CursorY = 2, 3
	j := integrated()
	j.Command = "read x; echo got-$x"
	_, run := b.watch(j, 0)
	b.tmux.mu.Lock()
	b.tmux.onMark = func() { b.feed("got-zed\r\n" + prompt("0")) }
	b.tmux.mu.Unlock()
	b.feed("read x; echo got-$x\r\n" + mark("C") + "zed\r\n")
	got := b.ended(run)
	if got.Status != jobs.Completed || got.ExitCode == nil || *got.ExitCode != 0 || got.Note != "" || got.Output != "zed\ngot-zed\n" {
		t.Fatalf("got %+v", got)
	}
}

// A job's files are all there before its line is typed, its spool of the
// pane's raw output (.raw) too: a command that lists them sees each one,
// and every byte from the line on is kept, however late the watch starts.
func TestAJobsSpoolIsThereBeforeItsLineIsTyped(t *testing.T) {
	b := newBench(t, 0, "bash", false)
	j, err := b.r.jobs.Create(&jobs.Job{Status: jobs.Running, Command: "ls", OutputLimit: 8192})
	if err != nil {
		t.Fatal(err)
	}
	raw := b.r.jobs.Path(j.ID, ".raw")
	typed := errors.New("nothing was typed")
	b.tmux.onType = func(string) { _, typed = os.Stat(raw) }
	sh := &Shell{Pane: testPane, PID: shellPID, TTY: "/dev/pts/9", Kind: shell.Bash, Program: "bash", Stream: b.s}
	st, err := b.r.Start(t.Context(), j, sh, "")
	if err != nil {
		t.Fatal(err)
	}
	if typed != nil {
		t.Fatalf("the job's spool when its line was typed: %v", typed)
	}
	b.r.Spawn(st)
	b.r.mu.Lock()
	run := b.r.runs[j.ID]
	b.r.mu.Unlock()
	b.feed(". /tmp/job.run\r\n" + osc("C", st.Job.Secret) + "a-file\r\n" + osc("D;0", st.Job.Secret) + prompt("0"))
	if got := b.ended(run); got.Status != jobs.Completed || got.Output != "a-file\n" {
		t.Fatalf("got %+v", got)
	}
}

// A login shell's startup files run a program (Debian's /etc/profile runs
// id -u) and the shell draws its first prompt while a slow probe (a remote
// host's) looks: the program the probe saw in front is its start, not a
// busy pane with a prompt drawn, and the shell is ready once it reads.
func TestAProgramTheStartupFilesRanDuringTheProbeIsTheShellsStart(t *testing.T) {
	b := newBench(t, 0, "bash", false)
	b.tmux.info.ShellTag = recordedTag
	b.tmux.screen = []string{"$ "}
	b.tmux.info.CursorX, b.tmux.info.CursorY = 2, 0
	b.r.mu.Lock()
	b.r.released = map[int]cursor.StreamID{testPane: b.s.ID()}
	b.r.mu.Unlock()
	b.machine.set(running("bash", "id", false))
	b.machine.mu.Lock()
	b.machine.onProbe = func() {
		b.machine.set(atPrompt("bash"))
		b.feed(mark("A") + "$ " + mark("B"))
	}
	b.machine.mu.Unlock()
	sh, err := b.r.Ready(t.Context(), testPane, 5*time.Second)
	if err != nil || sh.Prompt != "$ " {
		t.Fatalf("the shell that finished its start during the probe: %+v %v", sh, err)
	}
}

// C-c typed before the start mark was read came once the command had
// ended by itself (its shell alone in front, between the command's end and
// its prompt): the shell reports what it interrupts with 130, so the
// command's own status 0 says C-c missed it: completed, not interrupted.
func TestCtrlCTypedAfterTheCommandsOwnEndLeavesItCompleted(t *testing.T) {
	b := newBench(t, 0, "zsh", false)
	j := integrated()
	j.Command, j.Shell = "sleep 0.02; echo last", "zsh"
	_, run := b.watch(j, 0)
	b.feed("sleep 0.02; echo last\r\n")
	b.r.Cancel(run.ID)
	if k := b.key(); k != "C-c" {
		t.Fatalf("pressed %s", k)
	}
	b.feed(mark("C") + "last\r\n" + prompt("0"))
	if got := b.ended(run); got.Status != jobs.Completed || got.ExitCode == nil || *got.ExitCode != 0 || got.Signal != nil {
		t.Fatalf("got %+v", got)
	}
}

// C-c discarded fish's line, and fish, slow on a loaded machine, has not
// repainted its prompt yet: the screen still shows the old line's first
// row after the prompt. That is not a half-typed line: readiness waits for
// the prompt fish draws (with its marks), and the shell is ready then.
func TestFishRepaintingAfterCtrlCIsWaitedForNotRefusedAsHalfTyped(t *testing.T) {
	b := newBench(t, 0, "fish", false)
	b.tmux.info.ShellTag, b.tmux.info.Prompt = recordedTag, "f> "
	b.feed(mark("A") + "f> " + mark("B") + "echo \"abc\r\n")
	b.tmux.screen = []string{"f> echo \"abc", ""}
	b.tmux.info.CursorX, b.tmux.info.CursorY = 6, 0
	b.s.KeysSubmitted(time.Now())
	b.s.KeysEntered(time.Now(), b.s.End(), false) // C-c
	go func() {
		time.Sleep(100 * time.Millisecond)
		b.feed("^C")
		time.Sleep(1500 * time.Millisecond) // past the moment keys are given to react
		b.tmux.mu.Lock()
		b.tmux.screen = []string{"f> echo \"abc^C", "f> "}
		b.tmux.info.CursorX, b.tmux.info.CursorY = 3, 1
		b.tmux.mu.Unlock()
		b.feed("\r\n" + mark("A") + "f> " + mark("B"))
	}()
	sh, err := b.r.Ready(t.Context(), testPane, 4*time.Second)
	if err != nil || sh.Prompt != "f> " {
		t.Fatalf("fish repainting after C-c: %+v %v", sh, err)
	}
}
