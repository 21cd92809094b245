package audit

import (
	"strings"
	"testing"
)

// secretForm is a line that carries a secret, and the secret: Redact's
// output must not contain it.
type secretForm struct{ text, secret string }

// listedForms are the forms issue 25 found in the audit log after
// redaction.
var listedForms = []secretForm{
	{`gh auth login --with-token <<< gho_HereStr1ngTok`, "HereStr1ngTok"},
	{`gh auth login --with-token <<< 'plain-tok-Q1'`, "plain-tok-Q1"},
	{`ssh-add - <<< "$(cat k)KeyPassQ2"`, "KeyPassQ2"},
	{`export MY_PW=MyPwQ3`, "MyPwQ3"},
	{`MY_PASS=MyPassQ4 ./deploy.sh`, "MyPassQ4"},
	{`DB_PASSWD=DbPasswdQ5 make db`, "DbPasswdQ5"},
	{`PGPASSWORD=PgPwQ6 psql -h db -U app`, "PgPwQ6"},
	{"export MY_TO\\\nKEN=ContinuedQ7", "ContinuedQ7"},
	{`echo '//registry.npmjs.org/:_authToken=NpmTokQ8' >> ~/.npmrc`, "NpmTokQ8"},
	{`npm config set //registry.npmjs.org/:_authToken NpmTokQ9`, "NpmTokQ9"},
	{`python -c 'from huggingface_hub import login; login("hf_HuggingFaceTokQ10abcdefghijklmnop")'`, "HuggingFaceTokQ10"},
	{`vault login VaultTokQ11`, "VaultTokQ11"},
	{`vault login -method=userpass username=me password=VaultPwQ12`, "VaultPwQ12"},
	{`VAULT_TOKEN=VaultTokQ13 vault kv get secret/app`, "VaultTokQ13"},
	{`keytool -list -keystore ks.jks -storepass StorePassQ14`, "StorePassQ14"},
	{`keytool -genkeypair -alias a -keypass KeyPassQ15 -keystore k.jks`, "KeyPassQ15"},
	{`curl -u 'svc user:CurlPwQ16' https://api.example.com`, "CurlPwQ16"},
}

