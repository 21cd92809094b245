package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmuxmcp/tmuxmcp/approval"
)

const botToken = "987654321:AAHsecretBotTokenForTheTestOnly_xyz"

// botStandIn is a minimal local Bot API: every message sent is pressed
// at once with the button named press (by chat 42), and getUpdates hands
// that press out. With refuse set, getUpdates answers ok:false.
type botStandIn struct {
	press, refuse string
	mu            sync.Mutex
	pending       []map[string]any
	methods       []string
	wake          chan struct{}
}

func (b *botStandIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	method, ok := strings.CutPrefix(r.URL.Path, "/bot"+botToken+"/")
	var p map[string]any
	_ = json.NewDecoder(r.Body).Decode(&p)
	b.mu.Lock()
	b.methods = append(b.methods, method)
	b.mu.Unlock()
	reply := func(result any) { _ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "result": result}) }
	switch {
	case !ok:
		_ = json.NewEncoder(w).Encode(map[string]any{"ok": false, "error_code": 404, "description": "Not Found"})
	case method == "getUpdates" && b.refuse != "":
		_ = json.NewEncoder(w).Encode(map[string]any{"ok": false, "error_code": 409, "description": b.refuse})
	case method == "sendMessage":
		var data string
		for _, row := range p["reply_markup"].(map[string]any)["inline_keyboard"].([]any) {
			for _, bt := range row.([]any) {
				if bt.(map[string]any)["text"] == b.press {
					data = bt.(map[string]any)["callback_data"].(string)
				}
			}
		}
		b.mu.Lock()
		b.pending = append(b.pending, map[string]any{"update_id": 7, "callback_query": map[string]any{"id": "q1", "data": data,
			"from": map[string]any{"id": 42, "first_name": "Ann"}, "message": map[string]any{"message_id": 1, "chat": map[string]any{"id": 42}}}})
		b.mu.Unlock()
		reply(map[string]any{"message_id": 1, "chat": map[string]any{"id": 42}})
	case method == "getUpdates":
		b.mu.Lock()
		var out []map[string]any
		if p["offset"].(float64) <= 7 {
			out = b.pending
		}
		b.mu.Unlock()
		if len(out) == 0 {
			select { // long polling: the request ends it
			case <-r.Context().Done():
			case <-time.After(time.Duration(p["timeout"].(float64)) * time.Second):
			}
		}
		reply(out)
	default:
		reply(true)
	}
}

// telegramEnv sets the approver's environment to reach api.
func telegramEnv(t *testing.T, api string) {
	t.Setenv("TMUXMCP_TELEGRAM_TOKEN", botToken)
	t.Setenv("TMUXMCP_TELEGRAM_TOKEN_FILE", "")
	t.Setenv("TMUXMCP_TELEGRAM_CHATS", "42")
	t.Setenv("TMUXMCP_TELEGRAM_API", api)
}

func TestApprovalViaTelegramAsksThroughThisBinarysSubcommand(t *testing.T) {
	bin := buildBinary(t)
	for _, c := range []struct {
		press, refuse string
		want          approval.Decision
	}{
		{"Approve", "", approval.Approved},
		{"Deny", "", approval.Denied},
		{"Approve", "Conflict: terminated by other getUpdates request", approval.DeniedError},
	} {
		stand := &botStandIn{press: c.press, refuse: c.refuse}
		srv := httptest.NewServer(stand)
		telegramEnv(t, srv.URL)
		cfg, err := parseFlags("tmuxmcp", []string{"--approval-via", "tmux,telegram", "--review-timeout", "60s", "--state-dir", t.TempDir()}, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(cfg.viaList, []string{"tmux", "exec"}) || cfg.approverArgs[0] != approveTelegramCmd || !slices.Contains(cfg.approverArgs, "55s") {
			t.Fatalf("via %v, approver %s %q", cfg.viaList, cfg.approver, cfg.approverArgs)
		}
		if strings.Contains(strings.Join(cfg.approverArgs, " "), "AAHsecret") {
			t.Fatalf("the token is on the approver's command line: %q", cfg.approverArgs)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		got, err := approval.AskCommand(ctx, bin, cfg.approverArgs, approval.Request{Tool: "run_shell_command", Command: "make deploy", Host: "local"})
		cancel()
		srv.Close()
		if got != c.want {
			t.Fatalf("%s/%s: %s, %v; want %s", c.press, c.refuse, got, err, c.want)
		}
		if err != nil && (!strings.Contains(err.Error(), "getUpdates") || strings.Contains(err.Error(), "AAHsecret")) {
			t.Fatalf("the error should name getUpdates and not the token: %v", err)
		}
	}
}

func TestTheTelegramTokenIsNeverAFlagAndBadSetupsStopStartUp(t *testing.T) {
	telegramEnv(t, "http://127.0.0.1:1")
	if _, err := parseFlags("tmuxmcp", []string{"--telegram-token", botToken}, io.Discard); err == nil {
		t.Fatal("--telegram-token was accepted: a token must never be a flag")
	}
	loose := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(loose, []byte(botToken+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{map[string]string{"TMUXMCP_TELEGRAM_TOKEN": ""}, nil, "@BotFather"},
		{map[string]string{"TMUXMCP_TELEGRAM_TOKEN": "not-a-token"}, nil, "not a bot token"},
		{nil, []string{"--telegram-token-file", loose}, "chmod"},
		{map[string]string{"TMUXMCP_TELEGRAM_CHATS": ""}, nil, "chat ids"},
		{map[string]string{"TMUXMCP_TELEGRAM_CHATS": "42,@me"}, nil, `"@me" is not a chat id`},
		{map[string]string{"TMUXMCP_TELEGRAM_API": "api.telegram.org"}, nil, "TMUXMCP_TELEGRAM_API"},
		{nil, []string{"--approval-via", "tmux,exec:/bin/true,telegram"}, "at most"},
		{nil, []string{"--approval-via", "tmux", "--telegram-chats", "42"}, "take effect with --approval-via telegram"},
	} {
		t.Run(c.want, func(t *testing.T) {
			telegramEnv(t, "http://127.0.0.1:1")
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			args := c.args
			if !slices.Contains(args, "--approval-via") {
				args = append(args, "--approval-via", "telegram")
			}
			_, err := parseFlags("tmuxmcp", args, io.Discard)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "AAHsecret") {
				t.Fatalf("%v %v: got %v, want an error with %q and without the token", c.env, args, err, c.want)
			}
		})
	}
}
