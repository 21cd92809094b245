package tools

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/internal/tmuxtest"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

func TestTypedEchoIsMaskedUntilTheCommandPrints(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	mark := token(t, "MARK")
	c := e.ok(t, "type_text", map[string]any{"paneId": pane, "text": "echo " + mark}).Str("cursor")
	w := e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": c, "patterns": []string{mark}, "timeoutMs": 1500})
	if w.Str("outcome") != "timed_out" {
		t.Fatalf("the echo of unsubmitted text matched: %v", w)
	}
	mustContain(t, "screen", w.Str("screen"), "echo "+mark)
	e.ok(t, "send_keys", map[string]any{"paneId": pane, "keys": []string{"Enter"}})
	w = e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": c, "patterns": []string{mark}, "timeoutMs": 20000})
	if w.Str("outcome") != "matched" || w.Str("matched") != mark {
		t.Fatalf("wait after Enter: %v", w)
	}
	out := w.Str("output")
	lines := strings.Split(out, "\n")
	if last := lines[len(lines)-1]; last != mark {
		t.Fatalf("matched line %q is not the printed line %q (output %q)", last, mark, out)
	}
	mustContain(t, "output", out, "echo "+mark) // the echo is returned, just not matched
}

func TestPatternPrintedBeforeTheWaitIsAlreadyOnScreen(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	pre := token(t, "PRE")
	c := e.run(t, pane, "echo "+pre)
	e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": c, "patterns": []string{"^" + pre + "$"}, "regex": true, "timeoutMs": 20000})
	w := e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "patterns": []string{pre}, "timeoutMs": 300})
	if w.Str("outcome") != "timed_out" || w.M["alreadyOnScreen"] != true {
		t.Fatalf("got %v", w)
	}
	mustContain(t, "screen", w.Str("screen"), pre)
	if w.Num("effectiveTimeoutMs") != 300 || w.M["cursor"] == nil {
		t.Fatalf("got %v", w)
	}
}

func TestOutputClearedAtOnceIsStillCaught(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	pane, c := e.shell(t)
	e.run(t, pane, "printf 'FLASH-%s\\n' 1; clear")
	w := e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": c, "patterns": []string{"FLASH-1"}, "timeoutMs": 20000})
	if w.Str("outcome") != "matched" {
		t.Fatalf("got %v", w)
	}
}

func TestChainedCaptureSinceReadsEveryLineOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	pane, c := e.shell(t)
	done := token(t, "DONE")
	e.run(t, pane, "seq 1 2000; echo "+done)
	w := e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": c, "patterns": []string{"^" + done + "$"}, "regex": true, "timeoutMs": 30000})
	if w.Str("outcome") != "matched" {
		t.Fatalf("got %v", w)
	}
	var all strings.Builder
	cur := c
	for calls := 0; ; calls++ {
		r := e.ok(t, "capture_since", map[string]any{"paneId": pane, "cursor": cur, "maxBytes": 100})
		if r.Num("returnedBytes") > 100 || int(r.Num("returnedBytes")) != len(r.Str("output")) {
			t.Fatalf("page of %d bytes", r.Num("returnedBytes"))
		}
		all.WriteString(r.Str("output"))
		cur = r.Str("cursor")
		if strings.Contains(all.String(), "\n"+done+"\n") || r.Num("remainingBytes") == 0 || calls > 10000 {
			break
		}
	}
	want := 1
	for _, line := range strings.Split(all.String(), "\n") {
		n, err := strconv.Atoi(line)
		if err != nil {
			continue
		}
		if n != want {
			t.Fatalf("line %d where %d was expected", n, want)
		}
		want++
	}
	if want != 2001 {
		t.Fatalf("read lines 1..%d, want 1..2000", want-1)
	}
}

