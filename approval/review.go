package approval

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/tmuxmcp/tmuxmcp/policy"
	"github.com/tmuxmcp/tmuxmcp/private"
)

// Slot is the one review open at a time, and a person's "allow everything
// for the rest of this session". It is safe for concurrent use.
type Slot struct {
	mu       sync.Mutex
	busy     bool
	allowAll bool
}

// Claim takes the slot; false when a review is already open.
func (s *Slot) Claim() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.busy {
		return false
	}
	s.busy = true
	return true
}

// Release frees the slot after a review; allowAll records that the person
// allowed everything from now on.
func (s *Slot) Release(allowAll bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.busy = false
	s.allowAll = s.allowAll || allowAll
}

// AllowedAll reports whether a person allowed everything for this session.
func (s *Slot) AllowedAll() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.allowAll
}

// Answer is how a review ended.
type Answer struct {
	Decision Decision // Approved, Denied, DeniedTimeout or DeniedError
	// By names who answered: "tmux:<client>", "exec:<program name>", or
	// "tmux" when nobody did.
	By string
	// AllowAll says the person allowed everything for the rest of the
	// session (the popup's "a").
	AllowAll bool
}

// Files are the files of the machine the popups run on: this one, or
// the host whose tmux server shows them (a machine.Machine is Files).
type Files interface {
	// WriteFile creates a new private file (mode 0600), making its
	// directory when missing; it may refuse a path where something is
	// already (machine.Machine's does).
	WriteFile(ctx context.Context, path string, data []byte) error
	// ReadFile reads a file.
	ReadFile(ctx context.Context, path string) ([]byte, error)
	// Remove deletes files, ignoring missing ones.
	Remove(ctx context.Context, paths ...string)
}

// localFiles are this machine's files.
type localFiles struct{}

func (localFiles) WriteFile(_ context.Context, p string, data []byte) error {
	if err := private.Dir(path.Dir(p)); err != nil {
		return err
	}
	return private.Create(p, data)
}

func (localFiles) ReadFile(_ context.Context, p string) ([]byte, error) { return os.ReadFile(p) }

func (localFiles) Remove(_ context.Context, paths ...string) {
	for _, p := range paths {
		_ = os.Remove(p)
	}
}

// fileTimeout bounds one file operation of a review made after its
// context may have ended (reading an answer, removing the files).
const fileTimeout = 10 * time.Second

// Asker puts requests to people: a popup on each attached tmux client and
// the approver program, racing; the first answer wins and the others are
// withdrawn. How a popup is shown is the caller's (Popup, Close), so this
// package runs no tmux itself.
type Asker struct {
	// Dir holds each request's text and the popups' answers while open:
	// a private directory on the machine the popups run on (made when
	// missing). Without one, no popup is shown.
	Dir string
	// Files reads and writes Dir's files; nil is this machine's.
	Files Files
	// Timeout is how long people have to answer.
	Timeout time.Duration
	// Approver is the program of --approval-via exec:, or "".
	Approver string
	// ApproverArgs are the arguments Approver is started with.
	ApproverArgs []string
	// Popup shows, on client, a popup that runs the shell command line
	// cmd, and returns when it closes.
	Popup func(ctx context.Context, client, cmd string) error
	// Close closes client's popup.
	Close func(ctx context.Context, client string)
	Log   *slog.Logger
}

// popupScript asks in a popup: $1 is the file that receives the answer,
// $2 the request's text.
const popupScript = `# tmuxmcp approval prompt
rows=$(stty size 2>/dev/null | cut -d' ' -f1)
n=$(wc -l < "$2")
only_deny=
if [ -n "$rows" ] && [ "$n" -gt $((rows - 3)) ]; then
  # Never approve what does not fit: the start would scroll out of sight.
  head -n $((rows - 4)) "$2"
  printf '\n  This request needs %s rows and this window shows %s: enlarge it to read it all. [n] deny  ' "$n" "$rows"
  only_deny=1
else
  cat "$2"
  printf '\n  [y] allow once   [a] allow for the rest of this session   [n] deny  '
fi
while :; do
  stty -icanon -echo 2>/dev/null
  k=$(dd bs=1 count=1 2>/dev/null)
  stty icanon echo 2>/dev/null
  case "$k" in
    y|Y|a|A) [ -z "$only_deny" ] && break ;;
    n|N) break ;;
    q|"$(printf '\033')") k=n; break ;;
  esac
done
printf '%s' "$k" > "$1"
`

// Ask puts req to the people at clients and to the approver program and
// returns the first answer; silence until the timeout is DeniedTimeout,
// and every asker failing is DeniedError. ctx ending withdraws the
// request (DeniedError).
func (a *Asker) Ask(ctx context.Context, clients []string, req Request) Answer {
	rv := a.newReview(clients, withDefaults(req))
	var werr error // the popups cannot be shown: each one fails
	if len(clients) > 0 {
		werr = a.writeRequest(ctx, rv.files, rv.details, rv.script, rv.answers, rv.req)
	}
	if len(clients) > 0 && a.Dir != "" {
		defer rv.removeFiles(ctx)
	}
	actx, withdraw := context.WithCancel(ctx)
	defer withdraw()
	if a.Approver != "" {
		rv.askProgram(actx)
	}
	for i, c := range clients {
		rv.askPopup(actx, c, rv.answers[i], werr)
	}
	ans := rv.firstAnswer(ctx)
	withdraw()
	if a.Close != nil {
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		for _, c := range clients {
			a.Close(cctx, c)
		}
		cancel()
	}
	rv.wg.Wait()
	return ans
}