// kinForms are the same secrets in the other forms people type them.
var kinForms = []secretForm{
	// here-strings, here-documents and pipes into programs that read a secret
	{`ssh-add - <<< KeyPassK1`, "KeyPassK1"},
	{"gh auth login --with-token <<EOF\nHdocTokK2\nEOF", "HdocTokK2"},
	{`docker login -u me --password-stdin registry.io <<< DockerPwK3`, "DockerPwK3"},
	{`podman login -u me --password-stdin quay.io <<< 'PodmanPwK4'`, "PodmanPwK4"},
	{`vault login - <<< VaultStdinK5`, "VaultStdinK5"},
	{"passwd alice <<EOF\nPasswdPwK6\nPasswdPwK6\nEOF", "PasswdPwK6"},
	{`chpasswd <<< 'alice:ChPwK7'`, "ChPwK7"},
	{`htpasswd -i /etc/nginx/htpasswd admin <<< HtPwK8`, "HtPwK8"},
	{"kubectl create secret generic db --from-file=password=/dev/stdin <<'EOF'\nKubeSecK9\nEOF", "KubeSecK9"},
	{`openssl enc -aes-256-cbc -pass stdin -in f -out f.enc <<< OpensslPwK10`, "OpensslPwK10"},
	{`gpg --batch --passphrase-fd 0 -d f.gpg <<< GpgPwK11`, "GpgPwK11"},
	{`sudo -S apt-get update <<< SudoPwK12`, "SudoPwK12"},
	{"mysql -u root -p <<EOF\nMysqlPwK13\nselect 1;\nEOF", "MysqlPwK13"},
	{"psql -h db -U app <<'SQL'\nALTER USER app WITH PASSWORD 'PsqlPwK14';\nSQL", "PsqlPwK14"},
	{`echo GhTokK15 | gh auth login --with-token`, "GhTokK15"},
	{`printf '%s' DockPwK16 | docker login -u me --password-stdin`, "DockPwK16"},
	{"cat <<EOF | chpasswd\nbob:ChPwK17\nEOF", "ChPwK17"},
	{`gh secret set API_KEY <<< GhSecK18`, "GhSecK18"},
	{`read -r DB_PASSWORD <<< "ReadPwK19"`, "ReadPwK19"},
	{"git credential approve <<EOF\nprotocol=https\nhost=github.com\nusername=me\npassword=GitCredK20\nEOF", "GitCredK20"},
	{`bash -c 'gh auth login --with-token <<< NestedTokK21'`, "NestedTokK21"},
	{"sudo -S true <<EOF\nUnclosedK22", "UnclosedK22"},
	{`sudo -S apt-get update < <(echo ProcSubstK98)`, "ProcSubstK98"},
	{`ssh host 'sudo -S systemctl restart app' <<< SshSudoK99`, "SshSudoK99"},
	{`echo 'SudoPwK100' | ssh host sudo -S reboot`, "SudoPwK100"},
	{`cryptsetup open /dev/sdb1 vault --key-file=- <<< LuksPwK23`, "LuksPwK23"},
	// assignments and environment names
	{`export GITHUB_TOKEN='GhTokK24' && make`, "GhTokK24"},
	{`API_KEY="ApiKeyK25 with space" ./run`, "with space"},
	{`export AWS_SECRET_ACCESS_KEY=AwsSecK26`, "AwsSecK26"},
	{`MYSQL_PWD=MysqlPwdK27 mysql -u root`, "MysqlPwdK27"},
	{`declare -x CLIENT_SECRET=ClientSecK28`, "ClientSecK28"},
	{`GOOGLE_APPLICATION_CREDENTIALS_JSON='{"k":"CredK29"}' app`, "CredK29"},
	{`NPM_AUTH=NpmAuthK30 npm publish`, "NpmAuthK30"},
	{`TOKEN=abc\ TokSpaceK31 ./x`, "TokSpaceK31"},
	{`docker run -e POSTGRES_PASSWORD=PgPwK32 postgres`, "PgPwK32"},
	{`kubectl create secret generic x --from-literal=password=KubeLitK33`, "KubeLitK33"},
	{`java -Dapp.db.password=JavaPwK34 -jar app.jar`, "JavaPwK34"},
	{`set -gx OPENAI_API_KEY FishKeyK35`, "FishKeyK35"},
	{`local apiKey=CamelKeyK36`, "CamelKeyK36"},
	{`export DB_PW=DbPwK37 SESSION_SECRET=SessSecK38`, "SessSecK38"},
	{`{"client_secret": "JsonSecK39"}`, "JsonSecK39"},
	{`echo 'password: YamlPwK40' >> config.yml`, "YamlPwK40"},
	// program flags
	{`mysql -u root --password=MysqlPwK41 db`, "MysqlPwK41"},
	{`mysql -uroot -pMysqlPwK42 app`, "MysqlPwK42"},
	{`mysqldump -u root -p'Mysql PwK43' app > d.sql`, "PwK43"},
	{`tool --token TokK44`, "TokK44"},
	{`tool --api-key=ApiKeyK45`, "ApiKeyK45"},
	{`tool --secret "SecK46"`, "SecK46"},
	{`tool --client-secret ClientSecK47`, "ClientSecK47"},
	{`huggingface-cli login --token HfTokK48`, "HfTokK48"},
	{`curl -H "Authorization: Bearer BearerK49" https://api`, "BearerK49"},
	{`curl -H 'Authorization: Basic YmFzaWNLNTA6cHc=' https://api`, "YmFzaWNLNTA6cHc="},
	{`curl -H 'X-Api-Key: XApiKeyK51' https://api`, "XApiKeyK51"},
	{`curl --user admin:CurlPwK52 https://x`, "CurlPwK52"},
	{`curl -u admin:CurlPwK53 https://x`, "CurlPwK53"},
	{`wget --password=WgetPwK54 https://x/f`, "WgetPwK54"},
	{`wget --http-password HttpPwK55 --http-user u https://x/f`, "HttpPwK55"},
	{`docker login -u me -p DockerPwK56 registry.io`, "DockerPwK56"},
	{`sshpass -p SshpassK57 ssh host`, "SshpassK57"},
	{`htpasswd -bc .htpasswd admin HtpasswdK58`, "HtpasswdK58"},
	{`openssl pkcs12 -export -in c.pem -passout pass:OpensslK59 -out c.p12`, "OpensslK59"},
	{`keytool -importkeystore -srckeystore a.p12 -srcstorepass SrcStoreK60 -deststorepass DestStoreK61 -destkeystore b.jks`, "SrcStoreK60"},
	{`keytool -importkeystore -srckeystore a.p12 -srcstorepass SrcStoreK60 -deststorepass DestStoreK61 -destkeystore b.jks`, "DestStoreK61"},
	{`keytool -list -keystore k.jks -storepass:env StoreEnvK62`, "StoreEnvK62"},
	{`jarsigner -keystore k.jks -storepass JarPwK63 app.jar alias`, "JarPwK63"},
	{`vault write auth/userpass/users/me password=VaultWrK64`, "VaultWrK64"},
	{`vault login -method=github token=VaultGhK65`, "VaultGhK65"},
	{`az login --service-principal -u app -p AzPwK66 --tenant t`, "AzPwK66"},
	{`sqlcmd -S db -U sa -P SqlcmdK67 -Q 'select 1'`, "SqlcmdK67"},
	{`mysql -e "CREATE USER 'a'@'%' IDENTIFIED BY 'IdentK68'"`, "IdentK68"},
	{`yarn config set npmAuthToken YarnTokK69`, "YarnTokK69"},
	{`git config --global http.extraHeader "Authorization: Basic GitHdrK70"`, "GitHdrK70"},
	// URLs
	{`git clone https://x-access-token:GitUrlK71@github.com/o/r.git`, "GitUrlK71"},
	{`psql postgresql://app:PgUrlK72@db:5432/app`, "PgUrlK72"},
	{`curl 'https://api.example.com/v1?access_token=QueryTokK73&x=1'`, "QueryTokK73"},
	{`echo 'db:5432:*:app:PgpassK74' >> ~/.pgpass`, "PgpassK74"},
	// token shapes
	{`echo AKIAK75ABCDEFGHIJKLM`, "AKIAK75ABCDEFGHIJKLM"},
	{`echo ghp_K76abcdefghijklmnopqrstuvwxyz0123`, "K76abcdefghijklmnopqrstuvwxyz0123"},
	{`echo gho_K77abcdefghijklmnopqrstuvwxyz0123`, "K77abcdefghijklmnopqrstuvwxyz0123"},
	{`echo ghs_K78abcdefghijklmnopqrstuvwxyz0123`, "K78abcdefghijklmnopqrstuvwxyz0123"},
	{`echo github_pat_K79abcdefghijklmnopqrstuvwxyz_0123456789`, "K79abcdefghijklmnopqrstuvwxyz"},
	{`echo glpat-K80abcdefghijklmnopqrst`, "K80abcdefghijklmnopqrst"},
	{`echo xoxb-1234567890-K81abcdefghij`, "K81abcdefghij"},
	{`echo sk-proj-K82abcdefghijklmnopqrstuvwxyz`, "K82abcdefghijklmnopqrstuvwxyz"},
	{`echo sk-ant-api03-K83abcdefghijklmnopqrstuvwxyz`, "K83abcdefghijklmnopqrstuvwxyz"},
	{`echo sk_live_K84abcdefghijklmnopqrst`, "K84abcdefghijklmnopqrst"},
	{`echo hf_K85abcdefghijklmnopqrstuvwxyzABCDEF`, "K85abcdefghijklmnopqrstuvwxyzABCDEF"},
	{`echo eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJLODYifQ.K86signaturepart`, "K86signaturepart"},
	{"printf '%s\\n' '-----BEGIN RSA PRIVATE KEY-----' 'MIIEpK87' '-----END RSA PRIVATE KEY-----' > k", "MIIEpK87"},
	{`echo 'export OPENAI_API_KEY=sk-K88abcdefghijklmnopqrstuvwx' >> ~/.bashrc`, "K88abcdefghijklmnopqrstuvwx"},
	{`curl https://api.telegram.org/bot123456:K89abcdefghijklmnopqrstuvwxyz/getMe`, "K89abcdefghijklmnopqrstuvwxyz"},
	// what tmuxmcp writes for create_pane's environment, and a reason
	{`API_TOKEN='a b'\''EnvK93' DB_URL='postgres://u:EnvUrlK94@h/db' bash -l`, "EnvK93"},
	{`API_TOKEN='a b'\''EnvK93' DB_URL='postgres://u:EnvUrlK94@h/db' bash -l`, "EnvUrlK94"},
	{"API_TOKEN='line1\nEnvNlK95' bash", "EnvNlK95"},
	{`needs the token=ReasonK96 to deploy`, "ReasonK96"},
	{`{"password":"JsonK97"}`, "JsonK97"},
	{`echo dckr_pat_K90abcdefghijklmnopqrstu`, "K90abcdefghijklmnopqrstu"},
	{`echo pypi-AgEIcHlwaS5vcmcK91abcdefghijklmnopqrstuvwxyz0123456789`, "K91abcdefghijklmnopqrstuvwxyz"},
	{`echo ya29.K92abcdefghijklmnopqrstuvwxyz`, "K92abcdefghijklmnopqrstuvwxyz"},
}

