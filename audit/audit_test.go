package audit

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"git clone https://bob:hunter2@example.com/x.git":                                           "git clone https://[REDACTED]@example.com/x.git",
		"git clone https://:hunter2@example.com/x.git":                                              "git clone https://[REDACTED]@example.com/x.git",
		"git clone https://user:p@ss@example.com/x.git":                                             "git clone https://[REDACTED]@example.com/x.git",
		"git clone https://ghp_tok@github.com/x.git":                                                "git clone https://[REDACTED]@github.com/x.git",
		"AWS_SECRET_ACCESS_KEY=abc123 aws s3 ls":                                                    "AWS_SECRET_ACCESS_KEY=[REDACTED] aws s3 ls",
		"export GITHUB_TOKEN='ghp_x' && make":                                                       "export GITHUB_TOKEN=[REDACTED] && make",
		`curl -H "Authorization: Bearer eyJhbGciOi" x`:                                              `curl -H "Authorization: [REDACTED]" x`,
		`curl -H 'X-Api-Key: abc123' https://api`:                                                   `curl -H 'X-Api-Key: [REDACTED]' https://api`,
		`curl -H "X-Auth-Token: t0k" u`:                                                             `curl -H "X-Auth-Token: [REDACTED]" u`,
		"mysql --password=s3cret -u root":                                                           "mysql --password=[REDACTED] -u root",
		"mysql -u root -ps3cret db":                                                                 "mysql -u root -p[REDACTED] db",
		"curl -u user:pw https://x":                                                                 "curl -u [REDACTED] https://x",
		"curl --user 'user:pw' https://x":                                                           "curl --user [REDACTED] https://x",
		"sshpass -p hunter2 ssh host":                                                               "sshpass -p [REDACTED] ssh host",
		"openssl pkcs12 -in a.p12 -passin pass:hunter2 -out b":                                      "openssl pkcs12 -in a.p12 -passin pass:[REDACTED] -out b",
		"openssl enc -aes256 -k hunter2 -in f":                                                      "openssl enc -aes256 -k [REDACTED] -in f",
		"docker login -u me -p hunter2 registry.io":                                                 "docker login -u me -p [REDACTED] registry.io",
		"aws configure set aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY":          "aws configure set aws_secret_access_key [REDACTED]",
		"echo eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sig_nature":                                  "echo [REDACTED]",
		"echo ghp_abcdefghijklmnopqrstuvwxyz0123":                                                   "echo [REDACTED]",
		"printf '-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn\n-----END OPENSSH PRIVATE KEY-----\n'": "printf '-----BEGIN OPENSSH PRIVATE KEY-----[REDACTED]-----END OPENSSH PRIVATE KEY-----\n'",
		`{"password": "hunter2"}`:                                                                   `{"password": [REDACTED]}`,
		"ls -la /tmp":                                                                               "ls -la /tmp",
		"git show 3f786850e387550fdab836ed7e6dc881de23001b":                                         "git show 3f786850e387550fdab836ed7e6dc881de23001b",
		"mkdir -p /tmp/x && ssh -p 22 host && sort -u f":                                            "mkdir -p /tmp/x && ssh -p 22 host && sort -u f",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q)\n = %q\nwant %q", in, got, want)
		}
	}
}

