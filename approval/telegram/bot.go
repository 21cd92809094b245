// Package telegram asks a person on Telegram whether a command may run:
// the request, as the approval popup shows it, goes to the allowed chats
// with Approve and Deny buttons; the first press from an allowed chat that
// carries the request's nonce is the answer, and the message is edited to
// say what happened. It reaches the Bot API by long polling (getUpdates),
// so nothing listens for inbound connections. Silence, a press from a
// chat that is not allowed and every error deny. It knows nothing of tmux,
// MCP or the engine: tmuxmcp's approve-telegram subcommand runs it as an
// --approval-via exec: program.
package telegram

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// DefaultAPI is the Telegram Bot API's address.
const DefaultAPI = "https://api.telegram.org"

// bot calls the Bot API methods of one bot. Its token is in the URL of
// every call, so no error it returns names a URL: each is scrubbed of it.
type bot struct {
	api    string // base URL, without the trailing slash
	token  string
	client *http.Client
}

// apiReply is the envelope of every Bot API answer.
type apiReply struct {
	OK          bool            `json:"ok"`
	Result      json.RawMessage `json:"result"`
	ErrorCode   int             `json:"error_code"`
	Description string          `json:"description"`
}

// call posts params (JSON) to method and decodes the result into out (nil:
// ignored). An HTTP failure, a reply that is not JSON and "ok": false are
// errors naming the method, never the token.
func (b *bot) call(ctx context.Context, method string, params, out any) error {
	body, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("%s: encode: %w", method, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.api+"/bot"+b.token+"/"+method, bytes.NewReader(body))
	if err != nil {
		return b.scrub(fmt.Errorf("%s: %w", method, err))
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := b.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL holds the token
		}
		return b.scrub(fmt.Errorf("%s: %w", method, err))
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return b.scrub(fmt.Errorf("%s: read the reply: %w", method, err))
	}
	var r apiReply
	if err := json.Unmarshal(raw, &r); err != nil {
		return fmt.Errorf("%s: HTTP %d, not a Bot API reply (%d bytes)", method, resp.StatusCode, len(raw))
	}
	if !r.OK {
		return b.scrub(fmt.Errorf("%s: Telegram refused it: %d %s", method, r.ErrorCode, r.Description))
	}
	if out != nil {
		if err := json.Unmarshal(r.Result, out); err != nil {
			return fmt.Errorf("%s: decode the result: %w", method, err)
		}
	}
	return nil
}

// scrub replaces the token wherever err's text holds it.
func (b *bot) scrub(err error) error {
	if b.token == "" || !strings.Contains(err.Error(), b.token) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), b.token, "<token>"))
}

// The Bot API types this package reads and writes (the fields it uses).
type (
	chat struct {
		ID int64 `json:"id"`
	}
	user struct {
		ID        int64  `json:"id"`
		FirstName string `json:"first_name"`
		Username  string `json:"username"`
	}
	message struct {
		MessageID int64 `json:"message_id"`
		Chat      chat  `json:"chat"`
	}
	callbackQuery struct {
		ID      string   `json:"id"`
		From    user     `json:"from"`
		Message *message `json:"message"`
		Data    string   `json:"data"`
	}
	update struct {
		UpdateID      int64          `json:"update_id"`
		CallbackQuery *callbackQuery `json:"callback_query"`
	}
	button struct {
		Text         string `json:"text"`
		CallbackData string `json:"callback_data"`
	}
	keyboard struct {
		InlineKeyboard [][]button `json:"inline_keyboard"`
	}
)

// send posts text to chatID with buttons under it (none: no keyboard)
// and returns the message's id. The text is plain: no parse mode, so
// nothing in a command is read as markup.
func (b *bot) send(ctx context.Context, chatID int64, text string, buttons []button) (int64, error) {
	params := map[string]any{"chat_id": chatID, "text": text, "disable_web_page_preview": true}
	if len(buttons) > 0 {
		params["reply_markup"] = keyboard{InlineKeyboard: [][]button{buttons}}
	}
	var m message
	if err := b.call(ctx, "sendMessage", params, &m); err != nil {
		return 0, err
	}
	return m.MessageID, nil
}

// edit replaces the text of a message and drops its buttons.
func (b *bot) edit(ctx context.Context, chatID, messageID int64, text string) error {
	params := map[string]any{"chat_id": chatID, "message_id": messageID, "text": text, "disable_web_page_preview": true,
		"reply_markup": keyboard{InlineKeyboard: [][]button{}}}
	return b.call(ctx, "editMessageText", params, nil)
}

// answer tells the person who pressed a button what the press did.
func (b *bot) answer(ctx context.Context, queryID, text string) error {
	return b.call(ctx, "answerCallbackQuery", map[string]any{"callback_query_id": queryID, "text": text}, nil)
}

// updates long-polls for the callback presses from offset on, waiting up
// to wait seconds for the first.
func (b *bot) updates(ctx context.Context, offset int64, wait int) ([]update, error) {
	var us []update
	params := map[string]any{"offset": offset, "timeout": wait, "allowed_updates": []string{"callback_query"}}
	err := b.call(ctx, "getUpdates", params, &us)
	return us, err
}
