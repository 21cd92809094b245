// Package host reaches the machines tmuxmcp drives over OpenSSH: it parses
// --host specs, keeps one OpenSSH connection per host (a ControlMaster
// whose socket lives in the state directory; BatchMode, so nothing ever
// waits for a password or a host-key answer), runs tmux there for package
// tmux (a tmux.Transport), and is the remote machine.Machine: the probes of
// a pane's terminal, signals, and the job scripts and shell integration
// delivered into a private directory on the host. It knows nothing of MCP,
// streams or jobs (job records); host-key checking and authentication are
// OpenSSH's, configured as the user configures ssh.
package host

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// Local is the name of the machine tmuxmcp runs on, the default host.
const Local = "local"

// Spec is one configured host: --host NAME=ssh://[user@]host[:port].
type Spec struct {
	// Name is what tool calls pass as host.
	Name string
	// User logs in (ssh -l); "" leaves it to ssh (its config, else the
	// local user name).
	User string
	// Addr is the host name or address ssh connects to (an alias of the
	// user's ~/.ssh/config works too).
	Addr string
	// Port is ssh -p; 0 leaves it to ssh.
	Port int
	// Socket is the remote tmux server's socket name (tmux -L), from the
	// URL's ?socket=NAME; default "tmuxmcp", a private server.
	Socket string
}

// DefaultSocket is the tmux socket name on a remote host (tmux -L).
const DefaultSocket = "tmuxmcp"

var (
	nameRE   = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,31}$`)
	socketRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)
	userRE   = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$`)
	addrRE   = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,253}$`)
)

// ParseSpec parses NAME=ssh://[user@]host[:port][?socket=NAME]. Errors
// say what is wrong and how to write it.
func ParseSpec(v string) (Spec, error) {
	const form = "write it as NAME=ssh://[user@]host[:port], e.g. build=ssh://ci@build.example.com:2222"
	name, raw, ok := strings.Cut(v, "=")
	if !ok {
		return Spec{}, fmt.Errorf("%q has no NAME=: %s", v, form)
	}
	if name == Local {
		return Spec{}, fmt.Errorf("%q: the name %q is this machine and cannot be redefined; pick another name", v, Local)
	}
	if !nameRE.MatchString(name) {
		return Spec{}, fmt.Errorf("%q: host name %q must be 1-32 lower-case letters, digits, - or _, starting with a letter or digit", v, name)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return Spec{}, fmt.Errorf("%q: %v: %s", v, err, form)
	}
	if u.Scheme != "ssh" {
		return Spec{}, fmt.Errorf("%q: scheme %q is not ssh: %s", v, u.Scheme, form)
	}
	if u.Opaque != "" || u.Host == "" {
		return Spec{}, fmt.Errorf("%q: no host after ssh://: %s", v, form)
	}
	if u.Path != "" && u.Path != "/" || u.Fragment != "" {
		return Spec{}, fmt.Errorf("%q: a path or #fragment is not allowed: %s", v, form)
	}
	s := Spec{Name: name, Addr: u.Hostname(), Socket: DefaultSocket}
	if u.User != nil {
		if _, hasPass := u.User.Password(); hasPass {
			return Spec{}, fmt.Errorf("%q: a password in the URL is refused (tmuxmcp never sends one): use a key, an agent or your ~/.ssh/config", v)
		}
		s.User = u.User.Username()
		if !userRE.MatchString(s.User) {
			return Spec{}, fmt.Errorf("%q: user name %q is not a login name: %s", v, s.User, form)
		}
	}
	if !addrRE.MatchString(s.Addr) || strings.HasPrefix(s.Addr, "-") {
		return Spec{}, fmt.Errorf("%q: host %q is not a host name or address: %s", v, s.Addr, form)
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return Spec{}, fmt.Errorf("%q: port %q must be 1..65535", v, p)
		}
		s.Port = n
	}
	for k, vals := range u.Query() {
		switch {
		case k == "socket" && len(vals) == 1 && socketRE.MatchString(vals[0]):
			s.Socket = vals[0]
		case k == "socket":
			return Spec{}, fmt.Errorf("%q: socket=%q must be one tmux socket name of letters, digits, '.', '-' or '_'", v, strings.Join(vals, ","))
		default:
			return Spec{}, fmt.Errorf("%q: unknown option %q: the only one is ?socket=NAME (the remote tmux -L name)", v, k)
		}
	}
	return s, nil
}

// URL writes the spec back as ssh://[user@]host[:port][?socket=NAME].
func (s Spec) URL() string {
	u := url.URL{Scheme: "ssh", Host: s.Addr}
	if s.Port != 0 {
		u.Host = s.Addr + ":" + strconv.Itoa(s.Port)
	}
	if s.User != "" {
		u.User = url.User(s.User)
	}
	if s.Socket != "" && s.Socket != DefaultSocket {
		u.RawQuery = "socket=" + s.Socket
	}
	return u.String()
}

// Specs are the configured hosts, in the order given.
type Specs []Spec

// Add appends one parsed spec; a name given twice is refused.
func (ss *Specs) Add(s Spec) error {
	for _, o := range *ss {
		if o.Name == s.Name {
			return fmt.Errorf("host %q is defined twice (%s and %s): give each host one name", s.Name, o.URL(), s.URL())
		}
	}
	*ss = append(*ss, s)
	return nil
}