// benignLines carry no secret: Redact returns them unchanged.
var benignLines = []string{
	"git status",
	"ls -p",
	"ls -la /tmp",
	"grep -n token file.go",
	"echo $PWD",
	`cd "$OLDPWD"`,
	"ssh-keygen -t ed25519",
	"ssh-keygen -t ed25519 -f ~/.ssh/id_ed25519 -C me@example.com",
	"sort -u names.txt",
	"mkdir -p /tmp/x && ssh -p 22 host && sort -u f",
	"git show 3f786850e387550fdab836ed7e6dc881de23001b",
	"docker run -p 8080:80 nginx",
	"docker run -v ~/.aws/credentials:/root/.aws/credentials:ro amazon/aws-cli s3 ls",
	"kubectl get secrets -n prod",
	"gh auth status",
	"gh pr list --state open",
	"cat <<EOF > notes.txt\nhello\nEOF",
	"grep -rn password_reset src/",
	`echo "$TOKEN" | wc -c`,
	"export PATH=$PATH:/usr/local/go/bin",
	"PWD=/tmp OLDPWD=/ ls",
	"git log --author=bob --since=yesterday",
	"GIT_AUTHOR_NAME=bob git commit -m wip",
	"npm config get registry",
	"vault status",
	"keytool -list -keystore ks.jks",
	"mysql -u root -p",
	"mysql -u root -p app < dump.sql",
	"psql -h db -U app -d app -c 'select 1'",
	"go test -run TestToken ./...",
	"echo ${#PWD}",
	"openssl x509 -in cert.pem -noout -text",
	"jq '.token' f.json",
	"awk -F: '{print $1}' /etc/passwd",
	"cat /etc/passwd | cut -d: -f1",
	"history | grep ssh-add",
	"docker login registry.io",
	"SSH_AUTH_SOCK=/tmp/agent.sock ssh host",
	"TOKENIZERS_PARALLELISM=false python train.py",
	"KEY_FILE=~/.ssh/id_ed25519 ./deploy.sh",
	"ansible-playbook --ask-become-pass site.yml",
	"curl -s https://example.com/path?q=1",
	"find . -name '*.pem' -newer key.go",
	"git diff HEAD~1 -- keys.go",
	"tr -d '\\n' < f | base64",
	"wget https://example.com/file.tar.gz",
	"python3 -c 'print(1)'",
	"echo hello | passwd-check",
	`grep -rn "password:" config/`,
	`git commit -m "auth: handle expired tokens"`,
	`echo "TOKEN=$TOKEN" >> .env`,
	`gh auth login --with-token --hostname "${GH_HOST}"`,
	"docker run -e PASSWORD -p 5432:5432 postgres",
	"kubectl get secret x -o jsonpath='{.data.password}'",
	"sed -i 's/password=.*/password=x/' f",
	"vault kv get -field=password secret/app",
}