// withDefaults is req with what Ask fills in when it is missing: a fresh
// request id, the command as a person sees it, and the local host.
func withDefaults(req Request) Request {
	if req.RequestID == "" {
		req.RequestID = strings.ToLower(rand.Text())
	}
	if req.Shown == "" {
		req.Shown = Visible(req.Command)
	}
	if req.Host == "" {
		req.Host = policy.LocalHost
	}
	return req
}

// review is one request that Ask puts to people: the files the popups read
// and write, and the askers (a popup per client, the approver program)
// racing to answer on results.
type review struct {
	a       *Asker
	req     Request
	files   Files
	details string   // the request's text, for the popups
	script  string   // the popup script
	answers []string // per client, the file its popup writes the answer to
	askers  int      // how many results will come
	results chan askResult
	wg      sync.WaitGroup
}

// askResult is what one asker came back with.
type askResult struct {
	by, answer string
	err        error
	silent     bool // the approver program did not answer in time
}

// newReview names the files of req's review in a.Dir and makes room on
// results for every asker's result, so no asker blocks on a review over.
func (a *Asker) newReview(clients []string, req Request) *review {
	rv := &review{
		a:       a,
		req:     req,
		files:   a.files(),
		details: path.Join(a.Dir, req.RequestID+".txt"),
		script:  path.Join(a.Dir, req.RequestID+".sh"),
		answers: make([]string, len(clients)),
		askers:  len(clients),
	}
	for i := range clients {
		rv.answers[i] = path.Join(a.Dir, fmt.Sprintf("%s.%d.answer", req.RequestID, i))
	}
	if a.Approver != "" {
		rv.askers++
	}
	rv.results = make(chan askResult, rv.askers)
	return rv
}

// removeFiles removes the review's files, even when ctx has ended.
func (rv *review) removeFiles(ctx context.Context) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), fileTimeout)
	defer cancel()
	rv.files.Remove(cctx, append([]string{rv.details, rv.script}, rv.answers...)...)
}

// askProgram asks the approver program in a goroutine of its own, giving
// it a.Timeout to answer; actx ending withdraws the question.
func (rv *review) askProgram(actx context.Context) {
	a := rv.a
	rv.wg.Add(1)
	go func() {
		defer rv.wg.Done()
		pctx, cancel := context.WithTimeout(actx, a.Timeout)
		defer cancel()
		d, err := AskCommand(pctx, a.Approver, a.ApproverArgs, rv.req)
		if err != nil && a.Log != nil {
			a.Log.Warn("approver program", "program", a.Approver, "decision", d, "err", err)
		}
		answer := map[Decision]string{Approved: "y", Denied: "n"}[d]
		rv.results <- askResult{by: "exec:" + filepath.Base(a.Approver), answer: answer, err: err, silent: d == DeniedTimeout}
	}()
}

// askPopup shows the popup on client in a goroutine of its own and reads
// the key it wrote to answer; werr, when set, fails it without showing it.
// actx ending withdraws the popup.
func (rv *review) askPopup(actx context.Context, client, answer string, werr error) {
	a := rv.a
	rv.wg.Add(1)
	go func() {
		defer rv.wg.Done()
		if werr != nil {
			rv.results <- askResult{by: "tmux:" + client, err: werr}
			return
		}
		pctx, cancel := context.WithTimeout(actx, a.Timeout+10*time.Second)
		defer cancel()
		err := a.Popup(pctx, client, "sh "+quote(rv.script)+" "+quote(answer)+" "+quote(rv.details))
		rv.results <- askResult{by: "tmux:" + client, answer: a.readAnswer(pctx, rv.files, answer), err: err}
	}()
}

// firstAnswer waits for the first answer, the timeout, ctx to end, or every
// asker to close without answering, and returns the review's answer.
func (rv *review) firstAnswer(ctx context.Context) Answer {
	timer := time.NewTimer(rv.a.Timeout)
	defer timer.Stop()
	ans := Answer{Decision: Denied, By: "tmux"}
	var t unanswered
wait:
	for t.closed < rv.askers {
		select {
		case r := <-rv.results:
			t.closed++
			if got, ok := r.answered(); ok {
				ans = got
				break wait
			}
			switch {
			case r.silent:
				t.silent++
			case r.err != nil:
				t.failed++
			}
		case <-timer.C:
			ans = Answer{Decision: DeniedTimeout, By: "tmux"}
			break wait
		case <-ctx.Done():
			ans = Answer{Decision: DeniedError, By: "tmux"}
			break wait
		}
	}
	return t.settle(ans, rv.askers)
}

