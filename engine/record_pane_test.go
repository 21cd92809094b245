package engine

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/asciicast"
	"github.com/tmuxmcp/tmuxmcp/shell"
	"github.com/tmuxmcp/tmuxmcp/stream"
)

// castOutput is the concatenated output of a recording's events before
// event index upTo.
func castOutput(ev []asciicast.Event, upTo int) string {
	var b strings.Builder
	for _, e := range ev[:upTo] {
		if e.Code == asciicast.Output {
			b.WriteString(e.Data)
		}
	}
	return b.String()
}

// markerAt is the index of the first marker labelled label, or -1.
func markerAt(ev []asciicast.Event, label string) int {
	for i, e := range ev {
		if e.Code == asciicast.Marker && e.Data == label {
			return i
		}
	}
	return -1
}

// A pane's recording holds exactly what the pane printed, at the pace it
// printed it, with each of the agent's commands marked where it was typed
// and where it ended, and asciinema plays it back byte for byte.
func TestAPanesRecordingReplaysItsOutputWithTheCommandsMarked(t *testing.T) {
	t.Parallel()
	h := openHost(t, Config{})
	pane := newShell(t, h)
	wait := int64(30000)
	var ids []string
	for _, cmd := range []string{"echo 'first → ünïcode ✓'", "sleep 1; echo second; false"} {
		res, err := h.RunShellCommand(t.Context(), nil, &RunShellCommandRequest{Command: cmd, PaneID: &pane, WaitMs: &wait})
		if err != nil || res.Status != "completed" {
			t.Fatalf("%s: %+v %v", cmd, res, err)
		}
		ids = append(ids, res.JobID)
	}
	var cast bytes.Buffer
	info, err := h.RecordPane(t.Context(), pane, &cast)
	if err != nil {
		t.Fatal(err)
	}
	hdr, ev, err := asciicast.Read(bytes.NewReader(cast.Bytes()))
	if err != nil {
		t.Fatalf("the recording does not parse: %v\n%s", err, cast.String())
	}
	if hdr.Width != 120 || hdr.Height != 40 || !strings.Contains(hdr.Title, pane) {
		t.Fatalf("header %+v: want the pane's size 120x40 and its id", hdr)
	}
	rec, _ := h.Recording(t.Context(), "paneId", pane)
	raw := rec.ReadRaw(0, 1<<30, nil)
	if tag := regexp.MustCompile(`tmuxmcp=[0-9a-z]*[0-9a-wyz]`).FindString(cast.String()); tag != "" || !strings.Contains(string(raw.Data), "tmuxmcp=s") {
		t.Fatalf("the recording carries a mark's secret tag %q", tag)
	}
	shell.BlankTags(raw.Data, false)
	got := castOutput(ev, len(ev))
	if int64(len(got)) != info.Bytes || !strings.HasPrefix(string(raw.Data), got) || info.MissedBytes != 0 || raw.From != 0 {
		t.Fatalf("the recording's output (%d bytes, info %+v) is not the pane's retained output (%d bytes from %d):\n%q\n%q", len(got), info, len(raw.Data), raw.From, got, raw.Data)
	}
	if info.Commands != 2 {
		t.Fatalf("%d commands marked, want 2", info.Commands)
	}
	var starts []float64
	for i, want := range []struct{ start, end, out string }{
		{"$ echo 'first → ünïcode ✓'", "completed, exit 0", "first → ünïcode ✓"},
		{"$ sleep 1; echo second; false", "completed, exit 1", "second"},
	} {
		j, _ := h.jobs.Get(ids[i])
		s, e := markerAt(ev, want.start), markerAt(ev, want.end)
		if s < 0 || e < s {
			t.Fatalf("command %d: start marker at event %d, end marker at %d in %v", i, s, e, ev)
		}
		if before := castOutput(ev, s); int64(len(before)) != j.StartOffset {
			t.Fatalf("command %d: marked after %d bytes of output, typed at offset %d", i, len(before), j.StartOffset)
		}
		if before := castOutput(ev, e); int64(len(before)) != j.EndOffset {
			t.Fatalf("command %d: end marked after %d bytes, ended at offset %d", i, len(before), j.EndOffset)
		}
		if between := castOutput(ev, e)[len(castOutput(ev, s)):]; !strings.Contains(between, want.out) {
			t.Fatalf("command %d: %q not between its marks: %q", i, want.out, between)
		}
		starts = append(starts, ev[s].Time)
	}
	j0, _ := h.jobs.Get(ids[0])
	j1, _ := h.jobs.Get(ids[1])
	if d, want := starts[1]-starts[0], j1.Started.Sub(j0.Started).Seconds(); d < want-0.05 || d > want+0.05 {
		t.Fatalf("the commands are marked %.3f s apart; they started %.3f s apart", d, want)
	}
	second := markerAt(ev, "$ sleep 1; echo second; false")
	for i, e := range ev[second:] {
		if e.Code == asciicast.Output && strings.Contains(e.Data, "second\r\n") {
			if pause := e.Time - ev[second].Time; pause < 0.9 {
				t.Fatalf("\"second\" plays %.3f s after its command was typed; it was printed after sleep 1 (event %d)", pause, second+i)
			}
			break
		}
	}
	playsInAsciinema(t, cast.Bytes(), got)
}

