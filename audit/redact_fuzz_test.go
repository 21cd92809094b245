package audit

import (
	"fmt"
	"strings"
	"testing"
)

// plantMarker is planted as the secret in plantForms.
const plantMarker = "Q9plantSECRETz"

// plantForms are forms a secret is typed in, with %s where it goes.
var plantForms = []string{
	"gh auth login --with-token <<< %s",
	"ssh-add - <<< '%s'",
	"gh auth login --with-token <<EOF\n%s\nEOF",
	"echo %s | sudo -S true",
	"export MY_PW=%s",
	"DB_PASSWD='%s' make",
	"export MY_TO\\\nKEN=%s",
	"npm config set //registry.npmjs.org/:_authToken %s",
	"vault login %s",
	"keytool -list -storepass %s",
	"curl -u 'a b:%s' https://x",
	"curl https://u:%s@example.com",
	"tool --password=%s",
	"curl -H 'Authorization: Bearer %s' x",
	"echo hf_%sabcdefghijklmnopqrstu",
	"mysql -uroot -p%s",
}

// FuzzRedact checks that Redact never panics, that redacting twice changes
// nothing more, and that a secret planted in a known form, alone or after
// or before any text, never survives.
func FuzzRedact(f *testing.F) {
	for _, c := range append(append([]secretForm{}, listedForms...), kinForms...) {
		f.Add(c.text)
	}
	for _, l := range benignLines {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, s string) {
		once := Redact(s)
		if twice := Redact(once); twice != once {
			t.Fatalf("not idempotent:\n in    %q\n once  %q\n twice %q", s, once, twice)
		}
		if strings.Contains(s, plantMarker) {
			return
		}
		_, err := parse(s)
		for _, form := range plantForms {
			planted := fmt.Sprintf(form, plantMarker)
			texts := []string{planted, planted + "\n" + s}
			if err == nil && !strings.HasSuffix(s, `\`) {
				// After a complete script the form is a command of its own.
				texts = append(texts, s+"\n"+planted)
			}
			for _, text := range texts {
				if got := Redact(text); strings.Contains(got, plantMarker) {
					t.Fatalf("planted secret survives:\n in  %q\n out %q", text, got)
				}
			}
		}
	})
}