func TestNoListedSecretFormSurvives(t *testing.T) {
	checkForms(t, listedForms)
}

func TestNoKinSecretFormSurvives(t *testing.T) {
	checkForms(t, kinForms)
}

func checkForms(t *testing.T, forms []secretForm) {
	t.Helper()
	for _, c := range forms {
		if !strings.Contains(c.text, c.secret) {
			t.Fatalf("bad form: %q does not contain %q", c.text, c.secret)
		}
		if got := Redact(c.text); strings.Contains(got, c.secret) {
			t.Errorf("%q survives in %q", c.secret, got)
		}
	}
}

func TestBenignLinesStayAsTheyAre(t *testing.T) {
	for _, l := range benignLines {
		if got := Redact(l); got != l {
			t.Errorf("Redact(%q) = %q, want it unchanged", l, got)
		}
	}
}

// A here-string or here-document into a program that reads a secret, in a
// line that does not parse, cannot be placed: only the program's name is
// kept. The same into another program, or parsed, is left or cut
// precisely.
func TestASecretThatCannotBePlacedCostsTheWholeLine(t *testing.T) {
	for in, want := range map[string]string{
		"sudo -S true <<EOF\nSudoPw1":                        "sudo [REDACTED: " + notParsed + "]",
		"gh auth login --with-token <<< 'GhTok1":             "gh [REDACTED: " + notParsed + "]",
		"echo 'x; docker login --password-stdin <<< DockPw1": "docker [REDACTED: " + notParsed + "]",
		"cat <<EOF\nnot a secret":                            "cat <<EOF\nnot a secret",
		"grep -c ok <<< \"$out\"":                            "grep -c ok <<< \"$out\"",
		"wc -l <<EOF\nhello\nEOF":                            "wc -l <<EOF\nhello\nEOF",
		"ssh-add - <<'K'\nline1\nline2\nK\necho done":        "ssh-add - <<'K'\n[REDACTED]\nK\necho done",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q)\n = %q\nwant %q", in, got, want)
		}
	}
}