func TestExitingProgramEndsWaitWithPaneDied(t *testing.T) {
	// Not parallel: it bounds how long pane_died takes (3 s), which other
	// tests' load would stretch.
	e := newEnv(t, envOptions{})
	r := e.ok(t, "create_pane", map[string]any{"argv": []string{"sh", "-c", "sleep 1; exit 7"}})
	start := time.Now()
	w := e.ok(t, "wait_for_text", map[string]any{"paneId": r.Str("paneId"), "cursor": r.Str("cursor"), "patterns": []string{"never printed"}, "timeoutMs": 20000})
	if w.Str("outcome") != "pane_died" {
		t.Fatalf("got %v", w)
	}
	if d := time.Since(start); d > 3*time.Second+time.Second { // the program itself takes 1 s
		t.Fatalf("pane_died after %v", d)
	}
	t.Logf("pane_died %v after the wait began (program ran 1 s)", time.Since(start))
}

func TestKilledServerEndsWaitWithStreamLost(t *testing.T) {
	// Not parallel: it bounds how long stream_lost takes (3 s), which other
	// tests' load would stretch.
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	done := make(chan result, 1)
	go func() {
		done <- e.call(t, "wait_for_text", map[string]any{"paneId": pane, "patterns": []string{"never printed"}, "timeoutMs": 60000})
	}()
	// The wait is running once the hub has a live stream for it; kill now.
	time.Sleep(200 * time.Millisecond) // give the call time to reach the handler; the outcome is checked below
	killed := time.Now()
	tmuxtest.Kill(e.target)
	select {
	case w := <-done:
		if w.Str("outcome") != "stream_lost" || w.Str("streamFailure") != "connection_lost" || w.M["cursor"] != nil {
			t.Fatalf("got %v", w)
		}
		if d := time.Since(killed); d > 3*time.Second {
			t.Fatalf("stream_lost %v after kill-server", d)
		}
		t.Logf("stream_lost %v after kill-server", time.Since(killed))
	case <-time.After(30 * time.Second):
		t.Fatal("wait did not end after kill-server")
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"list_panes", map[string]any{}},
		{"wait_for_text", map[string]any{"paneId": pane, "timeoutMs": 1000}},
		{"type_text", map[string]any{"paneId": pane, "text": "x"}},
		{"create_pane", map[string]any{}},
	} {
		r := e.call(t, c.tool, c.args)
		if c.tool == "wait_for_text" && !r.IsError {
			if r.Str("outcome") != "stream_lost" {
				t.Fatalf("%s after kill-server: %v", c.tool, r)
			}
			continue
		}
		if !r.IsError || !strings.Contains(r.Text, "tmux is not reachable") {
			t.Fatalf("%s after kill-server: %v", c.tool, r)
		}
	}
}

// rssSince returns, when called, how much the process's RSS grew since
// rssSince was: the garbage earlier tests in the same process left (the
// shell matrix runs thirty configurations) is given back to the system
// first, so only this test's memory counts.
func rssSince(t *testing.T) func() int64 {
	runtime.GC()
	debug.FreeOSMemory()
	base := vmRSS(t)
	return func() int64 { return vmRSS(t) - base }
}

func vmRSS(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc")
	}
	m := regexp.MustCompile(`VmRSS:\s+(\d+) kB`).FindSubmatch(b)
	n, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return n << 10
}

func TestThreeMillionLinesStayBounded(t *testing.T) {
	// Not parallel: it measures the test process's RSS, which other tests'
	// panes would grow.
	if testing.Short() {
		t.Skip("long")
	}
	grown := rssSince(t)
	e := newEnv(t, envOptions{})
	pane, c := e.shell(t)
	e.run(t, pane, "seq 1 3000000")
	w := e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": c, "patterns": []string{"^3000000$"}, "regex": true, "timeoutMs": 120000})
	if w.Str("outcome") != "matched" || w.Str("matched") != "3000000" {
		t.Fatalf("got %v", w)
	}
	rss := grown()
	t.Logf("RSS growth after 3,000,000 lines: %.1f MiB; wait missedBytes=%d omittedBytes=%d", float64(rss)/(1<<20), w.Num("missedBytes"), w.Num("omittedBytes"))
	if rss > 100<<20 {
		t.Fatalf("RSS grew %d MiB > 100 MiB", rss>>20)
	}
	r := e.ok(t, "capture_since", map[string]any{"paneId": pane, "cursor": c, "maxBytes": 1000})
	if r.Num("missedBytes") == 0 {
		t.Fatalf("capture_since from the first cursor reports no missed bytes: %v", r)
	}
	t.Logf("capture_since missedBytes=%d", r.Num("missedBytes"))
}

