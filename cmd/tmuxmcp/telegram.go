package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tmuxmcp/tmuxmcp/approval"
	"github.com/tmuxmcp/tmuxmcp/approval/telegram"
	"github.com/tmuxmcp/tmuxmcp/engine"
)

// approveTelegramCmd is the subcommand that asks on Telegram, speaking
// the --approval-via exec: protocol; --approval-via telegram runs it.
const approveTelegramCmd = "approve-telegram"

// telegramGrace is how much sooner than the review timeout the Telegram
// approver gives up, so it can edit its messages before it is stopped.
const telegramGrace = 5 * time.Second

// telegramUsage heads approve-telegram's usage.
const telegramUsage = `usage: tmuxmcp approve-telegram [flags] < request.json

Asks on Telegram whether a command may run: an --approval-via exec:
program (tmuxmcp --approval-via telegram runs it for you). It reads the
request as JSON on stdin, sends it to the allowed chats with Approve and
Deny buttons, and prints approve or deny. Silence, a press from a chat not
allowed, and every error deny.

The bot token is read from --token-file, $TMUXMCP_TELEGRAM_TOKEN_FILE or
$TMUXMCP_TELEGRAM_TOKEN (never a flag); $TMUXMCP_TELEGRAM_API replaces the
Bot API's address (tests, self-hosted Bot API servers).

flags:
`

// telegramFlags are the server's flags for --approval-via telegram.
type telegramFlags struct {
	chats     string // --telegram-chats
	tokenFile string // --telegram-token-file
}

func (t *telegramFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&t.chats, "telegram-chats", "", "with --approval-via telegram, the chat `IDS` (comma-separated) the requests go to and the only ones whose answer counts (default $"+telegram.EnvChats+")")
	fs.StringVar(&t.tokenFile, "telegram-token-file", "", "with --approval-via telegram, the `FILE` (mode 0600) holding the bot token (default $"+telegram.EnvTokenFile+", else the token in $"+telegram.EnvToken+"; the token itself is never a flag)")
}

// useTelegram checks the Telegram approver can start (a token, chat ids,
// the API address) and makes this binary's approve-telegram subcommand
// the approver program. The token is not kept: the subcommand reads it.
func (c *config) useTelegram() error {
	if _, err := telegram.LoadToken(c.telegram.tokenFile, "--telegram-token-file"); err != nil {
		return fmt.Errorf("--approval-via telegram: %w", err)
	}
	list, what := c.telegram.chats, "--telegram-chats"
	if list == "" {
		list, what = os.Getenv(telegram.EnvChats), "$"+telegram.EnvChats
	}
	if _, err := telegram.ParseChats(list, what); err != nil {
		return fmt.Errorf("--approval-via telegram: %w", err)
	}
	if _, err := telegram.APIFromEnv(); err != nil {
		return err
	}
	timeout := c.review - telegramGrace
	if c.review < 4*telegramGrace {
		timeout = c.review * 3 / 4
	}
	c.approver = executable() // its name is in decidedBy: exec:tmuxmcp
	c.approverArgs = []string{approveTelegramCmd, "--chats", list, "--timeout", timeout.String()}
	if c.telegram.tokenFile != "" {
		abs, _ := filepath.Abs(c.telegram.tokenFile)
		c.approverArgs = append(c.approverArgs, "--token-file", abs)
	}
	if c.stateDir != "" {
		abs, _ := filepath.Abs(c.stateDir)
		c.approverArgs = append(c.approverArgs, "--state-dir", abs)
	}
	return nil
}

// approveTelegram is the approve-telegram subcommand: it reads one
// request on stdin and prints approve or deny. A failure is its error
// (the server denies with it); when nobody answers in time it edits the
// messages and waits to be stopped, so the server records a timeout.
func approveTelegram(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet(approveTelegramCmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	chats := fs.String("chats", "", "the chat `IDS` (comma-separated) asked, the only ones whose answer counts (default $"+telegram.EnvChats+")")
	tokenFile := fs.String("token-file", "", "the `FILE` (mode 0600) holding the bot token (default $"+telegram.EnvTokenFile+", else $"+telegram.EnvToken+")")
	timeout := fs.Duration("timeout", engine.DefaultReviewTimeout-telegramGrace, "how long people have to answer; give it a little less than tmuxmcp's --review-timeout")
	stateDir := fs.String("state-dir", "", "tmuxmcp's state directory; the approvers' lock and pipes are in its telegram/ (default as tmuxmcp's)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, telegramUsage)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return nil
		}
		return usageError{err}
	}
	cfg, err := telegramConfig(*chats, *tokenFile, *stateDir, *timeout)
	if err != nil {
		return err
	}
	var req approval.Request
	if err := json.NewDecoder(io.LimitReader(stdin, 1<<20)).Decode(&req); err != nil {
		return fmt.Errorf("read the request (JSON on stdin, as --approval-via exec: gives it): %w", err)
	}
	out, err := telegram.Ask(ctx, cfg, req)
	switch {
	case err != nil:
		return fmt.Errorf("telegram: %w", err)
	case out.Approved:
		_, err = fmt.Fprintln(stdout, "approve")
	case out.TimedOut:
		fmt.Fprintf(stderr, "tmuxmcp approve-telegram: no answer in %v\n", *timeout)
		select { // tmuxmcp stops it at its own timeout, a moment later
		case <-time.After(2 * telegramGrace):
		case <-ctx.Done():
		}
		return errors.New("telegram: no answer in time")
	default:
		_, err = fmt.Fprintln(stdout, "deny")
	}
	return err
}

// telegramConfig is the approver's configuration from its flags and the
// environment.
func telegramConfig(chats, tokenFile, stateDir string, timeout time.Duration) (telegram.Config, error) {
	what := "--chats"
	if chats == "" {
		chats, what = os.Getenv(telegram.EnvChats), "$"+telegram.EnvChats
	}
	ids, err := telegram.ParseChats(chats, what)
	if err != nil {
		return telegram.Config{}, err
	}
	token, err := telegram.LoadToken(tokenFile, "--token-file")
	if err != nil {
		return telegram.Config{}, err
	}
	api, err := telegram.APIFromEnv()
	if err != nil {
		return telegram.Config{}, err
	}
	if timeout < time.Second {
		return telegram.Config{}, fmt.Errorf("--timeout %v: must be at least 1s", timeout)
	}
	if stateDir == "" {
		stateDir = engine.DefaultStateDir()
	}
	return telegram.Config{Token: token, Chats: ids, API: api, Timeout: timeout, Dir: filepath.Join(stateDir, "telegram")}, nil
}

// telegramNote is doctor's line on the Telegram approver (its token and
// chats were checked with the flags), or "" when it is not configured.
func telegramNote(c *config) string {
	if len(c.approverArgs) == 0 || c.approverArgs[0] != approveTelegramCmd {
		return ""
	}
	return "asks on Telegram (--approval-via telegram): chats " + strings.ReplaceAll(c.approverArgs[2], ",", " ") + ", token from " + telegramTokenWhere(c.telegram.tokenFile)
}

func telegramTokenWhere(tokenFile string) string {
	switch {
	case tokenFile != "":
		return tokenFile
	case os.Getenv(telegram.EnvTokenFile) != "":
		return "$" + telegram.EnvTokenFile + " " + os.Getenv(telegram.EnvTokenFile)
	}
	return "$" + telegram.EnvToken
}