// Secrets in the forms people type them: each must be gone.
func TestNoSecretSurvivesRedaction(t *testing.T) {
	for _, c := range []struct{ text, secret string }{
		{`curl -d '{"username":"bob","password":"Hunter2xyz"}' https://h/login`, "Hunter2xyz"},
		{`export DB_PASSWORD=p,ss}w0rdQ`, "ss}w0rdQ"},
		{`export DB_PASSWORD=abc'def'Q`, "def"},
		{`redis-cli -h h -a S3cretRedis`, "S3cretRedis"},
		{`curl https://api.stripe.com/v1/charges -u sk_live_4eC39HqLyjWDarjtT1zdp7dc:`, "4eC39HqLyjWDarjtT1zdp7dc"},
		{`zip -P ZipPass99 out.zip f`, "ZipPass99"},
		{`7z a -pSevenPass out.7z f`, "SevenPass"},
		{`ssh-keygen -t ed25519 -N 'KeyPass77' -f k`, "KeyPass77"},
		{`printf 'machine h login u password NetrcPw1\n' >> ~/.netrc`, "NetrcPw1"},
		{"gpg --import <<EOF\n-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBGPGPSECRETMATERIAL\n-----END PGP PRIVATE KEY BLOCK-----\nEOF", "PGPSECRETMATERIAL"},
		{`aws configure set aws_session_token IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQD`, "IQoJb3JpZ2luX2VjEJr"},
		{`npm config set _authToken npm_a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTuVwXyZ`, "npm_a1B2c3D4e5F6g7H8i9J0"},
		{`curl -X POST https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX -d x`, "XXXXXXXXXXXXXXXXXXXXXXXX"},
		{`echo 'Hunter2sudo' | sudo -S apt update`, "Hunter2sudo"},
		{`vault login hvs.CAESIJ7pLqSecretVaultTok`, "CAESIJ7pLqSecretVaultTok"},
		{`psql "host=db user=u password=PgPw1 dbname=x"`, "PgPw1"},
		{`mysql -u root -p'My Pw 1'`, "Pw 1"},
		{`htpasswd -b .htpasswd admin HtPw123`, "HtPw123"},
		{`TOKEN="abc def"`, "def"},
		{`curl -H 'Authorization: Bearer abc' -H "X-Foo: 1"`, "abc"},
		{`wget --http-password HttpPw1 u`, "HttpPw1"},
		{`tool --db-password DbPw1`, "DbPw1"},
		{`tool --secret-key SkPw1`, "SkPw1"},
		{`curl --oauth2-bearer BearerPw1 u`, "BearerPw1"},
		{`sendgrid --key SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuv`, "abcdefghijklmnopqrstuv"},
		{`curl --ftp-pass FtpPw1 ftp://h`, "FtpPw1"},
		{`ldapsearch -x -D cn=admin -w LdapPw1 -b dc=x`, "LdapPw1"},
		{`smbclient //h/s -U alice%SmbPw1`, "SmbPw1"},
		{`mongosh --host h -u admin -p MongoPw1`, "MongoPw1"},
		{`az login -u me@x.com -p AzPw1`, "AzPw1"},
		{`sudo -S apt update <<< 'SudoPw1'`, "SudoPw1"},
		{`printf '%s\n' SudoPw2 | sudo -S true`, "SudoPw2"},
		{`echo 'alice:ChPw1' | chpasswd`, "ChPw1"},
		{`echo PasswdPw1 | passwd --stdin alice`, "PasswdPw1"},
		{`nmcli dev wifi connect Home password WifiPw1`, "WifiPw1"},
		{`curl 'https://a.blob.core.windows.net/c/f?sv=2020&sig=SasSig1%3D&se=1'`, "SasSig1"},
		{`unzip -P UnzipPw9 a.zip`, "UnzipPw9"},
		{`docker login -u me --password-stdin <<< DockPw999`, "DockPw999"},
		{`lftp -u user,LftpPw99 ftp://h`, "LftpPw99"},
		{`ncftp -u me -p NcPw999 h`, "NcPw999"},
		{`xfreerdp /v:h /u:me /p:RdpPw999`, "RdpPw999"},
		{`net use Z: \\\\h\\s /user:u NetPw999`, "NetPw999"},
		{`mysqladmin -u root password NewPw999`, "NewPw999"},
		{`echo -n 'EchoPw999' | sudo -S true`, "EchoPw999"},
		{"sudo -S true <<EOF\nHdocPw999\nEOF", "HdocPw999"},
		{`set -x TOKEN FishTok999`, "FishTok999"},
		{`setenv API_TOKEN CshTok999`, "CshTok999"},
	} {
		if got := Redact(c.text); strings.Contains(got, c.secret) {
			t.Errorf("%q survives: %q", c.secret, got)
		}
	}
}

func TestLogWritesOneRedactedLinePerEvent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	code := 0
	_ = l.Record(Event{Event: "decision", JobID: "j1", Command: "API_KEY=zzz run", Decision: "approved", DecidedBy: "tmux:/dev/pts/1"})
	_ = l.Record(Event{Event: "completed", JobID: "j1", Status: "completed", ExitCode: &code})
	_ = l.Close()
	f, _ := os.Open(path)
	defer f.Close()
	var lines []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, m)
	}
	if len(lines) != 2 || strings.Contains(lines[0]["command"].(string), "zzz") || lines[1]["exitCode"] != float64(0) {
		t.Fatalf("lines %v", lines)
	}
}

func TestEveryLineNamesItsHost(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	_ = l.Record(Event{Event: "decision", Host: "prod", Command: "ls", Decision: "blocked", DecidedBy: "policy:prod asks"})
	_ = l.Record(Event{Event: "completed", JobID: "j1", Status: "completed"})
	_ = l.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var hosts []any
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		hosts = append(hosts, m["host"])
	}
	if len(hosts) != 2 || hosts[0] != "prod" || hosts[1] != "local" {
		t.Fatalf("hosts %v, want [prod local]: a line without a host is this machine's", hosts)
	}
}

// Every form issue 25 found in the log, as a command and as a reason,
// leaves no trace in the file.
func TestTheLogHoldsNoneOfTheListedSecrets(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range listedForms {
		if err := l.Record(Event{Event: "decision", Command: c.text, Reason: "because " + c.text, Decision: "approved"}); err != nil {
			t.Fatal(err)
		}
	}
	_ = l.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range listedForms {
		if strings.Contains(string(b), c.secret) {
			t.Errorf("the log holds %q (from %q)", c.secret, c.text)
		}
	}
}