func TestHundredConcurrentWaitsOverTenPanes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	type paneCur struct{ pane, cursor string }
	panes := make([]paneCur, 10)
	for i := range panes {
		p, c := e.shell(t)
		panes[i] = paneCur{p, c}
	}
	var wg sync.WaitGroup
	results := make(chan string, 100)
	for i, p := range panes {
		for k := 0; k < 10; k++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				want := fmt.Sprintf("TOK%d_%d", i, k)
				w := e.call(t, "wait_for_text", map[string]any{"paneId": p.pane, "cursor": p.cursor, "patterns": []string{"^" + want + "$"}, "regex": true, "timeoutMs": 60000})
				if w.Str("outcome") != "matched" {
					results <- fmt.Sprintf("%s: %v", want, w)
				}
			}()
		}
	}
	for i, p := range panes {
		e.run(t, p.pane, fmt.Sprintf("for k in 0 1 2 3 4 5 6 7 8 9; do echo TOK%d_$k; done", i))
	}
	wg.Wait()
	close(results)
	for r := range results {
		t.Error(r)
	}
}

func TestCatastrophicRegexIsBounded(t *testing.T) {
	// Not parallel: it bounds how long the wait and the next call take, which
	// other tests' load would stretch.
	e := newEnv(t, envOptions{})
	pane, c := e.shell(t)
	e.run(t, pane, "printf 'a%.0s' $(seq 1 40); echo '!'")
	start := time.Now()
	r := e.call(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": c, "patterns": []string{"^(a+)+$"}, "regex": true, "timeoutMs": 5000})
	if time.Since(start) > 10*time.Second {
		t.Fatalf("took %v", time.Since(start))
	}
	if r.IsError {
		mustContain(t, "error", r.Text, "patterns[0]")
	} else if r.Str("outcome") == "matched" {
		t.Fatalf("matched: %v", r)
	}
	t.Logf("catastrophic regex returned after %v: %v", time.Since(start), r)
	s := time.Now()
	e.ok(t, "list_panes", map[string]any{})
	if time.Since(s) > 2*time.Second {
		t.Fatalf("server slow after the regex: %v", time.Since(s))
	}
}

func TestBadInputIsAToolErrorNamingTheFieldAndChangesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{waitMax: 2 * time.Second})
	pane, c := e.shell(t)
	many := make([]string, 65)
	for i := range many {
		many[i] = fmt.Sprint("p", i)
	}
	cases := []struct {
		tool string
		args map[string]any
		want []string
	}{
		{"wait_for_text", map[string]any{"paneId": "3"}, []string{"paneId", `"3"`, "%N"}},
		{"wait_for_text", map[string]any{"paneId": "%99999"}, []string{"paneId", "%99999", "list_panes"}},
		{"wait_for_text", map[string]any{"paneId": pane, "cursor": "ltxc1.zz.1"}, []string{"cursor", "ltxc1.zz.1"}},
		{"wait_for_text", map[string]any{"paneId": pane, "patterns": many}, []string{"patterns", "65", "64"}},
		{"wait_for_text", map[string]any{"paneId": pane, "patterns": []string{"ok", "(unclosed"}, "regex": true}, []string{"patterns[1]", "(unclosed", "regular expression"}},
		{"wait_for_text", map[string]any{"paneId": pane, "maxLines": 0}, []string{"maxLines", "0"}},
		{"wait_for_text", map[string]any{"paneId": pane, "timeoutMs": "soon"}, []string{"timeoutMs"}},
		{"wait_for_text", map[string]any{"paneId": pane, "bogus": 1}, []string{"bogus"}},
		{"capture_since", map[string]any{"paneId": pane, "maxBytes": 1}, []string{"maxBytes", "1"}},
		{"type_text", map[string]any{"paneId": "%99999", "text": "rm -rf /tmp/x"}, []string{"paneId", "%99999"}},
		{"send_keys", map[string]any{"paneId": pane, "keys": []string{}}, []string{"keys"}},
		{"create_pane", map[string]any{"cwd": "relative/dir"}, []string{"cwd", "relative/dir", "absolute"}},
		{"create_pane", map[string]any{"split": "diagonal"}, []string{"split", "diagonal"}},
		{"create_pane", map[string]any{"session": "nosuchsession"}, []string{"session", "nosuchsession"}},
		{"kill_pane", map[string]any{"paneId": "%99999"}, []string{"paneId", "%99999"}},
	}
	before := e.ok(t, "list_panes", map[string]any{})
	for _, tc := range cases {
		r := e.call(t, tc.tool, tc.args)
		if !r.IsError {
			t.Errorf("%s(%v) succeeded: %v", tc.tool, tc.args, r)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(r.Text, w) {
				t.Errorf("%s(%v): error %q does not mention %q", tc.tool, tc.args, r.Text, w)
			}
		}
	}
	after := e.ok(t, "list_panes", map[string]any{})
	if len(before.M["panes"].([]any)) != len(after.M["panes"].([]any)) {
		t.Errorf("bad input changed the panes: %v -> %v", before, after)
	}
	// Nothing was typed into the pane by the rejected calls.
	r := e.ok(t, "capture_since", map[string]any{"paneId": pane, "cursor": c})
	if r.Str("output") != "" {
		t.Errorf("rejected calls typed into the pane: %q", r.Str("output"))
	}
	// An over-long timeout is clamped and reported, not refused.
	w := e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "patterns": []string{"never"}, "timeoutMs": 1e9})
	if w.Num("effectiveTimeoutMs") != 2000 || w.Str("outcome") != "timed_out" {
		t.Errorf("clamp: %v", w)
	}
}

