package telegram

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/tmuxmcp/tmuxmcp/approval"
	"github.com/tmuxmcp/tmuxmcp/policy"
)

// Bounds of a message.
const (
	// MaxMessage is the longest text Telegram takes in one message, in
	// UTF-16 code units.
	MaxMessage = 4096
	// outcomeRoom is kept free under the request for the outcome the
	// message is edited to show.
	outcomeRoom = 400
)

// requestText is the message a request is sent as: the request as the
// approval popup shows it (approval.Text: host, pane, program, directory,
// sandbox, the command's rows made visible, the agent's reason), and
// whether it may be approved. A command that cannot be shown whole — too
// many rows for the popup, or too long for one message — is cut with a
// note and may only be denied: nothing is approved blind.
func requestText(req approval.Request, timeout time.Duration) (text string, approvable bool) {
	title := "tmuxmcp asks: run this command?"
	if req.Host != "" && req.Host != policy.LocalHost {
		title = "tmuxmcp asks: run this command on host " + oneLine(req.Host) + "?"
	}
	body := strings.TrimRight(approval.Text(req), "\n")
	approvable = !approval.Show(req.Command).TooLong
	footer := fmt.Sprintf("\n\nAnswer within %s; no answer denies it.", timeout.Round(time.Second))
	if !approvable {
		footer = fmt.Sprintf("\n\nThe command needs more than %d rows, too many to read before answering: it can only be denied.", approval.MaxShownRows)
	}
	room := MaxMessage - outcomeRoom - units(title) - units(footer)
	if units(body) > room {
		note := fmt.Sprintf("\n\n[cut here: the request does not fit in one message (%d bytes of command); it can only be denied]", len(req.Command))
		body = cut(body, room-units(note)) + note
		approvable = false
		footer = ""
	}
	return title + "\n" + body + footer, approvable
}

// oneLine is s made visible on one row, at most 60 characters.
func oneLine(s string) string {
	v := strings.ReplaceAll(approval.Visible(s), "\n", `\n`)
	if r := []rune(v); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return v
}

// units is the length of s in UTF-16 code units, as Telegram counts.
func units(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// cut is the longest prefix of s of at most n UTF-16 code units.
func cut(s string, n int) string {
	used := 0
	for i, r := range s {
		if used+utf16.RuneLen(r) > n {
			return s[:i]
		}
		used += utf16.RuneLen(r)
	}
	return s
}

// who names the person who pressed a button.
func who(u user) string {
	switch {
	case u.Username != "":
		return "@" + oneLine(u.Username)
	case u.FirstName != "":
		return oneLine(u.FirstName)
	}
	return fmt.Sprintf("user %d", u.ID)
}