// playsInAsciinema checks that `asciinema cat` prints want for the
// recording cast (asciinema reads /dev/tty, so it runs under script(1)).
func playsInAsciinema(t *testing.T, cast []byte, want string) {
	t.Helper()
	for _, prog := range []string{"asciinema", "script"} {
		if _, err := exec.LookPath(prog); err != nil {
			if os.Getenv("TMUXMCP_REQUIRE_ASCIINEMA") != "" {
				t.Fatalf("%s is not installed (apt-get install asciinema bsdutils)", prog)
			}
			t.Logf("SKIPPED the asciinema check: %s is not installed (apt-get install asciinema bsdutils)", prog)
			return
		}
	}
	dir := t.TempDir()
	file, out := filepath.Join(dir, "pane.cast"), filepath.Join(dir, "out")
	if err := os.WriteFile(file, cast, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), "script", "-qec", "asciinema cat "+file+" > "+out, "/dev/null")
	cmd.Env = append(os.Environ(), "HOME="+dir)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("asciinema cat: %v\n%s", err, b)
	}
	played, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(played) != want {
		t.Fatalf("asciinema cat printed %d bytes, the pane %d:\n%q\n%q", len(played), len(want), played, want)
	}
}

// Output evicted before the recording was taken is not lost silently: the
// title and a first marker say how many bytes are missing.
func TestARecordingSaysWhatTheRingEvicted(t *testing.T) {
	t.Parallel()
	h := openHost(t, Config{Retain: 4096})
	pane := newShell(t, h)
	wait := int64(30000)
	if res, err := h.RunShellCommand(t.Context(), nil, &RunShellCommandRequest{Command: "seq 1 3000", PaneID: &pane, WaitMs: &wait}); err != nil || res.Status != "completed" {
		t.Fatalf("%+v %v", res, err)
	}
	var cast bytes.Buffer
	info, err := h.RecordPane(t.Context(), pane, &cast)
	if err != nil {
		t.Fatal(err)
	}
	hdr, ev, err := asciicast.Read(&cast)
	if err != nil {
		t.Fatal(err)
	}
	if info.MissedBytes < 10000 || !strings.Contains(hdr.Title, "not retained") || ev[0].Code != asciicast.Marker || !strings.Contains(ev[0].Data, "earlier bytes") {
		t.Fatalf("info %+v, title %q, first event %v: want the evicted bytes named", info, hdr.Title, ev[0])
	}
	if !strings.Contains(castOutput(ev, len(ev)), "2999\r\n3000\r\n") {
		t.Fatalf("the retained tail is not in the recording")
	}
}

// A place where tmux dropped output is a marker, and a character cut by
// it is not glued to what follows; marks fall between output events at
// their offsets.
func TestARecordingMarksDropsAndPlacesMarksAtTheirOffsets(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	r := stream.Replay{
		Data: []byte("ab\xe2\x86\x00cdef"), From: 0, End: 9, Gaps: []int64{4},
		Times: []stream.Sample{{Offset: 0, At: t0}, {Offset: 5, At: t0.Add(time.Second)}}, Born: t0,
	}
	marks := []replayMark{{at: 2, label: "$ x", starts: true}, {at: 7, t: t0.Add(3 * time.Second), label: "completed, exit 0"}}
	var b bytes.Buffer
	info, err := writeReplay(&b, asciicast.Header{Width: 80, Height: 24}, r, marks)
	if err != nil {
		t.Fatal(err)
	}
	_, ev, err := asciicast.Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	want := []asciicast.Event{
		{Time: 0, Code: "o", Data: "ab"},
		{Time: 0, Code: "m", Data: "$ x"},
		{Time: 0, Code: "o", Data: "\uFFFD"},
		{Time: 0, Code: "m", Data: "tmux dropped output here (the pane printed faster than it was read)"},
		{Time: 1, Code: "o", Data: "cd"},
		{Time: 3, Code: "m", Data: "completed, exit 0"},
		{Time: 3, Code: "o", Data: "ef"},
	}
	if len(ev) != len(want) || info.Commands != 1 || info.Bytes != 8 {
		t.Fatalf("events %+v (info %+v), want %+v", ev, info, want)
	}
	for i := range want {
		if ev[i] != want[i] {
			t.Fatalf("event %d = %+v, want %+v", i, ev[i], want[i])
		}
	}
}