func TestCancelledWaitEndsPromptly(t *testing.T) {
	t.Parallel()
	started := make(chan struct{}, 1)
	e := newEnv(t, envOptions{client: &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
			select {
			case started <- struct{}{}:
			default:
			}
		},
	}})
	pane, _ := e.shell(t)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := e.cs.CallTool(ctx, &mcp.CallToolParams{Name: "wait_for_text", Arguments: map[string]any{"paneId": pane, "patterns": []string{"never"}, "timeoutMs": 60000}, Meta: mcp.Meta{"progressToken": "p1"}})
		errc <- err
	}()
	select {
	case <-started:
	case <-time.After(20 * time.Second):
		t.Fatal("no progress notification while waiting")
	}
	cancel()
	at := time.Now()
	select {
	case err := <-errc:
		if err == nil {
			t.Fatal("cancelled call returned no error")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("cancelled wait did not end")
	}
	t.Logf("cancelled call returned after %v", time.Since(at))
	// The server still answers (the handler is gone; goleak checks the rest).
	e.ok(t, "list_panes", map[string]any{})
}

func TestHumanClientKeepsItsWindowSize(t *testing.T) {
	t.Parallel()
	target := tmuxtest.Server(t, "agent", 120, 40)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// Signal a wait-for channel when the person's client attaches.
	if _, err := target.Run(ctx, "set-hook", "-g", "client-attached", "wait-for -S human-attached"); err != nil {
		t.Fatal(err)
	}
	human := tmuxtest.AttachHuman(t, target, "agent", 100, 30)
	tmuxtest.WaitSignal(t, target, "human-attached", "the person's client to attach")
	size := func() string {
		out, err := target.Run(ctx, "list-clients", "-F", "#{client_control_mode} #{client_width}x#{client_height} #{window_width}x#{window_height}")
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "0 ") {
				return strings.TrimPrefix(l, "0 ")
			}
		}
		t.Fatalf("no human client in %q", out)
		return ""
	}
	before := size()
	if !strings.HasPrefix(before, "100x30 ") {
		t.Fatalf("human client is %s, want 100x30", before)
	}
	e := newEnv(t, envOptions{target: &target})
	panes := e.ok(t, "list_panes", map[string]any{}).M["panes"].([]any)
	humanPane := panes[0].(map[string]any)
	if humanPane["attended"] != true {
		t.Errorf("the pane the person looks at is not attended: %v", humanPane)
	}
	p, _ := e.shell(t)
	e.ok(t, "create_pane", map[string]any{"split": "vertical", "targetPaneId": p})
	e.run(t, p, "echo typed")
	e.run(t, humanPane["paneId"].(string), "echo hello human")
	if after := size(); after != before {
		t.Fatalf("window size changed from %s to %s", before, after)
	}
	_ = human
}

