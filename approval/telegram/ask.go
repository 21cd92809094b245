package telegram

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/tmuxmcp/tmuxmcp/approval"
	"github.com/tmuxmcp/tmuxmcp/private"
)

// Outcome is how a request put to Telegram ended without an error.
type Outcome struct {
	// Approved says a person in an allowed chat pressed Approve.
	Approved bool
	// TimedOut says nobody answered within Config.Timeout (denied).
	TimedOut bool
	// By names who answered, when someone did.
	By string
}

// ErrNotAllowed is a press on the request's buttons from a chat that is
// not in Config.Chats: the request is denied.
var ErrNotAllowed = errors.New("a chat that is not allowed answered")

// The callback data of the buttons: the answer and the request's nonce,
// so a press on an older request's buttons never answers this one.
const (
	approvePrefix = "approve:"
	denyPrefix    = "deny:"
)

// sent is one message a request went out as.
type sent struct{ chat, id int64 }

// Ask sends req to every chat of cfg and waits for the first press on its
// buttons: Approve from an allowed chat approves, Deny denies, silence
// until cfg.Timeout denies (TimedOut), a press from a chat that is not
// allowed denies (ErrNotAllowed), and every failure denies with the error.
// Before it returns, each message is edited to show the outcome and the
// press is acknowledged. Only the first valid press counts.
func Ask(ctx context.Context, cfg Config, req approval.Request) (Outcome, error) {
	if len(cfg.Chats) == 0 {
		return Outcome{}, errors.New("no chat ids to ask")
	}
	if err := private.Dir(cfg.Dir); err != nil {
		return Outcome{}, fmt.Errorf("the approver's directory: %w", err)
	}
	b := &bot{api: strings.TrimRight(cmp.Or(cfg.API, DefaultAPI), "/"), token: cfg.Token, client: cfg.Client}
	if b.client == nil {
		b.client = &http.Client{}
	}
	nonce := rand.Text()
	box, err := openMailbox(cfg.Dir, nonce)
	if err != nil {
		return Outcome{}, err
	}
	defer box.close()
	text, approvable := requestText(req, cfg.Timeout)
	buttons := []button{{Text: "Deny", CallbackData: denyPrefix + nonce}}
	if approvable {
		buttons = append([]button{{Text: "Approve", CallbackData: approvePrefix + nonce}}, buttons...)
	}
	wctx, cancel := context.WithTimeout(ctx, cfg.Timeout) // the sends count too
	defer cancel()
	var msgs []sent
	var sendErr error
	for _, c := range cfg.Chats {
		id, err := b.send(wctx, c, text, buttons)
		if err != nil {
			sendErr = errors.Join(sendErr, fmt.Errorf("chat %d: %w", c, err))
			continue
		}
		msgs = append(msgs, sent{c, id})
	}
	if len(msgs) == 0 {
		return Outcome{}, sendErr
	}
	w := &waiter{bot: b, dir: cfg.Dir, nonce: nonce, chats: cfg.Chats, box: box}
	press, err := w.wait(wctx)
	out, err := verdict(ctx, press, err, approvable, cfg.Chats)
	finish(ctx, b, msgs, text, press, out, err)
	return out, err
}

// verdict is what the press (or its absence, with err) decides.
func verdict(ctx context.Context, press *callbackQuery, err error, approvable bool, chats []int64) (Outcome, error) {
	switch {
	case err != nil && errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		return Outcome{TimedOut: true}, nil
	case err != nil:
		return Outcome{}, err
	case press.Message == nil || !slices.Contains(chats, press.Message.Chat.ID):
		answer, _, _ := strings.Cut(press.Data, ":")
		return Outcome{By: who(press.From)}, fmt.Errorf("%w: %s pressed %s in chat %s; the request is denied (allowed: %s)", ErrNotAllowed, who(press.From), answer, chatOf(press), chatList(chats))
	}
	return Outcome{Approved: approvable && strings.HasPrefix(press.Data, approvePrefix), By: who(press.From)}, nil
}

// finish edits every message to show the outcome and acknowledges the
// press, with a few seconds of its own even when ctx has ended.
func finish(ctx context.Context, b *bot, msgs []sent, text string, press *callbackQuery, out Outcome, err error) {
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	at := time.Now().Format("15:04:05")
	var line, toast string
	switch {
	case errors.Is(err, ErrNotAllowed):
		line, toast = "DENIED: a chat that is not allowed to answer pressed a button ("+out.By+")", "This chat may not answer: the request is denied."
	case err != nil:
		line = "DENIED: the approver failed: " + cut(err.Error(), 300)
	case out.TimedOut:
		line = "DENIED: no answer in time"
	case out.Approved:
		line, toast = "APPROVED by "+out.By, "Approved: the command runs."
	default:
		line, toast = "DENIED by "+out.By, "Denied: the command does not run."
	}
	for _, m := range msgs {
		_ = b.edit(fctx, m.chat, m.id, text+"\n\n"+line+" at "+at+".")
	}
	if press != nil {
		_ = b.answer(fctx, press.ID, toast)
	}
}

func chatOf(q *callbackQuery) string {
	if q.Message == nil {
		return "(an inline message)"
	}
	return fmt.Sprint(q.Message.Chat.ID)
}

func chatList(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return strings.Join(s, ",")
}
