package shell

import (
	"os"
	"path/filepath"
	"testing"
)

func TestIdleLogoutNamesTheStartupLineThatSetsTMOUT(t *testing.T) {
	for _, c := range []struct{ file, body, want string }{
		{".bashrc", "PS1='$ '\nreadonly TMOUT=20\n", "~/.bashrc:2: readonly TMOUT=20"},
		{".profile", "export TMOUT=600 # security policy\n", "~/.profile:1: export TMOUT=600 # security policy"},
		{".zshrc", "setopt prompt_subst; TMOUT=30\n", "~/.zshrc:1: setopt prompt_subst; TMOUT=30"},
		{".bashrc", "declare -rx TMOUT=5\n", "~/.bashrc:1: declare -rx TMOUT=5"},
		{".bashrc", "# TMOUT=20 is what the old machine had\necho $TMOUT\nMYTMOUT=3\n", ""},
	} {
		home := t.TempDir()
		if err := os.WriteFile(filepath.Join(home, c.file), []byte(c.body), 0o600); err != nil {
			t.Fatal(err)
		}
		got := IdleLogout(home)
		if c.want == "" && got != "" && got[0] == '~' {
			t.Errorf("%s %q: got %q, want nothing from the home", c.file, c.body, got)
		}
		if c.want != "" && got != c.want {
			t.Errorf("%s %q: got %q, want %q", c.file, c.body, got, c.want)
		}
	}
}