func TestCursorsOfOtherRecordings(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	p1, c1 := e.shell(t)
	p2, _ := e.shell(t)
	word := token(t, "KEPT")
	e.run(t, p1, "echo "+word)
	e.ok(t, "wait_for_text", map[string]any{"paneId": p1, "cursor": c1, "patterns": []string{"^" + word + "$"}, "regex": true, "timeoutMs": 20000})

	// A cursor of another pane is refused, naming both panes.
	r := e.call(t, "capture_since", map[string]any{"paneId": p2, "cursor": c1})
	if !r.IsError || !strings.Contains(r.Text, p1) || !strings.Contains(r.Text, p2) {
		t.Fatalf("cursor of another pane: %v", r)
	}
	// A cursor of a recording tmuxmcp does not have (e.g. from before a
	// restart) is reported as expired, never reinterpreted.
	unknown := "ltxc1." + strings.Repeat("ab", 16) + ".10"
	w := e.ok(t, "wait_for_text", map[string]any{"paneId": p2, "cursor": unknown, "timeoutMs": 1000})
	if w.Str("outcome") != "no_stream" || w.Str("streamFailure") != "expired" || w.M["cursor"] != nil {
		t.Fatalf("unknown recording: %v", w)
	}
	r = e.ok(t, "capture_since", map[string]any{"paneId": p2, "cursor": unknown})
	if r.Str("streamFailure") != "expired" || r.Str("output") != "" {
		t.Fatalf("unknown recording: %v", r)
	}
	// A killed pane's recording stays readable from an earlier cursor.
	e.ok(t, "kill_pane", map[string]any{"paneId": p1})
	r = e.ok(t, "capture_since", map[string]any{"paneId": p1, "cursor": c1})
	mustContain(t, "output of the killed pane", r.Str("output"), word+"\n")
	w = e.ok(t, "wait_for_text", map[string]any{"paneId": p1, "cursor": r.Str("cursor"), "patterns": []string{"x"}, "timeoutMs": 20000})
	if w.Str("outcome") != "pane_died" {
		t.Fatalf("wait on a killed pane: %v", w)
	}
	// Without a cursor the killed pane is unknown.
	if r := e.call(t, "list_panes", map[string]any{}); r.IsError || strings.Contains(r.String(), `"paneId":"`+p1+`"`) {
		t.Fatalf("killed pane still listed: %v", r)
	}
}

