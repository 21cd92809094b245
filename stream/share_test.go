package stream

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// sharedTrial is one scripted pane: chunks of output, with waits opened
// between them. Played twice — once with the shared pass, once with every
// wait reading for itself — every wait must end with the same result.
type sharedTrial struct {
	chunks [][]byte
	typed  map[int]string // before chunk i, this text is typed (its echo is masked)
	gaps   map[int]bool   // before chunk i, tmux drops output (a gap)
	opens  map[int][]WaitSpec
	dies   bool // the pane dies after the last chunk
}

func randomTrial(r *rand.Rand) sharedTrial {
	words := []string{"alpha", "beta", "gamma", "DONE", "ok", "é", "日本", "x", "error:", "ready>", "$ "}
	var out strings.Builder
	for out.Len() < 200<<10 {
		switch r.IntN(12) {
		case 0:
			fmt.Fprintf(&out, "\x1b[3%dm", r.IntN(8))
		case 1:
			out.WriteString("\x1b[0m")
		case 2:
			out.WriteString("\r\n")
		case 3:
			out.WriteString("\n")
		case 4:
			out.WriteString("\r") // a progress bar redraws
		case 5:
			out.WriteString(strings.Repeat("z", r.IntN(40<<10))) // over maxLine now and then
		case 6:
			out.WriteString("\x1b]0;title\x07")
		default:
			out.WriteString(words[r.IntN(len(words))])
			out.WriteByte(' ')
		}
	}
	data := []byte(out.String())
	t := sharedTrial{typed: map[int]string{}, gaps: map[int]bool{}, opens: map[int][]WaitSpec{}, dies: r.IntN(3) == 0}
	for len(data) > 0 {
		n := min(len(data), 1+r.IntN(9000))
		if i := bytes.IndexByte(data[n-1:], '\n'); i >= 0 && r.IntN(2) == 0 {
			n += i // end the chunk at a line end: waits level there can join
		}
		t.chunks = append(t.chunks, data[:n])
		data = data[n:]
	}
	if !t.dies {
		t.chunks = append(t.chunks, []byte("\r\nthe end: END-ALL\r\n"))
	}
	for i := range t.chunks {
		if r.IntN(20) == 0 {
			t.typed[i] = "beta"
		}
		if r.IntN(40) == 0 {
			t.gaps[i] = true
		}
		if i == 0 || r.IntN(6) == 0 {
			for k := r.IntN(6); k >= 0; k-- {
				var pats []string
				for j := r.IntN(5); j >= 0; j-- {
					pats = append(pats, words[r.IntN(len(words))]+strings.Repeat(" ", r.IntN(2)))
				}
				if r.IntN(3) == 0 {
					pats = []string{"END-ALL"}
				}
				pats = append(pats, "END-ALL")
				regex := r.IntN(3) == 0
				if regex {
					// Fixed-length alternatives: a match held at the end of
					// an unfinished line is the same match once the line
					// goes on, so results do not depend on read timing.
					pats = []string{`(?<w>beta|gamma) ok`, `x [a-z]{5} `, `^DONE`, `日本 é`}[:1+r.IntN(4)]
					pats = append(pats, `END-(?<all>ALL)`)
				}
				m, err := NewMatcher(pats, regex, 10*time.Second) // long lines under -race on a loaded machine
				if err != nil {
					panic(err)
				}
				limits := []int{0, 10, 4096, 100 << 10}
				t.opens[i] = append(t.opens[i], WaitSpec{Matcher: m, Timeout: time.Minute, MaxBytes: limits[r.IntN(len(limits))] + r.IntN(3), MaxLines: r.IntN(3) * r.IntN(50)})
			}
		}
	}
	return t
}

