package runner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/jobs"
	"github.com/tmuxmcp/tmuxmcp/shell"
	"github.com/tmuxmcp/tmuxmcp/stream"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// bashExit7 is the pane bytes of testdata/streams/bash-exit7: an
// integrated bash's first prompt, printf 'hello\n'; sh -c 'exit 7' typed
// and run, and its next prompt.
var bashExit7 = sync.OnceValue(func() []byte {
	b, err := os.ReadFile(filepath.Join("testdata", "streams", "bash-exit7.raw"))
	if err != nil {
		panic(err)
	}
	return b
})

// through is the start of data up to the end of its n-th mark of kind.
func through(data []byte, kind byte, n int) []byte {
	for _, m := range shell.NewMarkScanner(0).Feed(data) {
		if m.Kind == kind {
			if n--; n == 0 {
				return data[:m.End]
			}
		}
	}
	panic(fmt.Sprintf("no mark %c number %d", kind, n))
}

// withStream makes data the pane's whole recording.
func withStream(f *paneFacts, data []byte) {
	f.rec.tail = stream.RawChunk{Data: data, End: int64(len(data))}
	f.marks = marksIn(f.rec.tail, f.info.ShellTag)
}

// untagged makes the pane's shell one tmuxmcp did not start: kind's, no
// marks, no prompt known.
func untagged(f *paneFacts, kind string) {
	f.info.ShellTag = ""
	f.probe.Leader, f.probe.First, f.probe.FirstArgs = kind, kind, []string{"-" + kind}
	withStream(f, []byte("earlier output\r\n"))
}

// youngPOSIX makes the pane's shell a dash tmuxmcp started a second ago,
// which has printed printed.
func youngPOSIX(f *paneFacts, printed string) {
	f.probe.First, f.probe.Leader, f.probe.FirstArgs, f.probe.Age = "dash", "dash", []string{"dash", "-l"}, time.Second
	f.rec.lastAppend = f.now
	withStream(f, []byte(printed))
}

// cursorAt shows screen with the cursor at column x of its row y.
func cursorAt(f *paneFacts, x, y int, screen ...string) {
	f.screen, f.info.CursorX, f.info.CursorY = screen, x, y
}

// runs puts program in front of the terminal, in its own process group.
func runs(f *paneFacts, program string) {
	f.probe.ForegroundPgrp, f.probe.Leader, f.probe.ShellGroup, f.probe.Canonical = programPID, program, false, true
}

// backAtPrompt is a look at an integrated bash back at its prompt after a
// command (bashExit7), the cursor after the prompt.
func backAtPrompt() paneFacts {
	now := time.Now()
	f := paneFacts{pane: testPane, now: now,
		info:   tmux.PaneInfo{ID: testPane, PID: shellPID, TTY: "/dev/pts/9", ShellTag: recordedTag, CursorX: 2},
		screen: []string{"$ "},
		probe: shell.Probe{ForegroundPgrp: shellPID, Leader: "bash", First: "bash", FirstArgs: []string{"/bin/bash", "--login"},
			ShellGroup: true, Echo: true, Signals: true, Age: time.Hour},
		rec: recording{born: now.Add(-time.Hour), lastAppend: now.Add(-time.Second)},
	}
	withStream(&f, bashExit7())
	return f
}

// readyBash is the Shell backAtPrompt finds.
func readyBash() *Shell {
	return &Shell{Pane: testPane, PID: shellPID, TTY: "/dev/pts/9", Kind: shell.Bash, Program: "bash", Tag: recordedTag, Live: true, Prompt: "$ "}
}

// classifyCase is a change to backAtPrompt's facts and what classify
// decides from them.
type classifyCase struct {
	name   string
	change func(*paneFacts)
	// Exactly one of refusal and ready.
	refusal *Refusal
	ready   *Shell
	// remember is the prompt the look remembers ("" none); broken says
	// it found the integration broken.
	remember string
	broken   bool
}

