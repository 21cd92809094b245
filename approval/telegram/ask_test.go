package telegram

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/approval"
)

const testToken = "123456789:AAFakeSecretPartOfTheTokenXYZ_0123456"

var (
	alice = user{ID: 111, FirstName: "Alice", Username: "alice"}
	bob   = user{ID: 222, FirstName: "Bob"}
	eve   = user{ID: 999, FirstName: "Eve", Username: "eve"}
)

func testConfig(t *testing.T, f *fakeAPI, timeout time.Duration) Config {
	return Config{Token: testToken, Chats: []int64{111, 222}, API: f.srv.URL, Timeout: timeout, Dir: t.TempDir()}
}

func testRequest() approval.Request {
	return approval.Request{RequestID: "r1", Tool: "run_shell_command", Command: "rm -rf build/*  && echo '<b>*_[done]_*</b>'\x1b[2J",
		Pane: "%3", CWD: "/home/me/project", Host: "local", Reason: "clean the build", Sandbox: "workspace"}
}

// asked runs Ask in a goroutine and returns where its result arrives.
type asked struct {
	out Outcome
	err error
}

func ask(cfg Config, req approval.Request) chan asked {
	done := make(chan asked, 1)
	go func() {
		out, err := Ask(context.Background(), cfg, req)
		done <- asked{out, err}
	}()
	return done
}

func buttonData(t *testing.T, m *fakeMsg, text string) string {
	t.Helper()
	for _, b := range m.Buttons {
		if b.Text == text {
			return b.CallbackData
		}
	}
	t.Fatalf("no %s button on the message: %+v", text, m.Buttons)
	return ""
}

func TestApproveFromAnAllowedChatApprovesAndEditsEveryMessage(t *testing.T) {
	f := newFakeAPI(t, testToken)
	done := ask(testConfig(t, f, time.Minute), testRequest())
	m1, m2 := next(t, f.sent, "message"), next(t, f.sent, "message")
	if m1.Chat != 111 || m2.Chat != 222 {
		t.Fatalf("sent to chats %d and %d, want 111 and 222", m1.Chat, m2.Chat)
	}
	q := f.press(m2, 222, bob, buttonData(t, m2, "Approve"))
	got := next(t, done, "answer")
	if got.err != nil || !got.out.Approved || got.out.By != "Bob" {
		t.Fatalf("got %+v, %v; want approved by Bob", got.out, got.err)
	}
	for _, m := range []*fakeMsg{m1, m2} {
		if len(m.Edits) != 1 || !strings.Contains(m.Edits[0], "APPROVED by Bob") || !strings.HasPrefix(m.Edits[0], m.Text) || m.Buttons != nil {
			t.Errorf("message in chat %d edited to %q, buttons %v", m.Chat, m.Edits, m.Buttons)
		}
	}
	if a := f.answerTo(q); !strings.Contains(a, "Approved") {
		t.Errorf("the press was answered %q", a)
	}
}

func TestTheMessageShowsTheRequestAsThePopupDoesInPlainText(t *testing.T) {
	f := newFakeAPI(t, testToken)
	req := testRequest()
	done := ask(testConfig(t, f, time.Minute), req)
	m := next(t, f.sent, "message")
	for _, want := range []string{approval.Show(req.Command).Rows[0], `\x1b[2J`, "pane %3", "/home/me/project", "sandbox: workspace", "clean the build", "its claim, not checked", "Answer within 1m0s"} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("the message lacks %q:\n%s", want, m.Text)
		}
	}
	if strings.Contains(m.Text, "\x1b") || m.ParseMode != nil {
		t.Errorf("raw escape or parse mode %v in the message: %q", m.ParseMode, m.Text)
	}
	f.press(m, 111, alice, buttonData(t, m, "Deny"))
	if got := next(t, done, "answer"); got.err != nil || got.out.Approved || got.out.By != "@alice" {
		t.Fatalf("got %+v, %v; want denied by @alice", got.out, got.err)
	}
	if e := next(t, f.edited, "edit"); !strings.Contains(e.Edits[0], "DENIED by @alice") {
		t.Fatalf("edited to %q", e.Edits)
	}
}