// play runs the trial on a fresh stream and returns every wait's result,
// in the order the waits were opened, and how many joined a shared pass.
func (t sharedTrial) play(share bool) ([]WaitResult, int64) {
	h := NewHub(1 << 30)
	s := h.Adopt(1)
	s.noShare = !share
	var results []WaitResult
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i, c := range t.chunks {
		for _, spec := range t.opens[i] {
			spec.From = s.End()
			mu.Lock()
			k := len(results)
			results = append(results, WaitResult{})
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, err := s.Wait(context.Background(), spec)
				if err != nil {
					panic(err)
				}
				mu.Lock()
				results[k] = r
				mu.Unlock()
			}()
		}
		if text, ok := t.typed[i]; ok {
			s.Typed(text, time.Now())
		}
		if t.gaps[i] {
			h.Dropped(1)
		}
		h.Output(1, c)
		if i%3 == 0 {
			time.Sleep(time.Millisecond) // let some waits catch up and join between chunks
		}
	}
	if t.dies {
		s.end(true, "")
	}
	wg.Wait()
	return results, s.shared.Load()
}

// The shared pass changes nothing a wait returns: for random output (colour,
// CR, over-long lines, wide characters, typed echo) and waits opened at
// random points with random patterns and bounds, each result is exactly
// what the wait returns when it reads for itself — also when tmux drops
// output (a gap) or the pane dies.
func TestSharedWaitsReturnWhatALoneWaitReturns(t *testing.T) {
	var joined int64
	outcomes := map[Outcome]int{}
	for seed := range uint64(16) {
		tr := randomTrial(rand.New(rand.NewPCG(seed, 7)))
		alone, _ := tr.play(false)
		shared, n := tr.play(true)
		joined += n
		for i := range alone {
			a, b := alone[i], shared[i]
			// A match's place within the line text depends on where an
			// over-long line was cut into pieces, which depends on how
			// reads fell; MatchOffset is its place in the stream.
			for _, m := range []*Match{a.Match, b.Match} {
				if m != nil {
					m.End -= m.Start
					m.Start = 0
				}
			}
			outcomes[a.Outcome]++
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("seed %d wait %d:\nalone:  %s\nshared: %s", seed, i, brief(a), brief(b))
			}
		}
	}
	if joined == 0 {
		t.Fatal("no wait joined a shared pass: the trial did not test it")
	}
	for _, o := range []Outcome{Matched, OutputLost, PaneDied} {
		if outcomes[o] == 0 {
			t.Errorf("no wait ended %s: the trial did not test it (%v)", o, outcomes)
		}
	}
	t.Logf("%d joins; outcomes %v", joined, outcomes)
}

func brief(r WaitResult) string {
	out := r.Output
	if len(out) > 120 {
		out = out[:60] + "…" + out[len(out)-60:]
	}
	m := "<nil>"
	if r.Match != nil {
		m = fmt.Sprintf("%+v", *r.Match)
	}
	return fmt.Sprintf("%s at %d cursor %d missed %d omitted %d dropped %d echo %v match %s output %q (%d bytes)",
		r.Outcome, r.MatchOffset, r.Cursor, r.Missed, r.OmittedBytes, r.DroppedLines, r.EchoMatched, m, out, len(r.Output))
}

// Waits in a shared pass still end on their own: a timeout takes one out
// with the output so far while the others go on to their match.
func TestASharedWaitTimesOutAloneWithItsOutput(t *testing.T) {
	h := NewHub(1 << 20)
	s := h.Adopt(1)
	never, _ := NewMatcher([]string{"never"}, false, 0)
	later, _ := NewMatcher([]string{"later"}, false, 0)
	type res struct {
		r   WaitResult
		err error
	}
	short := make(chan res, 1)
	long := make(chan res, 1)
	from := s.End()
	go func() {
		r, err := s.Wait(context.Background(), WaitSpec{From: from, Matcher: never, Timeout: 300 * time.Millisecond})
		short <- res{r, err}
	}()
	go func() {
		r, err := s.Wait(context.Background(), WaitSpec{From: from, Matcher: later, Timeout: time.Minute})
		long <- res{r, err}
	}()
	for s.waits.Load() < 2 {
		time.Sleep(time.Millisecond)
	}
	h.Output(1, []byte("warm\r\n")) // the wait that read alone joins at this line end
	for deadline := time.Now().Add(20 * time.Second); s.shared.Load() < 2; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of 2 waits joined the shared pass", s.shared.Load())
		}
	}
	h.Output(1, []byte("first line\r\npartial"))
	got := <-short
	if got.err != nil || got.r.Outcome != TimedOut || got.r.Output != "warm\nfirst line\npartial" {
		t.Fatalf("timed-out wait: %v %s", got.err, brief(got.r))
	}
	h.Output(1, []byte(" and later\r\n"))
	got = <-long
	if got.err != nil || got.r.Outcome != Matched || got.r.Output != "warm\nfirst line\npartial and later" {
		t.Fatalf("matching wait: %v %s", got.err, brief(got.r))
	}
}

