package audit

import (
	"path"
	"strings"
)

// stdinSecretPrograms are the programs that read a secret from their
// standard input, each with when it does (given its arguments): what a
// here-string, here-document or pipe feeds them is a secret.
var stdinSecretPrograms = map[string]func(args []string) bool{
	"gh": func(a []string) bool {
		return has(a, "auth") && has(a, "login") && has(a, "--with-token") ||
			has(a, "secret") && has(a, "set") && !hasPrefix(a, "-b", "--body")
	},
	"ssh-add":        func(a []string) bool { return has(a, "-") },
	"vault":          func(a []string) bool { return has(a, "login") && has(a, "-") },
	"passwd":         always,
	"chpasswd":       always,
	"chgpasswd":      always,
	"smbpasswd":      always,
	"newusers":       always,
	"vncpasswd":      always,
	"mkpasswd":       always,
	"wpa_passphrase": always,
	"cryptsetup":     always,
	"kinit":          always,
	"sshpass":        always,
	"keytool":        always,
	"jarsigner":      always,
	"htpasswd":       func(a []string) bool { return shortFlag(a, 'i') },
	"sudo":           func(a []string) bool { return shortFlag(a, 'S') || has(a, "--stdin") },
	"mysql":          bareMySQLPassword,
	"mariadb":        bareMySQLPassword,
	"mysqladmin":     bareMySQLPassword,
	"mysqldump":      bareMySQLPassword,
	"psql":           func(a []string) bool { return has(a, "-W") || has(a, "--password") },
	"pass":           func(a []string) bool { return has(a, "insert") || has(a, "add") || has(a, "edit") },
	"git": func(a []string) bool {
		return len(a) > 0 && (has(a, "credential") || hasPrefix(a, "credential-"))
	},
	"read": func(a []string) bool {
		return anyArg(a, func(w string) bool { return !strings.HasPrefix(w, "-") && secretName(w) })
	},
	"ansible-vault": func(a []string) bool { return has(a, "encrypt_string") },
	"openssl":       func(a []string) bool { return has(a, "passwd") && has(a, "-stdin") },
}

// sqlClients read SQL, which may set a password, from their input.
var sqlClients = map[string]bool{"mysql": true, "mariadb": true, "psql": true, "sqlplus": true, "sqlcmd": true, "mongosh": true, "mongo": true, "cqlsh": true, "clickhouse-client": true}

func always([]string) bool { return true }

func bareMySQLPassword(a []string) bool { return has(a, "-p") || has(a, "--password") }

// secretStdin reports whether the words of a command (its program and
// arguments, a wrapper such as sudo or env before them allowed) make it
// read a secret from its standard input, and names the program.
func secretStdin(words []string) (string, bool) {
	for i, w := range words {
		if dir := path.Dir(w); dir != "." && !strings.HasSuffix(dir, "bin") {
			continue // a file such as /etc/passwd, not a program
		}
		base := path.Base(w)
		if strings.HasPrefix(base, "git-credential") {
			return "git", true
		}
		if check, ok := stdinSecretPrograms[base]; ok && check(words[i+1:]) {
			return base, true
		}
	}
	if stdinSecretArgs(words) {
		return programName(words), true
	}
	return "", false
}

// stdinSecretArgs reports whether an argument sends a secret through
// standard input: --password-stdin and its kin, a secret option whose
// value is standard input (-pass stdin, --passphrase-fd 0,
// --key-file=-), NAME=- for a secret NAME (vault write … password=-), or a
// secret subcommand given standard input (kubectl create secret …
// --from-file=/dev/stdin, docker secret create NAME -).
func stdinSecretArgs(words []string) bool {
	secretCmd := false
	for _, w := range words {
		if w == "secret" || w == "secrets" || w == "secretsmanager" {
			secretCmd = true
		}
	}
	for i, w := range words {
		name, val, eq := strings.Cut(strings.TrimLeft(w, "-"), "=")
		if !eq && i+1 < len(words) {
			val = words[i+1]
		}
		switch {
		case strings.HasPrefix(w, "-") && stdinFlag(name):
			return true
		case strings.HasPrefix(w, "-") && secretName(trimStdinSuffix(name)) && stdinRef(val):
			return true
		case !strings.HasPrefix(w, "-") && eq && secretName(name) && stdinRef(val):
			return true
		case secretCmd && (stdinRef(w) || eq && stdinRef(val[strings.LastIndexByte(val, '=')+1:])):
			return true
		}
	}
	return false
}

// stdinFlag reports whether an option's name says it reads a secret from
// standard input (password-stdin, token-stdin, pass-stdin).
func stdinFlag(name string) bool {
	n := strings.ToLower(name)
	for _, suffix := range []string{"-stdin", "_stdin"} {
		if s, ok := strings.CutSuffix(n, suffix); ok && secretName(s) {
			return true
		}
	}
	return false
}

// trimStdinSuffix removes the -fd, -file or -from of an option that names
// where a secret is read (passphrase-fd, key-file).
func trimStdinSuffix(name string) string {
	for _, suffix := range []string{"-fd", "_fd", "-file", "_file", "-from"} {
		if s, ok := strings.CutSuffix(strings.ToLower(name), suffix); ok {
			return s
		}
	}
	return name
}

// stdinRef reports whether an option's value names standard input.
func stdinRef(v string) bool {
	switch v {
	case "-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "stdin", "fd:0", "0", "file:/dev/stdin", "file:///dev/stdin", "@-", "@/dev/stdin":
		return true
	}
	return false
}

// programName is the name of the command words run, for a text that is
// replaced whole: its first word's base when it is a plain name, else
// "command" (the first word is never a secret, but may not be a name).
func programName(words []string) string {
	if len(words) == 0 {
		return "command"
	}
	base := path.Base(words[0])
	if len(base) == 0 || len(base) > 32 {
		return "command"
	}
	for _, c := range base {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '+') {
			return "command"
		}
	}
	return base
}

func has(args []string, w string) bool {
	for _, a := range args {
		if a == w {
			return true
		}
	}
	return false
}

func hasPrefix(args []string, prefixes ...string) bool {
	return anyArg(args, func(a string) bool {
		for _, p := range prefixes {
			if strings.HasPrefix(a, p) {
				return true
			}
		}
		return false
	})
}

func anyArg(args []string, f func(string) bool) bool {
	for _, a := range args {
		if f(a) {
			return true
		}
	}
	return false
}

// shortFlag reports whether a short option cluster (-Si, -kS) holds c.
func shortFlag(args []string, c byte) bool {
	return anyArg(args, func(a string) bool {
		return len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a[1:], c) >= 0
	})
}

// shellWords splits a text that did not parse into rough words: at
// blanks and the shell's operators, quotes removed.
func shellWords(s string) []string {
	var words []string
	var b []byte
	for i := 0; i <= len(s); i++ {
		if i == len(s) || strings.IndexByte(" \t\n;&|()<>`", s[i]) >= 0 {
			if len(b) > 0 {
				words = append(words, string(b))
				b = b[:0]
			}
			continue
		}
		if s[i] != '\'' && s[i] != '"' {
			b = append(b, s[i])
		}
	}
	return words
}
