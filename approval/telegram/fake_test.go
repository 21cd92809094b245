package telegram

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeAPI is a local stand-in for the Telegram Bot API: sendMessage,
// getUpdates (offset and long polling, one caller at a time as Telegram
// enforces), answerCallbackQuery and editMessageText, for one bot token.
type fakeAPI struct {
	t     *testing.T
	token string
	srv   *httptest.Server

	mu         sync.Mutex
	msgs       map[[2]int64]*fakeMsg // by chat and message id
	nextMsg    int64
	updates    []update
	nextUpdate int64
	changed    chan struct{} // closed when an update arrives
	polling    bool
	conflicts  int
	answers    map[string]string // callback query id -> text
	fail       map[string]string // method -> "ok:false" or "500"
	sent       chan *fakeMsg
	edited     chan *fakeMsg
	answered   chan string
	polls      chan struct{} // a getUpdates call began waiting
}

// fakeMsg is a message the bot sent.
type fakeMsg struct {
	Chat, ID  int64
	Text      string
	Params    map[string]any
	Buttons   []button
	Edits     []string
	ParseMode any
}

func newFakeAPI(t *testing.T, token string) *fakeAPI {
	f := &fakeAPI{t: t, token: token, msgs: map[[2]int64]*fakeMsg{}, changed: make(chan struct{}), answers: map[string]string{},
		fail: map[string]string{}, sent: make(chan *fakeMsg, 64), edited: make(chan *fakeMsg, 64), answered: make(chan string, 64), polls: make(chan struct{}, 1024), nextUpdate: 1000}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAPI) reply(w http.ResponseWriter, result any) {
	_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "result": result})
}

func (f *fakeAPI) refuse(w http.ResponseWriter, code int, desc string) {
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{"ok": false, "error_code": code, "description": desc})
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	method, ok := strings.CutPrefix(r.URL.Path, "/bot"+f.token+"/")
	if !ok || r.Method != http.MethodPost {
		f.refuse(w, 404, "Not Found")
		return
	}
	var p map[string]any
	if err := json.NewDecoder(r.Body).Decode(&p); err != nil {
		f.refuse(w, 400, "Bad Request: cannot parse JSON")
		return
	}
	f.mu.Lock()
	failing := f.fail[method]
	f.mu.Unlock()
	switch failing {
	case "ok:false":
		f.refuse(w, 400, "Bad Request: chat not found")
		return
	case "500":
		w.WriteHeader(500)
		fmt.Fprint(w, "<html>Internal Server Error</html>")
		return
	}
	switch method {
	case "sendMessage":
		f.sendMessage(w, p)
	case "getUpdates":
		f.getUpdates(w, r, p)
	case "answerCallbackQuery":
		f.mu.Lock()
		f.answers[p["callback_query_id"].(string)] = fmt.Sprint(p["text"])
		f.mu.Unlock()
		f.answered <- fmt.Sprint(p["text"])
		f.reply(w, true)
	case "editMessageText":
		f.editMessageText(w, p)
	default:
		f.refuse(w, 404, "Not Found: method "+method)
	}
}

func num(v any) int64 {
	n, _ := v.(float64)
	return int64(n)
}

func (f *fakeAPI) sendMessage(w http.ResponseWriter, p map[string]any) {
	chat := num(p["chat_id"])
	f.mu.Lock()
	f.nextMsg++
	m := &fakeMsg{Chat: chat, ID: f.nextMsg, Text: p["text"].(string), Params: p, ParseMode: p["parse_mode"]}
	if km, ok := p["reply_markup"].(map[string]any); ok {
		for _, row := range km["inline_keyboard"].([]any) {
			for _, b := range row.([]any) {
				bm := b.(map[string]any)
				m.Buttons = append(m.Buttons, button{Text: bm["text"].(string), CallbackData: bm["callback_data"].(string)})
			}
		}
	}
	f.msgs[[2]int64{chat, m.ID}] = m
	f.mu.Unlock()
	f.sent <- m
	f.reply(w, map[string]any{"message_id": m.ID, "chat": map[string]any{"id": chat}, "text": m.Text})
}

func (f *fakeAPI) editMessageText(w http.ResponseWriter, p map[string]any) {
	f.mu.Lock()
	m := f.msgs[[2]int64{num(p["chat_id"]), num(p["message_id"])}]
	if m == nil {
		f.mu.Unlock()
		f.refuse(w, 400, "Bad Request: message to edit not found")
		return
	}
	m.Edits = append(m.Edits, p["text"].(string))
	if km, ok := p["reply_markup"].(map[string]any); !ok || len(km["inline_keyboard"].([]any)) != 0 {
		f.t.Errorf("the edit keeps buttons: %v", p["reply_markup"])
	}
	m.Buttons = nil
	f.mu.Unlock()
	f.edited <- m
	f.reply(w, true)
}

// getUpdates drops the updates before offset, then answers at once with
// those left or waits up to timeout seconds for one. A second caller
// while one waits is refused with 409, as Telegram does.
func (f *fakeAPI) getUpdates(w http.ResponseWriter, r *http.Request, p map[string]any) {
	offset, timeout := num(p["offset"]), num(p["timeout"])
	f.mu.Lock()
	if f.polling {
		f.conflicts++
		f.mu.Unlock()
		f.refuse(w, 409, "Conflict: terminated by other getUpdates request")
		return
	}
	f.polling = true
	f.mu.Unlock()
	defer func() { f.mu.Lock(); f.polling = false; f.mu.Unlock() }()
	deadline := time.After(time.Duration(timeout) * time.Second)
	for {
		f.mu.Lock()
		var left []update
		for _, u := range f.updates {
			if u.UpdateID >= offset {
				left = append(left, u)
			}
		}
		f.updates = left
		changed := f.changed
		f.mu.Unlock()
		if len(left) > 0 {
			f.reply(w, left)
			return
		}
		select {
		case f.polls <- struct{}{}:
		default:
		}
		select {
		case <-changed:
		case <-deadline:
			f.reply(w, []update{})
			return
		case <-r.Context().Done():
			return
		}
	}
}

// press queues a press on button data of message m by from, as if in
// chat chatID.
func (f *fakeAPI) press(m *fakeMsg, chatID int64, from user, data string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextUpdate++
	id := fmt.Sprintf("q%d", f.nextUpdate)
	f.updates = append(f.updates, update{UpdateID: f.nextUpdate, CallbackQuery: &callbackQuery{ID: id, From: from, Data: data,
		Message: &message{MessageID: m.ID, Chat: chat{ID: chatID}}}})
	close(f.changed)
	f.changed = make(chan struct{})
	return id
}

func (f *fakeAPI) answerTo(id string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.answers[id]
}

func (f *fakeAPI) overlaps() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.conflicts
}

func (f *fakeAPI) failing(method, how string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail[method] = how
}

// next waits for the next message on ch.
func next[T any](t *testing.T, ch chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatalf("no %s in 30s", what)
	}
	var zero T
	return zero
}
