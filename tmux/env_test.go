package tmux

import "testing"

// TestThePanesOfAServerTmuxmcpStartsDoNotSeeTheTelegramBotToken: the
// approver's token in tmuxmcp's environment is not handed to a tmux
// server it starts, so no agent's shell can read it.
func TestThePanesOfAServerTmuxmcpStartsDoNotSeeTheTelegramBotToken(t *testing.T) {
	env := cleanEnv([]string{"A=1", "TMUXMCP_TELEGRAM_TOKEN=123:secret", "TMUXMCP_TELEGRAM_CHATS=42"})
	if len(env) != 2 || env[0] != "A=1" || env[1] != "TMUXMCP_TELEGRAM_CHATS=42" {
		t.Fatalf("cleanEnv gave %q", env)
	}
}

// TestThePanesOfAServerTmuxmcpStartsDoNotSeeTheHTTPBearerToken: the token
// clients of the HTTP transport present is not the agent's shells' to read.
func TestThePanesOfAServerTmuxmcpStartsDoNotSeeTheHTTPBearerToken(t *testing.T) {
	env := cleanEnv([]string{"TMUXMCP_TOKEN=0123456789abcdef0123456789abcdef", "B=2"})
	if len(env) != 1 || env[0] != "B=2" {
		t.Fatalf("cleanEnv gave %q", env)
	}
}