// classifyCases are every state a look refuses, and every way it finds a
// shell ready.
var classifyCases = []classifyCase{
	{name: "ready at the prompt its marks say it drew", change: func(*paneFacts) {},
		ready: readyBash(), remember: "$ "},
	{name: "exited: the pane closed", change: func(f *paneFacts) { f.gone, f.lastOutput = true, []string{"bye"} },
		refusal: &Refusal{Pane: testPane, State: Exited, Screen: []string{"bye"}}},
	{name: "dead", change: func(f *paneFacts) { f.info.Dead = true },
		refusal: &Refusal{Pane: testPane, State: Dead}},
	{name: "copy mode", change: func(f *paneFacts) { f.info.InMode = true },
		refusal: &Refusal{Pane: testPane, State: CopyMode}},
	{name: "full screen", change: func(f *paneFacts) { f.info.Alternate, f.info.CurrentCommand = true, "vim" },
		refusal: &Refusal{Pane: testPane, State: FullScreen, Program: "vim"}},
	{name: "input off", change: func(f *paneFacts) { f.info.InputOff = true },
		refusal: &Refusal{Pane: testPane, State: InputOff}},
	{name: "running job", change: func(f *paneFacts) { f.job = &jobs.Job{ID: "j1"} },
		refusal: &Refusal{Pane: testPane, State: RunningJob, Job: &jobs.Job{ID: "j1"}}},
	{name: "unknown: the terminal could not be read", change: func(f *paneFacts) { f.probeErr = errors.New("read terminal mode: EIO") },
		refusal: &Refusal{Pane: testPane, State: Unknown, Program: "read terminal mode: EIO"}},
	{name: "starting: the launcher has not exec'd the shell", change: func(f *paneFacts) { f.launching = true },
		refusal: &Refusal{Pane: testPane, State: Starting}},
	{name: "starting: its startup files run a program before its first prompt", change: func(f *paneFacts) {
		withStream(f, nil)
		runs(f, "direnv")
		cursorAt(f, 0, 1, "loading", "")
	}, refusal: &Refusal{Pane: testPane, State: Starting, Program: "direnv", Screen: []string{"loading"}}},
	{name: "starting: a shell it started has printed nothing yet", change: func(f *paneFacts) {
		withStream(f, nil)
		f.probe.First, f.probe.Leader, f.probe.Age = "dash", "dash", time.Second
		cursorAt(f, 0, 0, "")
	}, refusal: &Refusal{Pane: testPane, State: Starting, Program: "dash"}},
	{name: "starting: a shell it started without marks runs its startup files below an empty line", change: func(f *paneFacts) {
		youngPOSIX(f, "logname: no login name\r\n")
		f.probe.LeaderReadKnown = true
		cursorAt(f, 0, 1, "logname: no login name", "")
	}, refusal: &Refusal{Pane: testPane, State: Starting, Program: "dash", Screen: []string{"logname: no login name"}}},
	{name: "starting: a subshell of its startup files is in front (yash's greeting)", change: func(f *paneFacts) {
		youngPOSIX(f, "Welcome to yash!\r\n\r\n")
		f.probe.First, f.probe.Leader, f.probe.ForegroundPgrp, f.probe.ShellGroup = "yash", "yash", programPID, false
		cursorAt(f, 0, 2, "Welcome to yash!", "", "")
	}, refusal: &Refusal{Pane: testPane, State: Starting, Program: "yash", Screen: []string{"Welcome to yash!"}}},
	{name: "ready: a shell it started without marks reads at its first prompt", change: func(f *paneFacts) {
		youngPOSIX(f, "logname: no login name\r\n@vm ~ $ ")
		f.probe.LeaderReadKnown, f.probe.LeaderReads = true, true
		cursorAt(f, 8, 1, "logname: no login name", "@vm ~ $ ")
	}, ready: &Shell{Pane: testPane, PID: shellPID, TTY: "/dev/pts/9", Kind: shell.POSIX, Program: "dash", Prompt: "@vm ~ $"}, remember: "@vm ~ $"},
	{name: "busy: a command's program owns the terminal", change: func(f *paneFacts) {
		withStream(f, through(bashExit7(), 'C', 1))
		runs(f, "sleep")
	}, refusal: &Refusal{Pane: testPane, State: Busy, Program: "sleep", ending: true}},
	{name: "builtin: the shell runs a command in canonical mode", change: func(f *paneFacts) {
		withStream(f, through(bashExit7(), 'C', 1))
		f.probe.Canonical = true
	}, refusal: &Refusal{Pane: testPane, State: Builtin, Program: "bash", ending: true}},
	{name: "builtin: its line editor reads for a command (read -e)", change: func(f *paneFacts) {
		withStream(f, through(bashExit7(), 'C', 1))
		cursorAt(f, 6, 1, "$ read -e -p 'name? ' x", "name? ")
	}, refusal: &Refusal{Pane: testPane, State: Builtin, Program: "bash", ending: true, LineEditor: true}},
	{name: "hooks gone: its prompt is back after a command's start, with no end mark", change: func(f *paneFacts) {
		withStream(f, through(bashExit7(), 'C', 1))
	}, ready: &Shell{Pane: testPane, PID: shellPID, TTY: "/dev/pts/9", Kind: shell.Bash, Program: "bash", Prompt: "$", Rearm: true}, broken: true},
	{name: "hooks gone: its line editor reads after the end mark, the prompt never marked", change: func(f *paneFacts) {
		withStream(f, through(bashExit7(), 'D', 2))
		f.rec.lastAppend = f.now.Add(-2 * time.Second)
	}, ready: &Shell{Pane: testPane, PID: shellPID, TTY: "/dev/pts/9", Kind: shell.Bash, Program: "bash", Prompt: "$", Rearm: true}, broken: true},
	{name: "ready: end and prompt marks a background program printed after the drawn prompt", change: func(f *paneFacts) {
		withStream(f, []byte(string(bashExit7())+mark("D;0")+mark("A")+mark("D;0")+mark("A")))
		f.rec.lastAppend = f.now.Add(-2 * time.Second)
	}, ready: readyBash(), remember: "$ "},
	{name: "ready: end and prompt marks a program keeps printing after the drawn prompt, the shell sleeping in its read", change: func(f *paneFacts) {
		withStream(f, []byte(string(bashExit7())+mark("D;0")+mark("A")))
		f.probe.LeaderReadKnown, f.probe.LeaderReads = true, true
		f.rec.lastAppend = f.now
	}, ready: readyBash(), remember: "$ "},
	{name: "ready: a flood of end and prompt marks pushed its prompt out of the window, the shell sleeping in its read", change: func(f *paneFacts) {
		flood := []byte(strings.Repeat(mark("D;0")+mark("A"), 1000))
		f.rec.tail = stream.RawChunk{Data: flood, From: 1 << 20, End: 1<<20 + int64(len(flood))}
		f.marks = marksIn(f.rec.tail, f.info.ShellTag)
		f.rec.prompt, f.rec.promptKnown = "$ ", true
		f.probe.LeaderReadKnown, f.probe.LeaderReads = true, true
		f.rec.lastAppend = f.now
	}, ready: readyBash(), remember: "$ "},
	{name: "drawing: an empty line's end and prompt marks, the shell not reading yet", change: func(f *paneFacts) {
		withStream(f, []byte(string(bashExit7())+mark("D;0")+mark("A")))
		f.probe.LeaderReadKnown, f.probe.LeaderReads = true, false
		f.rec.lastAppend = f.now
	}, refusal: &Refusal{Pane: testPane, State: Drawing, Screen: []string{"$"}}},
	{name: "ready: fish took C-c while it drew its prompt, and reads its line quietly", change: func(f *paneFacts) {
		withStream(f, through(bashExit7(), 'D', 2))
		f.probe.Leader, f.probe.First, f.probe.FirstArgs = "fish", "fish", []string{"fish", "-l", "-i"}
		f.probe.LeaderReadKnown, f.probe.LeaderReads = true, true
		f.rec.lastAppend = f.now.Add(-2 * time.Second)
	}, ready: &Shell{Pane: testPane, PID: shellPID, TTY: "/dev/pts/9", Kind: shell.Fish, Program: "fish", Tag: recordedTag, Prompt: "$"}},
	{name: "drawing: fish after its end mark, quiet, not known to read", change: func(f *paneFacts) {
		withStream(f, through(bashExit7(), 'D', 2))
		f.probe.Leader, f.probe.First, f.probe.FirstArgs = "fish", "fish", []string{"fish", "-l", "-i"}
		f.rec.lastAppend = f.now.Add(-2 * time.Second)
	}, refusal: &Refusal{Pane: testPane, State: Drawing, Screen: []string{"$"}}},
	{name: "drawing: its prompt hooks run after the end mark", change: func(f *paneFacts) {
		withStream(f, through(bashExit7(), 'D', 2))
		f.probe.Canonical = true
	}, refusal: &Refusal{Pane: testPane, State: Drawing, Program: "bash", Screen: []string{"$"}}},
	{name: "drawing: its line editor is up, its prompt not marked yet", change: func(f *paneFacts) { withStream(f, through(bashExit7(), 'D', 2)) },
		refusal: &Refusal{Pane: testPane, State: Drawing, Screen: []string{"$"}}},
	{name: "drawing: keys just entered a line", change: func(f *paneFacts) {
		f.rec.keysAt, f.rec.keysOff = f.now.Add(-100*time.Millisecond), tailEnd(f.rec.tail)
	}, refusal: &Refusal{Pane: testPane, State: Drawing, Screen: []string{"$"}}},
	{name: "continuation: keys entered a line it neither ran nor answered", change: func(f *paneFacts) {
		f.rec.keysAt, f.rec.keysOff = f.now.Add(-3*time.Second), tailEnd(f.rec.tail)
		cursorAt(f, 2, 1, "$ echo 'a", "> ")
	}, refusal: &Refusal{Pane: testPane, State: Continuation, Program: "bash", TypedByUs: true, Line: "$ echo 'a / >"}},
	{name: "continuation: bash's PS2 in a shell without marks", change: func(f *paneFacts) {
		untagged(f, "bash")
		cursorAt(f, 2, 1, "$ echo 'a", "> ")
	}, refusal: &Refusal{Pane: testPane, State: Continuation, Program: "bash", Line: ">"}},
	{name: "correction: zsh asks about a word", change: func(f *paneFacts) {
		untagged(f, "zsh")
		cursorAt(f, 35, 0, "zsh: correct 'sl' to 'ls' [nyae]? ")
	}, refusal: &Refusal{Pane: testPane, State: Correction, Program: "zsh", Line: "zsh: correct 'sl' to 'ls' [nyae]?"}},
	{name: "half typed: text after the prompt", change: func(f *paneFacts) { cursorAt(f, 7, 0, "$ ls -l") },
		refusal: &Refusal{Pane: testPane, State: HalfTyped, Program: "bash", Line: "$ ls -l", Typed: "ls -l"}, remember: "$ "},
	{name: "half typed: text at the cursor", change: func(f *paneFacts) { cursorAt(f, 2, 0, "$ ls") },
		refusal: &Refusal{Pane: testPane, State: HalfTyped, Program: "bash", Line: "$ ls", Typed: "ls"}, remember: "$ "},
	{name: "half typed by tmuxmcp", change: func(f *paneFacts) {
		cursorAt(f, 4, 0, "$ ls")
		f.rec.unsubmitted = true
	}, refusal: &Refusal{Pane: testPane, State: HalfTyped, Program: "bash", Line: "$ ls", TypedByUs: true, Typed: "ls"}, remember: "$ "},
	{name: "unconfirmed: a line that may be a prompt or typing", change: func(f *paneFacts) {
		untagged(f, "bash")
		cursorAt(f, 9, 0, "some text")
	}, refusal: &Refusal{Pane: testPane, State: Unconfirmed, Program: "bash", Line: "some text"}},
	{name: "not a shell: the pane's shell exec'd a program", change: func(f *paneFacts) {
		f.probe.First, f.probe.Leader = "python3", "python3"
	}, refusal: &Refusal{Pane: testPane, State: NotAShell, Program: "python3"}},
	{name: "ready: the prompt moved the cursor (a clock)", change: func(f *paneFacts) {
		withStream(f, []byte(mark("D;0")+mark("A")+"\x1b7\x1b[1;70H12:00\x1b8[12:00] $ "+mark("B")))
		cursorAt(f, 2, 0, "$ ")
	}, ready: &Shell{Pane: testPane, PID: shellPID, TTY: "/dev/pts/9", Kind: shell.Bash, Program: "bash", Tag: recordedTag, Live: true, Prompt: "$"},
		remember: "12:00[12:00] $ "},
	{name: "ready: lines printed at the prompt, the cursor on an empty row", change: func(f *paneFacts) {
		withStream(f, append(append([]byte(nil), bashExit7()...), "\r\n[1]+  Done    sleep 1\r\n"...))
		cursorAt(f, 0, 2, "$ ", "[1]+  Done    sleep 1", "")
	}, ready: &Shell{Pane: testPane, PID: shellPID, TTY: "/dev/pts/9", Kind: shell.Bash, Program: "bash", Tag: recordedTag, Live: true},
		remember: "$ "},
	{name: "ready: the first prompt of a shell it started, without marks", change: func(f *paneFacts) {
		withStream(f, []byte("welcome\r\n$ "))
		f.rec.broken = true
	}, ready: &Shell{Pane: testPane, PID: shellPID, TTY: "/dev/pts/9", Kind: shell.Bash, Program: "bash", Prompt: "$"}, remember: "$"},
	{name: "ready: an integration found not working, at its first prompt", change: func(f *paneFacts) {
		withStream(f, []byte("$ "))
	}, ready: &Shell{Pane: testPane, PID: shellPID, TTY: "/dev/pts/9", Kind: shell.Bash, Program: "bash", Prompt: "$"}, remember: "$", broken: true},
	{name: "ready: a prompt learnt before", change: func(f *paneFacts) {
		untagged(f, "bash")
		f.rec.prompt, f.rec.promptKnown = "~ % ", true
		cursorAt(f, 4, 0, "~ % ")
	}, ready: &Shell{Pane: testPane, PID: shellPID, TTY: "/dev/pts/9", Kind: shell.Bash, Program: "bash", Prompt: "~ % "}},
	{name: "ready: what looks like a prompt", change: func(f *paneFacts) {
		untagged(f, "bash")
		cursorAt(f, 13, 0, "user@host:~$ ")
	}, ready: &Shell{Pane: testPane, PID: shellPID, TTY: "/dev/pts/9", Kind: shell.Bash, Program: "bash", Prompt: "user@host:~$"}},
	{name: "ready: a shell that shows no prompt", change: func(f *paneFacts) {
		untagged(f, "bash")
		cursorAt(f, 0, 0, "")
	}, ready: &Shell{Pane: testPane, PID: shellPID, TTY: "/dev/pts/9", Kind: shell.Bash, Program: "bash"}},
}