func TestARemoteHostIsNamedInTheTitle(t *testing.T) {
	req := testRequest()
	req.Host = "prod"
	text, ok := requestText(req, time.Minute)
	if !ok || !strings.HasPrefix(text, "tmuxmcp asks: run this command on host prod?") || !strings.Contains(text, "host: prod") {
		t.Fatalf("approvable %v, text:\n%s", ok, text)
	}
}

func TestSilenceDeniesAsATimeout(t *testing.T) {
	f := newFakeAPI(t, testToken)
	start := time.Now()
	done := ask(testConfig(t, f, 1500*time.Millisecond), testRequest())
	got := next(t, done, "answer")
	if got.err != nil || !got.out.TimedOut || got.out.Approved {
		t.Fatalf("got %+v, %v; want a timeout", got.out, got.err)
	}
	if d := time.Since(start); d < 1500*time.Millisecond || d > 20*time.Second {
		t.Fatalf("answered after %v, want 1.5s", d)
	}
	for range 2 {
		if e := next(t, f.edited, "edit"); !strings.Contains(e.Edits[0], "DENIED: no answer in time") {
			t.Fatalf("edited to %q", e.Edits)
		}
	}
}

func TestAPressFromAChatNotAllowedDenies(t *testing.T) {
	f := newFakeAPI(t, testToken)
	done := ask(testConfig(t, f, time.Minute), testRequest())
	m := next(t, f.sent, "message")
	next(t, f.sent, "message")
	q := f.press(m, 999, eve, buttonData(t, m, "Approve")) // the message forwarded to Eve's chat
	got := next(t, done, "answer")
	if !errors.Is(got.err, ErrNotAllowed) || got.out.Approved || !strings.Contains(got.err.Error(), "chat 999") {
		t.Fatalf("got %+v, %v; want denied: not allowed", got.out, got.err)
	}
	if e := next(t, f.edited, "edit"); !strings.Contains(e.Edits[0], "DENIED: a chat that is not allowed") {
		t.Fatalf("edited to %q", e.Edits)
	}
	if a := f.answerTo(q); !strings.Contains(a, "may not answer") {
		t.Errorf("the press was answered %q", a)
	}
}

func TestAnOlderRequestsButtonDoesNotAnswerThisOne(t *testing.T) {
	f := newFakeAPI(t, testToken)
	done := ask(testConfig(t, f, time.Minute), testRequest())
	m := next(t, f.sent, "message")
	next(t, f.sent, "message")
	stale := f.press(m, 111, alice, approvePrefix+strings.Repeat("A", 26))
	if a := next(t, f.answered, "answer to the stale press"); !strings.Contains(a, "request is over") {
		t.Fatalf("the stale press was answered %q", a)
	}
	select {
	case got := <-done:
		t.Fatalf("a stale press answered the request: %+v, %v", got.out, got.err)
	default:
	}
	f.press(m, 111, alice, buttonData(t, m, "Deny"))
	f.press(m, 111, alice, buttonData(t, m, "Approve")) // too late: the first press counts
	if got := next(t, done, "answer"); got.err != nil || got.out.Approved {
		t.Fatalf("got %+v, %v; want denied", got.out, got.err)
	}
	if f.answerTo(stale) == "" {
		t.Fatal("the stale press was never answered")
	}
}

func TestACommandTooLongToShowWholeCanOnlyBeDenied(t *testing.T) {
	for name, cmd := range map[string]string{
		"too many rows":          strings.Repeat("echo line\n", approval.MaxShownRows+5),
		"too long for a message": strings.Repeat("x", 39*approval.ShowWidth) + "; rm -rf ~",
	} {
		t.Run(name, func(t *testing.T) {
			req := testRequest()
			req.Command = cmd
			text, ok := requestText(req, time.Minute)
			if ok || units(text) > MaxMessage-outcomeRoom || !strings.Contains(text, "can only be denied") {
				t.Fatalf("approvable %v, %d units, text ends %q", ok, units(text), text[max(0, len(text)-200):])
			}
			f := newFakeAPI(t, testToken)
			done := ask(testConfig(t, f, time.Minute), req)
			m := next(t, f.sent, "message")
			if len(m.Buttons) != 1 || m.Buttons[0].Text != "Deny" {
				t.Fatalf("buttons %+v, want Deny alone", m.Buttons)
			}
			f.press(m, 111, alice, approvePrefix+strings.TrimPrefix(m.Buttons[0].CallbackData, denyPrefix)) // a forged Approve
			if got := next(t, done, "answer"); got.err != nil || got.out.Approved {
				t.Fatalf("got %+v, %v; want denied", got.out, got.err)
			}
		})
	}
}

