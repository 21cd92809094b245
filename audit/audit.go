// Package audit writes the approval audit log: one JSON line per decision
// and per completion of a command, each naming the host it ran on, with
// secrets in command texts redacted. It knows nothing of tmux or MCP.
package audit

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/tmuxmcp/tmuxmcp/private"
)

// Event is one line of the log.
type Event struct {
	Time  time.Time `json:"time"`
	Event string    `json:"event"` // "decision" or "completed"
	// Host is the host the command is for: LocalHost (this machine, also
	// when empty: every line names its host) or the name given with --host.
	Host      string `json:"host"`
	RequestID string `json:"requestId,omitempty"`
	JobID     string `json:"jobId,omitempty"`
	PaneID    string `json:"paneId,omitempty"`
	Tool      string `json:"tool,omitempty"`
	Command   string `json:"command,omitempty"`
	Decision  string `json:"decision,omitempty"`
	DecidedBy string `json:"decidedBy,omitempty"` // "policy:<rule>", "tmux:<client>", "elicitation"
	Reason    string `json:"reason,omitempty"`    // the agent's reason for the command
	Refusal   string `json:"refusal,omitempty"`   // why nobody could decide (OWNER_SESSION_UNAVAILABLE, REVIEW_BUSY)
	Status    string `json:"status,omitempty"`
	ExitCode  *int   `json:"exitCode,omitempty"`

	// Sandbox is where the command or pane runs when tmuxmcp has a
	// sandbox: read-only, workspace, or unsandboxed (an escalated command,
	// a pane from before tmuxmcp).
	Sandbox string `json:"sandbox,omitempty"`
}

// LocalHost is the host name of this machine in the log.
const LocalHost = "local"

// Log appends events to a file.
type Log struct {
	mu sync.Mutex
	f  *os.File
}

// Open opens (creating, mode 0600) the log at path for appending. An
// existing log must be a private file of the user's (package private): a
// file another user owns, or may read or write, or a symbolic link, is
// refused with the fix.
func Open(path string) (*Log, error) {
	f, err := private.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND)
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	return &Log{f: f}, nil
}

// Record writes ev (command redacted, time set when zero, host LocalHost
// when empty) as one line. A nil Log records nothing.
func (l *Log) Record(ev Event) error {
	if l == nil {
		return nil
	}
	if ev.Time.IsZero() {
		ev.Time = time.Now().UTC()
	}
	if ev.Host == "" {
		ev.Host = LocalHost
	}
	ev.Command, ev.Reason = Redact(ev.Command), Redact(ev.Reason)
	b, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	_, err = l.f.Write(append(b, '\n'))
	return err
}

// Close closes the file.
func (l *Log) Close() error {
	if l == nil {
		return nil
	}
	return l.f.Close()
}