// Bytes evicted before the shared pass read them are counted in every
// member's result, as they would be in a wait that read alone.
func TestSharedWaitsCountWhatThePassMissed(t *testing.T) {
	h := NewHub(64 << 10)
	s := h.Adopt(1)
	m, _ := NewMatcher([]string{"END"}, false, 0)
	results := make(chan WaitResult, 2)
	from := s.End()
	for range 2 {
		go func() {
			r, err := s.Wait(context.Background(), WaitSpec{From: from, Matcher: m, Timeout: time.Minute})
			if err != nil {
				panic(err)
			}
			results <- r
		}()
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(time.Millisecond) {
		if _, shared := s.Waits(); shared == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the two waits did not join a shared pass")
		}
	}
	s.group.mu.Lock() // the pass stalls: the window moves on without it
	line := []byte(strings.Repeat("x", 99) + "\r\n")
	for range 2000 {
		h.Output(1, line)
	}
	s.group.mu.Unlock()
	h.Output(1, []byte("END\r\n"))
	for range 2 {
		r := <-results
		if r.Outcome != Matched || r.Missed < 2000*101-64<<10 {
			t.Fatalf("%s: want matched with at least %d bytes missed", brief(r), 2000*101-64<<10)
		}
	}
}

// A regex wait in the shared pass holds a match at the end of an
// unfinished line, as a lone wait does: ^300$ does not match the first
// three digits of 3000000, and a prompt with no newline matches once it
// settles.
func TestSharedRegexWaitsHoldAMatchUntilTheLineSettles(t *testing.T) {
	h := NewHub(1 << 20)
	s := h.Adopt(1)
	s.settleTime = 2 * time.Second // however slow the machine, "0000" comes before it
	type res struct {
		r   WaitResult
		err error
	}
	anchored, prompt := make(chan res, 1), make(chan res, 1)
	from := s.End()
	for _, w := range []struct {
		pattern string
		to      chan res
	}{{`^300$`, anchored}, {`\$ $`, prompt}} {
		m := mustMatcher(t, true, w.pattern)
		go func() {
			r, err := s.Wait(context.Background(), WaitSpec{From: from, Matcher: m, Timeout: 20 * time.Second})
			w.to <- res{r, err}
		}()
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(time.Millisecond) {
		if _, shared := s.Waits(); shared == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the two waits did not join a shared pass")
		}
	}
	h.Output(1, []byte("300"))
	for s.group.position() < 3 {
		time.Sleep(time.Millisecond) // the pass has seen "300" alone
	}
	h.Output(1, []byte("0000\r\n300\r\n"))
	got := <-anchored
	if got.err != nil || got.r.Outcome != Matched || got.r.MatchOffset != int64(len("3000000\r\n")) {
		t.Fatalf("^300$: %v %s", got.err, brief(got.r))
	}
	h.Output(1, []byte("user@host:~$ "))
	got = <-prompt
	if got.err != nil || got.r.Outcome != Matched || got.r.Output != "3000000\n300\nuser@host:~$ " {
		t.Fatalf("prompt: %v %s", got.err, brief(got.r))
	}
}
