package audit

import "strings"

// secretWords are the name segments that say a variable, key or field
// holds a secret (MY_PW, db.password, apiKey, NPM_AUTH).
var secretWords = map[string]bool{
	"PW": true, "PWD": true, "PASS": true, "PASSWD": true, "PASSWORD": true, "PASSWORDS": true,
	"PASSPHRASE": true, "PASSCODE": true, "PWORD": true, "SECRET": true, "SECRETS": true,
	"TOKEN": true, "TOKENS": true, "KEY": true, "KEYS": true, "APIKEY": true, "PRIVKEY": true,
	"CREDENTIAL": true, "CREDENTIALS": true, "CRED": true, "CREDS": true, "AUTH": true,
	"AUTHORIZATION": true, "COOKIE": true,
}

// secretInfixes are the secret words found inside one segment
// (PGPASSWORD, npmAuthToken written in one word, SECRETKEY).
var secretInfixes = []string{"PASSWORD", "PASSWD", "PASSPHRASE", "SECRET", "TOKEN", "CREDENTIAL", "APIKEY", "ACCESSKEY", "PRIVATEKEY", "PASS"}

// notSecretWords hold a secret word without being one (BYPASS, TOKENIZERS,
// SSH_ASKPASS names a program).
var notSecretWords = []string{"BYPASS", "COMPASS", "PASSENGER", "PASSTHRU", "PASSTHROUGH", "PASSIVE", "PASSAGE", "SURPASS", "TRESPASS", "ASKPASS", "TOKENIZER", "PASSPORT"}

// notSecretLast are last segments that make a secret-sounding name hold
// something else: a path, a name, a kind (KEY_FILE, TOKEN_URL, SSH_AUTH_SOCK).
var notSecretLast = map[string]bool{
	"FILE": true, "FILES": true, "PATH": true, "DIR": true, "SOCK": true, "SOCKET": true, "URL": true,
	"URI": true, "TYPE": true, "NAME": true, "LEN": true, "LENGTH": true, "SIZE": true, "ID": true,
	"HOST": true, "PORT": true, "USER": true, "USERNAME": true, "METHOD": true, "MODE": true,
	"HELPER": true, "COMMAND": true, "CMD": true, "PROMPT": true, "ENABLED": true, "FD": true,
	"STDIN": true,
}

// secretName reports whether a variable, option key or field name says it
// holds a secret. PWD and OLDPWD are the shell's directories.
func secretName(name string) bool {
	up := strings.ToUpper(name)
	if up == "PWD" || up == "OLDPWD" {
		return false
	}
	segs := nameSegments(name)
	if len(segs) == 0 || notSecretLast[segs[len(segs)-1]] {
		return false
	}
	for _, s := range segs {
		if secretWords[s] {
			return true
		}
	}
	for _, w := range notSecretWords {
		up = strings.ReplaceAll(up, w, "")
	}
	for _, w := range secretInfixes {
		if strings.Contains(up, w) {
			return true
		}
	}
	return false
}

// nameSegments splits a name into upper-cased words at _, -, ., :, /
// and at a lower-to-upper case change (apiKey: API KEY).
func nameSegments(name string) []string {
	var segs []string
	start := 0
	flush := func(end int) {
		if end > start {
			segs = append(segs, strings.ToUpper(name[start:end]))
		}
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_' || c == '-' || c == '.' || c == ':' || c == '/':
			flush(i)
			start = i + 1
		case c >= 'A' && c <= 'Z' && i > 0 && name[i-1] >= 'a' && name[i-1] <= 'z':
			flush(i)
			start = i
		}
	}
	flush(len(name))
	return segs
}

// booleanSecretFlags are options named for a secret that take no value.
var booleanSecretFlags = map[string]bool{
	"with-token": true, "ask-pass": true, "ask-become-pass": true, "ask-vault-pass": true,
	"ask-sudo-pass": true, "ask-su-pass": true, "no-password": true,
	"prompt-password": true, "no-pass": true, "no-passphrase": true,
}

// secretFlag reports whether a long option (without its dashes) takes a
// secret as its value.
func secretFlag(name string) bool {
	n := strings.ToLower(name)
	if booleanSecretFlags[n] {
		return false
	}
	return secretName(n) || strings.HasSuffix(n, "bearer")
}
