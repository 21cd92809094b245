package audit

import (
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// rule finds one shape of secret: where re matches (and ok, when set,
// agrees), submatch group is the secret. A rule whose hints are all
// absent is not run; one that is not multiline (its matches never cross a
// line) runs only on the lines that hold a hint: most texts skip most
// rules, and a long script runs each on a few lines.
type rule struct {
	hints     []string
	re        *regexp.Regexp
	group     int
	ok        func(text string, m []int) bool
	multiline bool
}

// find returns the secrets rule r finds in text (lower is text with ASCII
// letters in lower case).
func (r *rule) find(text, lower string) []span {
	if len(r.hints) > 0 && !containsAny(lower, r.hints) {
		return nil
	}
	if r.multiline {
		return r.findIn(text, 0)
	}
	var spans []span
	for from := 0; from < len(text); {
		to := strings.IndexByte(text[from:], '\n')
		if to < 0 {
			to = len(text)
		} else {
			to += from
		}
		if len(r.hints) == 0 || containsAny(lower[from:to], r.hints) {
			spans = append(spans, r.findIn(text[from:to], from)...)
		}
		from = to + 1
	}
	return spans
}

// findIn returns the secrets r finds in text, which starts at offset base.
// A match ok rejects is skipped past its first group, so that a rejected
// name does not hide a secret after it.
func (r *rule) findIn(text string, base int) []span {
	var spans []span
	for pos := 0; pos < len(text); {
		m := r.re.FindStringSubmatchIndex(text[pos:])
		if m == nil {
			break
		}
		for i := range m {
			if m[i] >= 0 {
				m[i] += pos
			}
		}
		if r.ok != nil && !r.ok(text, m) {
			pos = nextPos(text, m)
			continue
		}
		if g := m[2*r.group]; g >= 0 && m[2*r.group+1] > g {
			spans = append(spans, span{base + g, base + m[2*r.group+1]})
		}
		pos = max(m[1], pos+1)
	}
	return spans
}

// nextPos is where to look again after a rejected match: past its first
// group (a name), or one rune on.
func nextPos(text string, m []int) int {
	if len(m) > 3 && m[3] > m[0] {
		return m[3]
	}
	_, n := utf8.DecodeRuneInString(text[m[0]:])
	return m[0] + max(n, 1)
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// sub returns submatch i of m in text ("" when it did not take part).
func sub(text string, m []int, i int) string {
	if m[2*i] < 0 {
		return ""
	}
	return text[m[2*i]:m[2*i+1]]
}

// Values: a word as the shell reads it (quoted parts, $(…), or an open
// quote running to the end of the text), and one that stops at a comma
// or brace after a quoted start (a JSON or YAML field); a value already
// [REDACTED] is taken as it is.
const (
	openQuote = `"[^"]*$|'[^']*$`
	done      = `\[REDACTED\]|`
	word      = done + `(?:"[^"]*"|'[^']*'|\$\([^()]*\)|[^\s;&|'"<>()])+|` + openQuote
	fieldWord = done + `(?:"[^"]*"|'[^']*')(?:[^\s;&|,}"'<>()]|'[^']*'|"[^"]*")*|` + word
)

// nameHints are in every secret name secretName accepts.
var nameHints = []string{"pw", "pass", "secret", "token", "key", "cred", "auth", "cookie"}

// tokenHints are in every well-known token shape.
var tokenHints = []string{"gh", "github_pat_", "sk-", "xox", "akia", "asia", "glpat-", "gldt-", "glptt-", "aiza", "hvs.", "npm_", "sk_", "rk_", "sg.", "hf_", "dckr_pat_", "pypi-", "ya29.", "xapp-", "dop_v1_", "shpat_"}

// rules are every rule Redact runs.
var rules = slices.Concat(lineRules, programRules, wholeTextRules)

// lineRules find secrets in shapes that never cross a line.
var lineRules = []rule{
	// header values: Authorization (Bearer, Basic), X-Api-Key, *-Token, Cookie
	{[]string{"auth", "api-key", "token", "secret", "cookie"}, regexp.MustCompile(`(?i)(?:(?:proxy-)?authorization|x-api-key|api-key|x-[a-z0-9-]*token|x-[a-z0-9-]*secret|private-token|cookie)[ \t]*:[ \t]*([^'"\n]+)`), 1,
		func(t string, m []int) bool { return !inURL(t, m[0]) }, false},
	// npm/yarn/pnpm/aws/git config set KEY VALUE, git config KEY VALUE
	{[]string{"config"}, regexp.MustCompile(`\bconfig(?:ure)?[ \t]+(?:--?[A-Za-z-]+[ \t]+)*(?:set[ \t]+(?:--?[A-Za-z-]+[ \t]+)*)?([^\s=-][^\s=]*)[ \t]+(` + word + `)`), 2,
		func(t string, m []int) bool { return secretName(sub(t, m, 1)) }, false},
	// vault login TOKEN (a first argument that is not NAME=value)
	{[]string{"vault"}, regexp.MustCompile(`\bvault[ \t]+login[ \t]+(?:-\S+[ \t]+)*('[^']*'|"[^"]*"|[^\s=;&|<>'"-][^\s=;&|<>'"]*)(?:[\s;&|]|$)`), 1, nil, false},
	// a here-string into a program that reads a secret (also in a quoted
	// script: bash -c '… <<< T')
	{[]string{"<<<"}, regexp.MustCompile(`<<<[ \t]*(` + word + `)`), 1, hereStringOK, false},
	// echo PW | sudo -S, printf … | chpasswd, echo T | gh auth login --with-token
	{stdinHints, regexp.MustCompile(`\b(?:echo|printf|print)[ \t]+((?:'[^']*'|"[^"]*"|[^\s|;&'"])+(?:[ \t]+(?:'[^']*'|"[^"]*"|[^\s|;&'"])+)*)[ \t]*\|[ \t]*([^;&|\n]*)`), 1,
		func(t string, m []int) bool { _, ok := secretStdin(shellWords(sub(t, m, 2))); return ok }, false},
	// curl -u user:pw, -u 'a b:pw', --user, --proxy-user (a value with a colon)
	{[]string{"-u ", "-u'", "-u\"", "-u=", "--user", "--proxy-user"}, regexp.MustCompile(`(?:^|\s)(?:-u|--user|--proxy-user)(?:=|[ \t]*)('[^']*:[^']*'|"[^"]*:[^"]*"|[^\s'"]*:[^\s'"]*)`), 1,
		func(t string, m []int) bool { return strings.Trim(sub(t, m, 1), "0123456789:'\"") != "" }, false},
	// mysql -pPW (attached), -p'P W'
	{[]string{"mysql", "mariadb"}, regexp.MustCompile(`\b(?:mysql\w*|mariadb\w*)\b[^;&|\n]*?\s-p((?:'[^']*'|"[^"]*"|[^\s;&|'"])+)`), 1, nil, false},
	// SQL: IDENTIFIED BY 'pw', PASSWORD 'pw'
	{[]string{"identified", "password"}, regexp.MustCompile(`(?i)\b(?:identified[ \t]+(?:with[ \t]+\S+[ \t]+)?by(?:[ \t]+password)?|password)[ \t]+('[^']*'|"[^"]*"|\\'[^'\\]*\\')`), 1, nil, false},
	// .pgpass lines
	{[]string{"pgpass"}, regexp.MustCompile(`[^\s'":]+:(?:\d+|\*):[^\s'":]+:[^\s'":]+:([^\s'"]+)`), 1, nil, false},
	// openssl pass:PW
	{[]string{"pass:"}, regexp.MustCompile(`\bpass:([^\s;&|'"]+)`), 1, nil, false},
	// signed URLs (Azure SAS, S3, GCS)
	{[]string{"sig", "signature"}, regexp.MustCompile(`[?&](?:sig|signature|X-Amz-Signature|X-Goog-Signature)=([^&\s'"]+)`), 1, nil, false},
	// JWTs
	{[]string{"eyj"}, regexp.MustCompile(`\b(eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*)`), 1, nil, false},
	// well-known token shapes
	{tokenHints, regexp.MustCompile(`\b(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_-]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|xapp-[A-Za-z0-9-]{10,}|(?:AKIA|ASIA)[0-9A-Z]{16}|gl(?:pat|dt|ptt)-[A-Za-z0-9_-]{20,}|AIza[0-9A-Za-z_-]{35}|hvs\.[A-Za-z0-9_-]{16,}|npm_[A-Za-z0-9]{30,}|[sr]k_(?:live|test)_[A-Za-z0-9]{16,}|SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}|hf_[A-Za-z0-9]{30,}|dckr_pat_[A-Za-z0-9_-]{20,}|pypi-[A-Za-z0-9_-]{50,}|ya29\.[A-Za-z0-9_-]{20,}|dop_v1_[a-f0-9]{64}|shpat_[a-fA-F0-9]{32})`), 1, nil, false},
	// webhooks and bot tokens that carry their secret in the path
	{[]string{"hooks.slack.com", "discord", "telegram"}, regexp.MustCompile(`(?:hooks\.slack\.com/services/|discord(?:app)?\.com/api/webhooks/\d+/|api\.telegram\.org/bot)([A-Za-z0-9/:_-]+)`), 1, nil, false},
}

// programRules are the password options of particular programs.
var programRules = []rule{
	{[]string{"ldap"}, regexp.MustCompile(`\bldap\w*\b[^;&|\n]*?\s-w\s*('[^']*'|"[^"]*"|[^\s;&|]+)`), 1, nil, false},
	{[]string{"smbclient"}, regexp.MustCompile(`\bsmbclient\b[^;&|\n]*?\s-U\s*[^%\s]+%('[^']*'|"[^"]*"|[^\s;&|]+)`), 1, nil, false},
	{[]string{"mongo"}, regexp.MustCompile(`\bmongo\w*\b[^;&|\n]*?\s-p\s*('[^']*'|"[^"]*"|[^\s;&|]+)`), 1, nil, false},
	{[]string{"az"}, regexp.MustCompile(`\baz\s+login\b[^;&|\n]*?\s-p\s*('[^']*'|"[^"]*"|[^\s;&|]+)`), 1, nil, false},
	{[]string{"nmcli"}, regexp.MustCompile(`\bnmcli\b[^;&|\n]*?\bpassword\s+('[^']*'|"[^"]*"|[^\s;&|]+)`), 1, nil, false},
	{[]string{"zip"}, regexp.MustCompile(`\b(?:un)?zip\b[^;&|\n]*?\s-P\s+('[^']*'|"[^"]*"|[^\s;&|]+)`), 1, nil, false},
	{[]string{"lftp"}, regexp.MustCompile(`\blftp\b[^;&|\n]*?\s-u\s*[^,\s]+,('[^']*'|"[^"]*"|[^\s;&|]+)`), 1, nil, false},
	{[]string{"ncftp"}, regexp.MustCompile(`\bncftp\w*\b[^;&|\n]*?\s-p\s*('[^']*'|"[^"]*"|[^\s;&|]+)`), 1, nil, false},
	{[]string{"rdp"}, regexp.MustCompile(`\bx?freerdp\b[^;&|\n]*?\s/p:('[^']*'|"[^"]*"|[^\s;&|]+)`), 1, nil, false},
	{[]string{"net "}, regexp.MustCompile(`\bnet\s+(?:use\b[^;&|\n]*?/user:\S+|user\s+[^\s/]+)\s+([^\s/;&|][^\s;&|]*)`), 1, nil, false},
	{[]string{"mysqladmin"}, regexp.MustCompile(`\bmysqladmin\b[^;&|\n]*?\spassword\s+('[^']*'|"[^"]*"|[^\s;&|]+)`), 1, nil, false},
	{[]string{"redis-cli"}, regexp.MustCompile(`\bredis-cli\b[^;&|\n]*?\s-a\s+('[^']*'|"[^"]*"|[^\s;&|]+)`), 1, nil, false},
	{[]string{"7z"}, regexp.MustCompile(`\b7za?\b[^;&|\n]*?\s-p('[^']*'|"[^"]*"|[^\s;&|]+)`), 1, nil, false},
	{[]string{"ssh-keygen"}, regexp.MustCompile(`\bssh-keygen\b[^;&|\n]*?\s-[NP]\s*('[^']*'|"[^"]*"|[^\s;&|]+)`), 1, nil, false},
	{[]string{"htpasswd"}, regexp.MustCompile(`\bhtpasswd\b[^;&|\n]*?\s-\w*b\w*\s+\S+\s+\S+\s+('[^']*'|"[^"]*"|[^\s;&|]+)`), 1, nil, false},
	{[]string{"sshpass"}, regexp.MustCompile(`\bsshpass\b(?:\s+-[a-oq-zA-Z]\S*)*\s+-p\s*([^\s;&|]+)`), 1, nil, false},
	{[]string{"login"}, regexp.MustCompile(`\b(?:docker|podman|nerdctl|buildah|skopeo|oras|helm(?:\s+registry)?)\s+login\b[^;&|\n]*?\s-p\s*([^\s;&|]+)`), 1, nil, false},
	{[]string{"openssl"}, regexp.MustCompile(`\bopenssl\b[^;&|\n]*?\s-k\s+([^\s;&|]+)`), 1, nil, false},
	{[]string{"sqlcmd", "bcp", "isql"}, regexp.MustCompile(`\b(?:sqlcmd|bcp|isql)\b[^;&|\n]*?\s-P\s*('[^']*'|"[^"]*"|[^\s;&|]+)`), 1, nil, false},
	{[]string{"doctl"}, regexp.MustCompile(`\bdoctl\b[^;&|\n]*?\s-t\s+('[^']*'|"[^"]*"|[^\s;&|]+)`), 1, nil, false},
	// fish set -x NAME value, csh setenv NAME value
	{[]string{"set"}, regexp.MustCompile(`\b(?:set[ \t]+(?:-[A-Za-z]+[ \t]+)*|setenv[ \t]+)([A-Za-z_][A-Za-z0-9_]*)[ \t]+(` + word + `)`), 2,
		func(t string, m []int) bool { return secretName(sub(t, m, 1)) }, false},
}

// wholeTextRules find secrets that span lines.
var wholeTextRules = []rule{
	// private-key blocks: the body
	{[]string{"private key"}, regexp.MustCompile(`(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----(.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----|$)`), 1, nil, true},
	// .netrc entries
	{[]string{"machine"}, regexp.MustCompile(`\bmachine\s+\S+(?:\s+login\s+\S+)?\s+password\s+(\S+)`), 1, nil, true},
}

// hereStringOK accepts a here-string fed to a program that reads a secret,
// judged by the words since the last command separator or quote (at most
// maxCommand bytes back).
func hereStringOK(t string, m []int) bool {
	before := t[max(0, m[0]-maxCommand):m[0]]
	start := strings.LastIndexAny(before, ";&|\n('\"`") + 1
	_, ok := secretStdin(shellWords(before[start:]))
	return ok
}

// maxCommand is how far back from a here-string its command is looked for.
const maxCommand = 256