// secrets are the shapes of secrets in command lines, typed text and
// reasons, each with what replaces it. The first group of each match is
// kept; the rest becomes [REDACTED].
var secrets = []struct {
	re   *regexp.Regexp
	repl string
}{
	// private-key blocks, whole
	{regexp.MustCompile(`(?s)(-----BEGIN [A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----).*?(?:-----END [A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----|$)`), "$1[REDACTED]-----END PRIVATE KEY-----"},
	// URL userinfo in every form: user:pw@, :pw@, token@, p@ss with @ in it
	{regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://)[^/\s'"@]*@([^/\s'"@]*@)*`), "$1[REDACTED]@"},
	// header values: Authorization, Proxy-Authorization, X-Api-Key, *-Token, Cookie
	{regexp.MustCompile(`(?i)((?:proxy-)?authorization|x-api-key|api-key|x-[a-z0-9-]*token|x-[a-z0-9-]*secret|private-token|cookie)(\s*:\s*)[^'"\n]+`), "$1$2[REDACTED]"},
	// NAME=value and "name": value where the name says secret
	{regexp.MustCompile(`(?i)(\b[A-Z0-9_.-]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PWD|PASS|CREDENTIALS?|AUTH)[A-Z0-9_]*"?\s*(?:=|:)\s*)("[^"]*"(?:[^\s;&|,}"']|'[^']*'|"[^"]*")*|'[^']*'(?:[^\s;&|,}"']|'[^']*'|"[^"]*")*|(?:[^\s;&|'"]|'[^']*'|"[^"]*")+)`), "$1[REDACTED]"},
	// --password x, --password=x, --token x, --api-key=x, --passphrase x
	{regexp.MustCompile(`(?i)(--[a-z0-9-]*(?:password|passwd|pass|passphrase|token|secret|bearer|api-?key|key)(?:=|\s+))("[^"]*"|'[^']*'|[^\s;&|'"]+)`), "$1[REDACTED]"},
	// ldapsearch -w, smbclient -U user%pw, mongo* -p, az login -p, nmcli … password
	{regexp.MustCompile(`(\bldap\w*\b[^;&|\n]*?\s-w\s*|\bsmbclient\b[^;&|\n]*?\s-U\s*[^%\s]+%|\bmongo\w*\b[^;&|\n]*?\s-p\s*|\baz\s+login\b[^;&|\n]*?\s-p\s*|\bnmcli\b[^;&|\n]*?\bpassword\s+)('[^']*'|"[^"]*"|[^\s;&|]+)`), "$1[REDACTED]"},
	// a password fed to sudo -S, chpasswd or passwd --stdin, piped or as a here-string
	{regexp.MustCompile(`(\b(?:echo|printf)\s+(?:-[neE]+\s+)*(?:(?:'[^']*%s[^']*'|"[^"]*%s[^"]*")\s+)?)('[^']*'|"[^"]*"|[^\s|]+)(\s*\|\s*(?:sudo\b[^;&\n]*\s-S\b|chpasswd\b|passwd\b[^;&\n]*--stdin|[a-z-]*\s+login\b[^;&\n]*--password-stdin))`), "$1[REDACTED]$3"},
	{regexp.MustCompile(`(\b(?:sudo\b[^;&|\n]*\s-S\b|chpasswd\b|passwd\b[^;&|\n]*--stdin)[^;&|\n]*<<<\s*)('[^']*'|"[^"]*"|\S+)`), "$1[REDACTED]"},
	// unzip -P, lftp -u user,pw, ncftp -p, xfreerdp /p:, net use … /user:u pw, mysqladmin … password new
	{regexp.MustCompile(`(\bunzip\b[^;&|\n]*?\s-P\s+|\blftp\b[^;&|\n]*?\s-u\s*[^,\s]+,|\bncftp\w*\b[^;&|\n]*?\s-p\s*|\bx?freerdp\b[^;&|\n]*?\s/p:|\bnet\s+use\b[^;&|\n]*?/user:\S+\s+|\bmysqladmin\b[^;&|\n]*?\spassword\s+)('[^']*'|"[^"]*"|[^\s;&|]+)`), "$1[REDACTED]"},
	// fish set -x NAME value, csh setenv NAME value, for secret names
	{regexp.MustCompile(`(?i)(\b(?:set\s+(?:-[a-z]+\s+)*|setenv\s+)[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|CREDENTIALS?|AUTH)[A-Z0-9_]*\s+)('[^']*'|"[^"]*"|[^\s;&|]+)`), "$1[REDACTED]"},
	// a here-document fed to sudo -S, chpasswd, passwd --stdin or --password-stdin
	{regexp.MustCompile(`(\b(?:sudo\b[^;&|\n]*\s-S\b|chpasswd\b|passwd\b[^;&|\n]*--stdin|[a-z-]*login\b[^;&|\n]*--password-stdin)[^\n]*<<-?\s*['"]?\w+['"]?\n)[^\n]*`), "$1[REDACTED]"},
	{regexp.MustCompile(`(--password-stdin[^;&|\n]*<<<\s*)('[^']*'|"[^"]*"|\S+)`), "$1[REDACTED]"},
	// Azure SAS and other signed URLs
	{regexp.MustCompile(`([?&](?:sig|signature|X-Amz-Signature|X-Goog-Signature|token|access_token)=)([^&\s'"]+)`), "$1[REDACTED]"},
	// curl -u user:pw, --user user:pw (a value with a colon)
	{regexp.MustCompile(`((?:^|\s)(?:-u|--user|--proxy-user)(?:=|\s*))(?:'[^'\s]*:[^']*'|"[^"\s]*:[^"]*"|[^\s'"]*:[^\s'"]*)`), "$1[REDACTED]"},
	// mysql -pPW (attached), sshpass -p PW, docker/podman/helm login -p PW
	{regexp.MustCompile(`(\b(?:mysql\w*|mariadb\w*)\b[^;&|\n]*?\s-p)((?:'[^']*'|"[^"]*"|[^\s;&|'"])+)`), "$1[REDACTED]"},
	// password options of other tools: redis-cli -a, zip -P, 7z -p, ssh-keygen -N/-P, htpasswd -b
	{regexp.MustCompile(`(\bredis-cli\b[^;&|\n]*?\s-a\s+|\bzip\b[^;&|\n]*?\s-P\s+|\b7za?\b[^;&|\n]*?\s-p|\bssh-keygen\b[^;&|\n]*?\s-[NP]\s*|\bhtpasswd\b[^;&|\n]*?\s-\w*b\w*\s+\S+\s+\S+\s+)('[^']*'|"[^"]*"|[^\s;&|]+)`), "$1[REDACTED]"},
	// .netrc lines, libpq connection strings
	{regexp.MustCompile(`(\bmachine\s+\S+(?:\s+login\s+\S+)?\s+password\s+)(\S+)`), "$1[REDACTED]"},

	{regexp.MustCompile(`(\bsshpass\b(?:\s+-[a-oq-zA-Z]\S*)*\s+-p\s*)([^\s;&|]+)`), "$1[REDACTED]"},
	{regexp.MustCompile(`(\b(?:docker|podman|nerdctl|helm(?:\s+registry)?)\s+login\b[^;&|\n]*?\s-p\s*)([^\s;&|]+)`), "$1[REDACTED]"},
	// openssl pass:PW, and enc -k PW
	{regexp.MustCompile(`(\bpass:)([^\s;&|'"]+)`), "$1[REDACTED]"},
	{regexp.MustCompile(`(\bopenssl\b[^;&|\n]*?\s-k\s+)([^\s;&|]+)`), "$1[REDACTED]"},
	// JWTs
	{regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*`), "[REDACTED]"},
	// well-known token shapes
	{regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_-]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|(?:AKIA|ASIA)[0-9A-Z]{16}|glpat-[A-Za-z0-9_-]{20,}|AIza[0-9A-Za-z_-]{35}|hvs\.[A-Za-z0-9_-]{16,}|npm_[A-Za-z0-9]{30,}|sk_(?:live|test)_[A-Za-z0-9]{16,}|rk_(?:live|test)_[A-Za-z0-9]{16,}|SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,})\b`), "[REDACTED]"},
	// Slack webhooks carry their secret in the path
	{regexp.MustCompile(`(hooks\.slack\.com/services/)[A-Za-z0-9/]+`), "$1[REDACTED]"},
}

// awsSecret matches what may be an AWS secret access key or session
// token: 40 or more characters of base64; mixedCase tells one from a hex
// digest (a git commit id).
var awsSecret = regexp.MustCompile(`(^|[^A-Za-z0-9/+])([A-Za-z0-9/+]{40,}={0,2})($|[^A-Za-z0-9/+=])`)

func mixedCase(s string) bool {
	return strings.ContainsAny(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") && strings.ContainsAny(s, "abcdefghijklmnopqrstuvwxyz") && strings.ContainsAny(s, "0123456789")
}

// Redact replaces secrets in a text (a command, typed text, a reason) with
// [REDACTED].
func Redact(s string) string {
	for _, r := range secrets {
		s = r.re.ReplaceAllString(s, r.repl)
	}
	return awsSecret.ReplaceAllStringFunc(s, func(m string) string {
		sub := awsSecret.FindStringSubmatch(m)
		if !mixedCase(sub[2]) {
			return m
		}
		return sub[1] + "[REDACTED]" + sub[3]
	})
}