func TestWhatTelegramRefusesDeniesWithAReasonWithoutTheToken(t *testing.T) {
	for name, how := range map[string]string{"ok false": "ok:false", "HTTP 500": "500"} {
		for _, method := range []string{"sendMessage", "getUpdates"} {
			t.Run(name+" "+method, func(t *testing.T) {
				f := newFakeAPI(t, testToken)
				f.failing(method, how)
				done := ask(testConfig(t, f, time.Minute), testRequest())
				got := next(t, done, "answer")
				if got.err == nil || got.out.Approved || !strings.Contains(got.err.Error(), method) || strings.Contains(got.err.Error(), testToken) || strings.Contains(got.err.Error(), "AAFake") {
					t.Fatalf("got %+v, %v; want an error naming %s, not the token", got.out, got.err, method)
				}
			})
		}
	}
	t.Run("unreachable", func(t *testing.T) {
		f := newFakeAPI(t, testToken)
		cfg := testConfig(t, f, time.Minute)
		f.srv.Close()
		_, err := Ask(context.Background(), cfg, testRequest())
		if err == nil || !strings.Contains(err.Error(), "sendMessage") || strings.Contains(err.Error(), "AAFake") {
			t.Fatalf("got %v; want an error naming sendMessage, not the token", err)
		}
	})
	t.Run("wrong token", func(t *testing.T) {
		f := newFakeAPI(t, testToken)
		cfg := testConfig(t, f, time.Minute)
		cfg.Token = "123456789:AAAnotherSecretThatIsWrong_000000"
		_, err := Ask(context.Background(), cfg, testRequest())
		if err == nil || strings.Contains(err.Error(), "AAAnother") {
			t.Fatalf("got %v; want an error without the token", err)
		}
	})
}

func TestTwoOpenRequestsEachGetTheirOwnAnswer(t *testing.T) {
	f := newFakeAPI(t, testToken)
	cfg := testConfig(t, f, time.Minute)
	cfg.Chats = []int64{111}
	reqA, reqB := testRequest(), testRequest()
	reqA.Command, reqB.Command = "echo A", "echo B"
	doneA := ask(cfg, reqA)
	mA := next(t, f.sent, "message A")
	next(t, f.polls, "A polling")
	doneB := ask(cfg, reqB)
	mB := next(t, f.sent, "message B")
	// A polls for both: B's press reaches B through its mailbox.
	f.press(mB, 111, alice, buttonData(t, mB, "Approve"))
	if got := next(t, doneB, "answer B"); got.err != nil || !got.out.Approved {
		t.Fatalf("B: %+v, %v; want approved", got.out, got.err)
	}
	select {
	case got := <-doneA:
		t.Fatalf("B's press answered A: %+v, %v", got.out, got.err)
	default:
	}
	f.press(mA, 111, alice, buttonData(t, mA, "Deny"))
	if got := next(t, doneA, "answer A"); got.err != nil || got.out.Approved {
		t.Fatalf("A: %+v, %v; want denied", got.out, got.err)
	}
	// Now B polls while A waits: the other way round.
	for len(f.polls) > 0 {
		<-f.polls
	}
	doneA = ask(cfg, reqA)
	mA = next(t, f.sent, "message A")
	next(t, f.polls, "A polling")
	doneB = ask(cfg, reqB)
	mB = next(t, f.sent, "message B")
	f.press(mA, 111, alice, buttonData(t, mA, "Deny"))
	if got := next(t, doneA, "answer A"); got.err != nil || got.out.Approved {
		t.Fatalf("A: %+v, %v; want denied", got.out, got.err)
	}
	next(t, f.polls, "B polling once A is done")
	f.press(mB, 111, alice, buttonData(t, mB, "Approve"))
	if got := next(t, doneB, "answer B"); got.err != nil || !got.out.Approved {
		t.Fatalf("B: %+v, %v; want approved", got.out, got.err)
	}
	if n := f.overlaps(); n != 0 {
		t.Fatalf("%d getUpdates calls overlapped", n)
	}
}
