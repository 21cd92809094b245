package shell

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// tmoutSet matches a line that gives TMOUT a value: TMOUT=20, export
// TMOUT=20, readonly TMOUT=20, typeset -r TMOUT=20, declare -rx TMOUT=20,
// alone or after ; or &&.
var tmoutSet = regexp.MustCompile(`(^|[;&|({\s])((export|readonly|typeset|declare|local)(\s+-[a-zA-Z]+)*\s+)?TMOUT=`)

// startupFiles are the files bash and zsh read at start, in the order they
// read them: where a TMOUT that logs idle shells out is set.
var startupFiles = []string{
	"/etc/profile", "/etc/bash.bashrc", "/etc/zsh/zshenv", "/etc/zsh/zprofile", "/etc/zsh/zshrc", "/etc/zshenv", "/etc/zshrc",
	"~/.bash_profile", "~/.bash_login", "~/.profile", "~/.bashrc", "~/.zshenv", "~/.zprofile", "~/.zshrc", "~/.zlogin",
}

// IdleLogout says where the shells' startup files under home (and the
// system's) set TMOUT, the variable that makes an idle bash or zsh exit:
// "~/.bashrc:3: readonly TMOUT=20", or "" when none does. It reads
// /etc/profile.d too; a file it cannot read is skipped.
func IdleLogout(home string) string {
	files := append([]string(nil), startupFiles...)
	if d, err := filepath.Glob("/etc/profile.d/*.sh"); err == nil {
		files = append(files, d...)
	}
	for _, f := range files {
		path, shown := f, f
		if rest, ok := strings.CutPrefix(f, "~/"); ok {
			if home == "" {
				continue
			}
			path = filepath.Join(home, rest)
		}
		if where := tmoutLine(path); where != "" {
			return shown + ":" + where
		}
	}
	return ""
}

// tmoutLine is "N: the line" for the first line of path that sets TMOUT
// outside a comment, or "".
func tmoutLine(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		code, _, _ := strings.Cut(line, "#")
		if tmoutSet.MatchString(code) {
			return strconv.Itoa(n) + ": " + strings.TrimSpace(line)
		}
	}
	return ""
}
