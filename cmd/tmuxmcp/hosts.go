package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tmuxmcp/tmuxmcp/engine"
	"github.com/tmuxmcp/tmuxmcp/host"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// hostFlags is the repeatable --host NAME=ssh://[user@]host[:port] flag.
type hostFlags struct{ specs host.Specs }

func (f *hostFlags) String() string {
	var s []string
	for _, h := range f.specs {
		s = append(s, h.Name+"="+h.URL())
	}
	return strings.Join(s, " ")
}

func (f *hostFlags) Set(v string) error {
	s, err := host.ParseSpec(v)
	if err != nil {
		return err
	}
	return f.specs.Add(s)
}

// fileConfig is the --config file: {"hosts": {"NAME": "ssh://[user@]host[:port]"}}.
type fileConfig struct {
	Hosts map[string]string `json:"hosts"`
}

// loadConfig adds the hosts of the --config file to specs (a name given
// both there and with --host is refused, like any duplicate).
func loadConfig(path string, specs *host.Specs) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("--config %s: %w", path, err)
	}
	var fc fileConfig
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&fc); err != nil {
		return fmt.Errorf("--config %s: %v: write it as {\"hosts\": {\"build\": \"ssh://ci@build.example.com\"}}", path, err)
	}
	for _, name := range slices.Sorted(maps.Keys(fc.Hosts)) {
		s, err := host.ParseSpec(name + "=" + fc.Hosts[name])
		if err != nil {
			return fmt.Errorf("--config %s: hosts: %w", path, err)
		}
		if err := specs.Add(s); err != nil {
			return fmt.Errorf("--config %s: %w", path, err)
		}
	}
	return nil
}

// remoteHost is one configured host: its connection and how its tools
// start.
type remoteHost struct {
	conn   *host.SSH
	remote *engine.Remote
}

// remoteHosts prepares every configured host; nothing connects yet.
func remoteHosts(c *config, stateDir string, opts engine.Config, log *slog.Logger) []remoteHost {
	var out []remoteHost
	for _, spec := range c.hosts.specs {
		conn := host.New(spec, host.Options{ConfigFile: c.sshConfig, ControlDir: filepath.Join(stateDir, "ssh"), Log: log})
		dir := filepath.Join(stateDir, "hosts", spec.Name)
		r := &engine.Remote{Name: spec.Name, JobsDir: filepath.Join(dir, "jobs"), Start: func(ctx context.Context) (*engine.Host, error) {
			return startRemote(ctx, c, spec, conn, dir, opts, log.With("host", spec.Name))
		}}
		out = append(out, remoteHost{conn: conn, remote: r})
	}
	return out
}

// startRemote connects to a host, starts (or reuses) its private tmux
// server with the session, and starts its tools.
func startRemote(ctx context.Context, c *config, spec host.Spec, conn *host.SSH, dir string, opts engine.Config, log *slog.Logger) (*engine.Host, error) {
	ctx, cancel := context.WithTimeout(ctx, host.ConnectTimeout+10e9)
	defer cancel()
	if err := conn.Connect(ctx); err != nil {
		return nil, err
	}
	target := tmux.Target{SocketName: spec.Socket, Via: conn}
	if _, err := target.Version(ctx); err != nil {
		return nil, fmt.Errorf("tmux does not run on host %s (%v): install tmux 3.2 or newer there", spec.Name, err)
	}
	integ, err := conn.Integration(ctx)
	if err != nil {
		return nil, err
	}
	ensure := func(ctx context.Context) error { return c.firstPane(integ, nil).Ensure(ctx, target) }
	if err := ensure(ctx); err != nil {
		return nil, fmt.Errorf("host %s: %w", spec.Name, err)
	}
	o := opts
	o.Host, o.Machine, o.Shell, o.StateDir, o.RestartServer = spec.Name, conn, integ, dir, ensure
	o.Target, o.Retain, o.RetainTotal, o.Log = target, c.retain, c.retainAll, log
	h, err := engine.OpenHost(ctx, o)
	if err != nil {
		return nil, fmt.Errorf("host %s: %w", spec.Name, err)
	}
	log.Info("host connected", "url", spec.URL(), "watch", "ssh -t "+conn.Login()+" tmux -L "+spec.Socket+" attach -t "+c.session)
	return h, nil
}