// answered is the answer r's key gives ("y", "a" or "n", in either case),
// or false when r holds no answer.
func (r askResult) answered() (Answer, bool) {
	switch strings.ToLower(r.answer) {
	case "y":
		return Answer{Decision: Approved, By: r.by}, true
	case "a":
		return Answer{Decision: Approved, By: r.by, AllowAll: true}, true
	case "n":
		return Answer{Decision: Denied, By: r.by}, true
	}
	return Answer{}, false
}

// unanswered counts the askers of a review that closed, and of those the
// ones that failed and the approver program that stayed silent.
type unanswered struct {
	closed, failed, silent int
}

// settle is the review's answer when the wait for one of askers ended with
// ans: DeniedError when every asker closed having failed, DeniedTimeout
// when every asker closed, nobody answered and the program was silent.
func (t unanswered) settle(ans Answer, askers int) Answer {
	switch {
	case t.closed == askers && t.failed == askers:
		ans.Decision = DeniedError
	case t.closed == askers && t.silent > 0 && ans.By == "tmux":
		ans.Decision = DeniedTimeout
	}
	return ans
}

// files are the Files of Dir.
func (a *Asker) files() Files {
	if a.Files == nil {
		return localFiles{}
	}
	return a.Files
}

// writeRequest writes the request's text and the popup script where the
// popups run, and each popup's answer file empty (mode 0600, so the
// popup's shell writes the key into a private file whatever its umask).
// What an earlier review of the same request left behind is removed
// first: a stale answer never answers this one. A popup that cannot show
// the request must not be shown: a missing text file would leave only the
// prompt to answer.
func (a *Asker) writeRequest(ctx context.Context, files Files, details, script string, answers []string, req Request) error {
	if a.Dir == "" {
		return a.warn(errors.New("no directory for the popups' files"))
	}
	files.Remove(ctx, append([]string{details, script}, answers...)...)
	if err := files.WriteFile(ctx, details, []byte(Text(req))); err != nil {
		return a.warn(fmt.Errorf("write the request for the popup: %w", err))
	}
	if err := files.WriteFile(ctx, script, []byte(popupScript)); err != nil {
		return a.warn(fmt.Errorf("write the popup script: %w", err))
	}
	for _, ans := range answers {
		if err := files.WriteFile(ctx, ans, nil); err != nil {
			return a.warn(fmt.Errorf("make the popup's answer file: %w", err))
		}
	}
	return nil
}

// readAnswer is the key a closed popup wrote to answer, or "" when it
// wrote none or ctx (the popup's) ended first: the review is over. The
// read itself is not cut short, so a remote read is never left half done.
func (a *Asker) readAnswer(ctx context.Context, files Files, answer string) string {
	if ctx.Err() != nil {
		return ""
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), fileTimeout)
	defer cancel()
	got, err := files.ReadFile(rctx, answer)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(got))
}

// warn logs err and returns it.
func (a *Asker) warn(err error) error {
	if a.Log != nil {
		a.Log.Warn("approval popup", "err", err)
	}
	return err
}

// quote is s in single quotes for sh.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Elicitation is an approval asked through the MCP client, bound to the
// exact request it is for: its answer cannot approve anything else.
type Elicitation struct {
	Command, Pane, CWD, RequestID string
	Host                          string // the host the pane is on
	Program                       string // shown, not compared
	// Sandbox is where the command runs (read-only, workspace, or
	// unsandboxed for an escalated command): an answer for one place is
	// no answer for another.
	Sandbox  string
	Escalate bool // the agent asked to run it outside the sandbox
	expires  time.Time
}

// Matches reports whether e was asked for the same command, host, pane,
// directory and request as want.
func (e Elicitation) Matches(want Elicitation) bool {
	return e.Command == want.Command && e.Host == want.Host && e.Pane == want.Pane && e.CWD == want.CWD && e.RequestID == want.RequestID && e.Sandbox == want.Sandbox && e.Escalate == want.Escalate
}

// Elicitations are the open elicitations, by request state. They are safe
// for concurrent use.
type Elicitations struct {
	mu sync.Mutex
	m  map[string]Elicitation
}

// Open records e for ttl and returns the request state that names it.
func (es *Elicitations) Open(e Elicitation, ttl time.Duration) string {
	state := rand.Text()
	e.expires = time.Now().Add(ttl)
	es.mu.Lock()
	defer es.mu.Unlock()
	if es.m == nil {
		es.m = map[string]Elicitation{}
	}
	for k, v := range es.m {
		if time.Now().After(v.expires) {
			delete(es.m, k)
		}
	}
	es.m[state] = e
	return state
}

// Take returns the elicitation state names and forgets it (an answer is
// used once); false when there is none or it expired.
func (es *Elicitations) Take(state string) (Elicitation, bool) {
	es.mu.Lock()
	defer es.mu.Unlock()
	e, ok := es.m[state]
	delete(es.m, state)
	if !ok || time.Now().After(e.expires) {
		return Elicitation{}, false
	}
	return e, true
}