func TestOutputDroppedByTmuxIsReported(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{ingest: tmux.IngestControl}) // tmux pauses only %output
	pane, c := e.shell(t)
	n := mustPane(t, pane)
	// What tmux does when tmuxmcp falls pause-after seconds behind: discard
	// the pane's queued output and send %pause. tmuxmcp resumes it itself.
	if _, err := e.h.Fleet().ExecPane(context.Background(), n, nil, "refresh-client", "-A", pane+":pause"); err != nil {
		t.Fatal(err)
	}
	w := e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": c, "patterns": []string{"never"}, "timeoutMs": 20000})
	if w.Str("outcome") != "output_lost" || w.Str("streamFailure") != "events_dropped" || w.M["cursor"] == nil {
		t.Fatalf("got %v", w)
	}
	r := e.ok(t, "capture_since", map[string]any{"paneId": pane, "cursor": c})
	if r.Str("streamFailure") != "events_dropped" {
		t.Fatalf("capture_since across the gap: %v", r)
	}
	// Output flows again after the gap (tmuxmcp sent %p:continue).
	word := token(t, "AFTER")
	e.run(t, pane, "echo "+word)
	w = e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": w.Str("cursor"), "patterns": []string{"^" + word + "$"}, "regex": true, "timeoutMs": 20000})
	if w.Str("outcome") != "matched" {
		t.Fatalf("after the gap: %v", w)
	}
}

// TestAPaneWhosePipeSomeoneReplacesReportsTheGapAndGoesOn: a person runs
// pipe-pane on a pane tmuxmcp reads raw; the bytes in between are reported
// missed, the pane is listed as read through control mode, and its output
// is recorded again.
func TestAPaneWhosePipeSomeoneReplacesReportsTheGapAndGoesOn(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{ingest: tmux.IngestPipe})
	pane, c := e.shell(t)
	ingest := func() string {
		for _, p := range e.ok(t, "list_panes", map[string]any{}).M["panes"].([]any) {
			if m := p.(map[string]any); m["paneId"] == pane {
				s, _ := m["ingest"].(string)
				return s
			}
		}
		return ""
	}
	// The hand-over to a pipe happens in the background once the pane is
	// listed: wait for it.
	for deadline := time.Now().Add(20 * time.Second); ingest() != tmux.IngestPipe; {
		if time.Now().After(deadline) {
			t.Fatalf("a fresh pane is read through %q, want %q", ingest(), tmux.IngestPipe)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := e.target.Run(context.Background(), "pipe-pane", "-t", pane, "cat > /dev/null"); err != nil {
		t.Fatal(err)
	}
	w := e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": c, "patterns": []string{"never"}, "timeoutMs": 20000})
	if w.Str("outcome") != "output_lost" || w.Str("streamFailure") != "events_dropped" {
		t.Fatalf("wait across the replaced pipe: %v", w)
	}
	if got := ingest(); got != tmux.IngestControl {
		t.Errorf("after pipe-pane the pane is read through %q, want %q", got, tmux.IngestControl)
	}
	word := token(t, "AFTER")
	e.run(t, pane, "echo "+word)
	w = e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": w.Str("cursor"), "patterns": []string{"^" + word + "$"}, "regex": true, "timeoutMs": 20000})
	if w.Str("outcome") != "matched" {
		t.Fatalf("after the gap: %v", w)
	}
}

func TestReconnectsToANewServerOnTheSameSocket(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	pane, c := e.shell(t)
	tmuxtest.Kill(e.target)
	w := e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": c, "timeoutMs": 5000})
	if w.Str("outcome") != "stream_lost" || w.Str("streamFailure") != "connection_lost" {
		t.Fatalf("wait across kill-server: %v", w)
	}
	// A new server on the same socket.
	tmuxtest.Restart(t, e.target, "agent", 120, 40)
	deadline := time.Now().Add(20 * time.Second)
	var panes []any
	for time.Now().Before(deadline) {
		if r := e.call(t, "list_panes", map[string]any{}); !r.IsError {
			panes = r.M["panes"].([]any)
			break
		}
		time.Sleep(100 * time.Millisecond) // tmuxmcp retries with backoff; the outcome is checked below
	}
	if len(panes) == 0 {
		t.Fatal("tmuxmcp did not reconnect to the new server")
	}
	// The old cursor is not reinterpreted on the new server's pane.
	newPane := panes[0].(map[string]any)["paneId"].(string)
	old := e.ok(t, "wait_for_text", map[string]any{"paneId": newPane, "cursor": c, "timeoutMs": 1000})
	if old.Str("outcome") != "no_stream" || old.Str("streamFailure") != "expired" {
		t.Fatalf("old cursor on the new server: %v", old)
	}
	// Waits started now match.
	p2, _ := e.shell(t)
	c2 := e.run(t, p2, "echo AFTER-RESTART")
	if w := e.ok(t, "wait_for_text", map[string]any{"paneId": p2, "cursor": c2, "patterns": []string{"^AFTER-RESTART$"}, "regex": true, "timeoutMs": 20000}); w.Str("outcome") != "matched" {
		t.Fatalf("wait after reconnect: %v", w)
	}
}

func TestEmbeddedServerIsStartedAgainOnTheNextCall(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{restart: true})
	pane, c := e.shell(t)
	tmuxtest.Kill(e.target)
	if w := e.ok(t, "wait_for_text", map[string]any{"paneId": pane, "cursor": c, "timeoutMs": 5000}); w.Str("outcome") != "stream_lost" {
		t.Fatalf("wait across kill-server: %v", w)
	}
	// The next call that needs tmux starts the server again and reconnects.
	r := e.ok(t, "create_pane", map[string]any{})
	w := e.ok(t, "wait_for_text", map[string]any{"paneId": r.Str("paneId"), "cursor": r.Str("cursor"), "patterns": []string{promptPattern}, "regex": true, "timeoutMs": 20000})
	if w.Str("outcome") != "matched" {
		t.Fatalf("after restart: %v", w)
	}
}

