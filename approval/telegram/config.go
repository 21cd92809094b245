package telegram

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/tmuxmcp/tmuxmcp/private"
)

// The environment variables the approver reads. The token is never a
// flag: a command line is visible to every user of the machine.
const (
	// EnvToken holds the bot token itself.
	EnvToken = "TMUXMCP_TELEGRAM_TOKEN"
	// EnvTokenFile names a private file (mode 0600) holding the token.
	EnvTokenFile = "TMUXMCP_TELEGRAM_TOKEN_FILE"
	// EnvChats lists the chat ids allowed to answer, comma-separated.
	EnvChats = "TMUXMCP_TELEGRAM_CHATS"
	// EnvAPI replaces the Bot API's address: for tests and self-hosted
	// Bot API servers.
	EnvAPI = "TMUXMCP_TELEGRAM_API"
)

// Config is how the approver reaches Telegram and who may answer.
type Config struct {
	// Token is the bot's token, from @BotFather.
	Token string
	// Chats are the chat ids the request goes to; a press from any
	// other chat denies it.
	Chats []int64
	// API is the Bot API's address; "" is DefaultAPI.
	API string
	// Timeout is how long people have to answer; silence denies.
	Timeout time.Duration
	// Dir is a private directory shared by the approvers of one user: it
	// holds the poll lock, the update offset and, per open request, the
	// pipe another approver hands that request's presses to.
	Dir string
	// Client makes the HTTP requests; nil is a client of its own.
	Client *http.Client
}

// LoadToken reads the bot token: from tokenFile (the value of the flag
// named flagName) when given, else from the
// file $TMUXMCP_TELEGRAM_TOKEN_FILE names, else $TMUXMCP_TELEGRAM_TOKEN.
// A token file must be the user's own and private (mode 0600). No error
// holds the token.
func LoadToken(tokenFile, flagName string) (string, error) {
	where := flagName + " " + tokenFile
	if tokenFile == "" {
		tokenFile, where = os.Getenv(EnvTokenFile), "$"+EnvTokenFile+" "+os.Getenv(EnvTokenFile)
	}
	if tokenFile != "" {
		f, err := os.Open(tokenFile)
		if err != nil {
			return "", fmt.Errorf("%s: %w", where, err)
		}
		defer f.Close()
		if err := private.CheckOpen(f); err != nil {
			return "", fmt.Errorf("%s: %w (the bot token lets anyone send as your bot)", where, err)
		}
		b := make([]byte, 512)
		n, _ := f.Read(b)
		return checkToken(strings.TrimSpace(string(b[:n])), where)
	}
	if t := strings.TrimSpace(os.Getenv(EnvToken)); t != "" {
		return checkToken(t, "$"+EnvToken)
	}
	return "", fmt.Errorf("no Telegram bot token: put it in a file only you can read (chmod 600) and name it with %s or $%s, or set $%s (the token comes from @BotFather; it is never a flag)", flagName, EnvTokenFile, EnvToken)
}

// checkToken checks t looks like a bot token, "ID:SECRET", without
// saying what it holds.
func checkToken(t, where string) (string, error) {
	id, secret, ok := strings.Cut(t, ":")
	if _, err := strconv.ParseInt(id, 10, 64); !ok || err != nil || len(secret) < 20 || strings.ContainsAny(t, " \t\r\n/?#") {
		return "", fmt.Errorf("%s: not a bot token (the form is 123456789:AA... as @BotFather gives it; %d characters read)", where, len(t))
	}
	return t, nil
}

// botID is the token's public part, the bot's user id: it names the
// bot's files in Dir.
func botID(token string) string {
	id, _, _ := strings.Cut(token, ":")
	return id
}

// ParseChats reads a comma-separated list of chat ids (what getUpdates
// shows as message.chat.id; a group's is negative). what names where the
// list came from, for the error.
func ParseChats(list, what string) ([]int64, error) {
	var chats []int64
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		id, err := strconv.ParseInt(f, 10, 64)
		if err != nil || id == 0 {
			return nil, fmt.Errorf("%s %q: %q is not a chat id; give numeric ids, comma-separated (message your bot, then read message.chat.id from https://api.telegram.org/bot<token>/getUpdates)", what, list, f)
		}
		chats = append(chats, id)
	}
	if len(chats) == 0 {
		return nil, fmt.Errorf("%s is empty: give the chat ids allowed to answer, comma-separated (e.g. 123456789)", what)
	}
	return chats, nil
}

// APIFromEnv is $TMUXMCP_TELEGRAM_API checked, or DefaultAPI.
func APIFromEnv() (string, error) {
	api := os.Getenv(EnvAPI)
	if api == "" {
		return DefaultAPI, nil
	}
	u, err := url.Parse(api)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", fmt.Errorf("$%s %q: give the Bot API server's base URL, e.g. https://api.telegram.org", EnvAPI, api)
	}
	return strings.TrimRight(api, "/"), nil
}
