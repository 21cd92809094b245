package httpmcp

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Origins is a flag.Value for tmuxmcp's --allow-origin: origins
// (scheme://host[:port]) served besides the server's own, given
// repeatedly or comma-separated. Config.AllowOrigins takes it as is.
type Origins []string

// String returns the origins, comma-separated.
func (o *Origins) String() string { return strings.Join(*o, ",") }

// Set adds the comma-separated origins in v, normalised to lower case.
func (o *Origins) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		norm, err := parseOrigin(s)
		if err != nil {
			return err
		}
		*o = append(*o, norm)
	}
	return nil
}

// parseOrigin checks that s is scheme://host[:port] with scheme http or
// https and returns it in lower case.
func parseOrigin(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("%q is not an origin: give scheme://host[:port], e.g. https://app.example:8443, as the browser sends it in its Origin header", s)
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), nil
}

// originAllowed reports whether a request carrying Origin origin may be
// served: the origin is tmuxmcp's own (its host and port are the
// request's Host), a loopback origin on the port tmuxmcp listens on, or
// one of allowed.
func originAllowed(r *http.Request, origin string, allowed []string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if slices.Contains(allowed, strings.ToLower(u.Scheme+"://"+u.Host)) {
		return true
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if !strings.EqualFold(u.Scheme, scheme) {
		return false
	}
	port := u.Port()
	if port == "" {
		port = defaultPort(scheme)
	}
	host, hostPort, err := net.SplitHostPort(r.Host)
	if err != nil {
		host, hostPort = r.Host, defaultPort(scheme)
	}
	if strings.EqualFold(u.Hostname(), strings.Trim(host, "[]")) && port == hostPort {
		return true
	}
	if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && loopbackHost(u.Hostname()) {
		if _, localPort, err := net.SplitHostPort(local.String()); err == nil && port == localPort {
			return true
		}
	}
	return false
}

func defaultPort(scheme string) string {
	if scheme == "https" {
		return "443"
	}
	return "80"
}