func TestFloodingPaneDoesNotDelayAnother(t *testing.T) {
	// Not parallel: it measures the test process's RSS, which other tests'
	// panes would grow, and a latency bound of one second.
	if testing.Short() {
		t.Skip("long")
	}
	grown := rssSince(t)
	target := tmuxtest.Server(t, "agent", 120, 40)
	if _, err := target.Run(t.Context(), "set-hook", "-g", "client-attached", "wait-for -S human-attached"); err != nil {
		t.Fatal(err)
	}
	tmuxtest.AttachHuman(t, target, "agent", 120, 40)
	tmuxtest.WaitSignal(t, target, "human-attached", "the person's client to attach")
	e := newEnv(t, envOptions{target: &target})
	flood, fc := e.shell(t)
	quiet, qc := e.shell(t)
	e.run(t, flood, "head -c 50000000 /dev/zero | tr '\\0' 'x' | fold -w 100; echo FLOOD-DONE")
	// While the flood runs, the quiet pane prints a timestamp.
	e.run(t, quiet, "sleep 1; echo QUIET $(date +%s%N)")
	w := e.ok(t, "wait_for_text", map[string]any{"paneId": quiet, "cursor": qc, "patterns": []string{`^QUIET (?<ns>\d+)$`}, "regex": true, "timeoutMs": 60000})
	got := time.Now()
	if w.Str("outcome") != "matched" {
		t.Fatalf("quiet pane: %v", w)
	}
	ns, _ := strconv.ParseInt(w.M["groups"].(map[string]any)["ns"].(string), 10, 64)
	lat := got.Sub(time.Unix(0, ns))
	t.Logf("quiet pane's text matched %v after it was printed, during a 50 MB flood", lat)
	if lat > time.Second {
		t.Errorf("the flood delayed another pane's wait by %v", lat)
	}
	// The flooding pane's own results say what it lost (1 MiB is retained).
	f := e.ok(t, "capture_since", map[string]any{"paneId": flood, "cursor": fc, "maxBytes": 1000})
	if f.Num("missedBytes") == 0 {
		t.Fatalf("flood pane reports no loss: %v", f)
	}
	t.Logf("flood pane: missedBytes %d, streamFailure %v", f.Num("missedBytes"), f.M["streamFailure"])
	e.ok(t, "send_keys", map[string]any{"paneId": flood, "keys": []string{"C-c"}})
	if rss := grown(); rss > 150<<20 {
		t.Fatalf("RSS grew %d MiB", rss>>20)
	} else {
		t.Logf("RSS growth %.1f MiB", float64(rss)/(1<<20))
	}
}