func TestClassify(t *testing.T) {
	for _, tc := range classifyCases {
		t.Run(tc.name, func(t *testing.T) {
			f := backAtPrompt()
			tc.change(&f)
			v := classify(f)
			if tc.ready != nil && tc.ready.Group == 0 {
				// The shell reading is the one in front of the terminal.
				w := *tc.ready
				w.Group = f.probe.ForegroundPgrp
				tc.ready = &w
			}
			if tc.ready != nil {
				// The pane's tag is the one tmux keeps for it, whatever shell reads.
				w := *tc.ready
				w.PaneTag = f.info.ShellTag
				tc.ready = &w
			}
			if v.refusal != nil && v.refusal.Shell != nil {
				// The shell reading a half-typed line, for a reset of
				// what only tmuxmcp's keys drew: its pane and prompt.
				if sh := v.refusal.Shell; sh.Pane != testPane || !strings.HasPrefix(v.refusal.Line, strings.TrimSpace(sh.Prompt)) {
					t.Fatalf("refusal's shell %+v does not read line %q", sh, v.refusal.Line)
				}
				r := *v.refusal
				r.Shell = nil
				v.refusal = &r
			}
			if !reflect.DeepEqual(v.refusal, tc.refusal) || !reflect.DeepEqual(v.shell, tc.ready) {
				t.Fatalf("got refusal %+v, shell %+v\nwant refusal %+v, shell %+v", v.refusal, v.shell, tc.refusal, tc.ready)
			}
			if v.rememberIt != (tc.remember != "") || v.remember != tc.remember || v.broken != tc.broken {
				t.Fatalf("remembers %q (%v), broken %v; want %q, %v", v.remember, v.rememberIt, v.broken, tc.remember, tc.broken)
			}
		})
	}
}

// A look at the same facts twice decides the same: classify keeps no state
// (the refusal's drawing, which it works out on the way, included).
func TestClassifyIsAFunctionOfItsFacts(t *testing.T) {
	f := backAtPrompt()
	withStream(&f, through(bashExit7(), 'C', 1))
	runs(&f, "bash") // a subshell of the command
	a, b := classify(f), classify(f)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("%+v then %+v", a, b)
	}
}

// Only caret notation, what a control key tmuxmcp sent draws on a
// shell's line, counts as its own keys' doing: any other text may be a
// person's, and is never discarded.
func TestOnlyCaretNotationCountsAsWhatOwnKeysDrew(t *testing.T) {
	for typed, want := range map[string]bool{
		"^": true, "^X": true, "^C": true, "^X^V": true, "^?": true,
		"": false, "x": false, "ls": false, "^x86": false, "echo ^X": false, "x86_64": false,
	} {
		if got := OwnKeysOnly(typed); got != want {
			t.Errorf("OwnKeysOnly(%q) = %v, want %v", typed, got, want)
		}
	}
}
