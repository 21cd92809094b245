package audit

import (
	"regexp"
	"strings"
)

// The values of assignments and options, read from where they start.
var (
	fieldValue  = regexp.MustCompile(`^[ \t]*(` + fieldWord + `)`)
	optionValue = regexp.MustCompile(`^(` + word + `)`)
)

// scanner finds one shape of secret by hand where a regular expression
// would try every position of a long text; it runs when one of hints is
// in the text.
type scanner struct {
	hints []string
	find  func(text string) []span
}

var scanners = []scanner{
	{nameHints, assignments},
	{nameHints, options},
	{[]string{"://"}, urlUserinfo},
	{nil, awsSecrets},
}

// assignments finds the values of NAME=value, name: value and "name":
// value where the name says secret (PWD and OLDPWD do not): shell and
// environment assignments, -Dkey=value, JSON and YAML fields, URL query
// parameters.
func assignments(text string) []span {
	var spans []span
	for i := 0; i < len(text); i++ {
		sep := text[i]
		if sep != '=' && sep != ':' {
			continue
		}
		name, at := nameBefore(text, i)
		if name == "" || !secretName(name) {
			continue
		}
		if sep == ':' && !colonField(text, name, at, i) {
			continue
		}
		m := fieldValue.FindStringSubmatchIndex(text[i+1:])
		if m == nil || m[3] == m[2] || varRef(text[i+1+m[2]:i+1+m[3]]) {
			continue
		}
		spans = append(spans, span{i + 1 + m[2], i + 1 + m[3]})
		i += m[3]
	}
	return spans
}

// colonField reports whether name: value (name at at, the colon at
// colon) is a field holding a secret: not a URL's user:password@
// (urlUserinfo's), not an option's -storepass:env, not the end of a quoted
// string ("password:" in grep's pattern); and, unless the name is quoted
// ("auth": …), not a lone weak word that starts a sentence as often
// (auth: handle expired tokens).
func colonField(text, name string, at, colon int) bool {
	rest := strings.TrimLeft(text[colon+1:], " \t")
	switch {
	case inURL(text, at), at > 0 && text[at-1] == '-', strings.HasPrefix(rest, "//"):
		return false
	case at > 0 && (text[at-1] == '"' || text[at-1] == '\'') && strings.HasPrefix(rest, text[at-1:at]) && text[colon-1] != '"':
		return false
	}
	return text[colon-1] == '"' || !weakSecretWords[strings.ToUpper(name)]
}

// weakSecretWords are secret words that alone before a colon are as often
// prose.
var weakSecretWords = map[string]bool{"AUTH": true, "KEY": true, "KEYS": true, "PASS": true, "PW": true, "PWD": true, "COOKIE": true, "CRED": true, "CREDS": true, "CREDENTIALS": true, "TOKENS": true, "SECRETS": true}

// varRef reports whether a value only names a variable ($TOKEN, "${PW}"):
// the secret is not in the text.
func varRef(v string) bool {
	v = strings.Trim(v, `"`)
	if !strings.HasPrefix(v, "$") {
		return false
	}
	v = strings.TrimSuffix(strings.TrimPrefix(v[1:], "{"), "}")
	return v != "" && strings.IndexFunc(v, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) < 0
}

// nameBefore returns the name that ends before the separator at sep (a
// closing quote and blanks between allowed) and where it starts: a
// letter or _ after a character that cannot come before a name ($PWD: is
// an expansion, ~/.aws/credentials: a path, ${X:-y} an expansion).
func nameBefore(text string, sep int) (string, int) {
	end := sep
	for end > 0 && (text[end-1] == ' ' || text[end-1] == '\t') {
		end--
	}
	if end > 0 && text[end-1] == '"' {
		end--
	}
	start := end
	for start > 0 && nameChar(text[start-1]) {
		start--
	}
	// The first place in the run a name may start: a letter or _ at the
	// run's start, or after a - inside it (--from-literal=: from-literal).
	for ; start < end; start++ {
		c := text[start]
		if (c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z') && (start == 0 || !strings.ContainsRune("$/.{", rune(text[start-1])) && !wordByte(text[start-1])) {
			return text[start:end], start
		}
	}
	return "", end
}

func nameChar(c byte) bool { return wordByte(c) || c == '.' || c == '-' }

func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// options finds the values of options that take a secret: --password x,
// --token=x, -storepass x, -storepass:env X. A long option named for a
// secret that is a switch (--with-token) is not one; a value given apart
// that starts with - is another option. Of single-dash options, openssl's
// -pass/-passin/-passout have pass:PW (their own rule) and -key is a file.
func options(text string) []span {
	var spans []span
	for i := 0; i < len(text); i++ {
		if text[i] != '-' || i > 0 && !strings.ContainsRune(" \t\n'\"(", rune(text[i-1])) {
			continue
		}
		j := i + 1
		if j < len(text) && text[j] == '-' {
			j++
		}
		dashes := j - i
		k := j
		for k < len(text) && (wordByte(text[k]) || text[k] == '-') {
			k++
		}
		name := text[j:k]
		if name == "" || !isLetter(name[0]) || !optionTakesSecret(dashes, name) {
			i = max(i, k-1)
			continue
		}
		rest := text[k:]
		rest = strings.TrimPrefix(strings.TrimPrefix(rest, ":env"), ":file")
		at := len(text) - len(rest)
		eq := strings.HasPrefix(rest, "=")
		blanks := len(rest) - len(strings.TrimLeft(rest, " \t"))
		switch {
		case eq:
			at++
		case blanks > 0:
			at += blanks
		default:
			continue
		}
		m := optionValue.FindStringSubmatchIndex(text[at:])
		if m == nil || m[3] == m[2] || !eq && text[at] == '-' || varRef(text[at+m[2]:at+m[3]]) {
			continue
		}
		spans = append(spans, span{at + m[2], at + m[3]})
		i = at + m[3] - 1
	}
	return spans
}

func optionTakesSecret(dashes int, name string) bool {
	if dashes == 2 {
		return secretFlag(name)
	}
	switch strings.ToLower(name) {
	case "pass", "passin", "passout", "key", "pw":
		return false
	}
	return len(name) > 2 && secretFlag(name)
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// urlUserinfo finds URL userinfo in every form: user:pw@, :pw@, token@,
// p@ss with @ in it (up to the last @ before the host).
func urlUserinfo(text string) []span {
	var spans []span
	for i := 0; ; {
		k := strings.Index(text[i:], "://")
		if k < 0 {
			return spans
		}
		k += i
		i = k + 3
		if k == 0 || !isLetter(text[k-1]) && !strings.ContainsRune("0123456789+.-", rune(text[k-1])) {
			continue
		}
		end := i
		for end < len(text) && !strings.ContainsRune("/ \t\n\r\f'\"", rune(text[end])) {
			end++
		}
		if at := strings.LastIndexByte(text[i:end], '@'); at > 0 {
			spans = append(spans, span{i, i + at})
		}
	}
}

// inURL reports whether offset i of t is in a URL's scheme or userinfo
// (https://x-access-token:T@host: urlUserinfo's).
func inURL(t string, i int) bool {
	before := t[:i]
	return strings.Contains(before[strings.LastIndexAny(before, " \t\n'\"")+1:], "://")
}
