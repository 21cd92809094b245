package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tmuxmcp/tmuxmcp/host"
	"github.com/tmuxmcp/tmuxmcp/internal/sshtest"
	"github.com/tmuxmcp/tmuxmcp/tmux"
)

// sectionSSH is section 8: the same wait and run round trips on a host
// reached over SSH (a private sshd on 127.0.0.1, so the link itself costs
// next to nothing and what is measured is tmuxmcp's own remote path),
// against the local pane in the same run; and the memory each connected
// host costs, with 5 hosts.
func sectionSSH(ctx context.Context, cfg config, rep *report) error {
	if _, err := os.Stat("/usr/sbin/sshd"); err != nil {
		rep.note("8 ssh: skipped, sshd is not installed (apt-get install openssh-server)")
		return nil
	}
	srv, err := sshtest.New()
	if err != nil {
		return err
	}
	defer srv.Close()
	w, err := newWorld(ctx, cfg)
	if err != nil {
		return err
	}
	defer w.close()
	// Memory first: the process with no host, then with 5.
	c0, err := w.startMCP(ctx, nil)
	if err != nil {
		return err
	}
	if _, err := c0.call(ctx, "list_panes", map[string]any{}); err != nil {
		return err
	}
	time.Sleep(time.Second)
	base, err := rss(c0.pid())
	c0.close()
	if err != nil {
		return err
	}
	const hosts = 5
	var args, sockets []string
	for i := 0; i < hosts; i++ {
		b := make([]byte, 6)
		_, _ = rand.Read(b)
		sock := "tmuxmcp-bench-" + hex.EncodeToString(b)
		sockets = append(sockets, sock)
		args = append(args, "--host", fmt.Sprintf("box%d=%s?socket=%s", i, srv.URL(), sock))
	}
	defer func() {
		for _, s := range sockets {
			srv.KillTmux(s)
		}
	}()
	c, err := w.startMCP(ctx, nil, append([]string{"--ssh-config", srv.ConfigFile}, args...)...)
	if err != nil {
		return err
	}
	defer c.close()
	remotePane := ""
	for i := 0; i < hosts; i++ {
		lp, err := c.onHost(fmt.Sprintf("box%d", i)).call(ctx, "list_panes", map[string]any{})
		if err != nil {
			return err
		}
		if ps, _ := lp["panes"].([]any); len(ps) > 0 && i == 0 {
			remotePane, _ = ps[0].(map[string]any)["paneId"].(string)
		}
	}
	time.Sleep(time.Second)
	full, err := rss(c.pid())
	if err != nil {
		return err
	}
	const sec = "8 ssh"
	per := float64(full-base) / hosts
	rep.add(row{sec, fmt.Sprintf("RSS with %d connected hosts (one pane each)", hosts), mib(full), "no host " + mib(base), fmt.Sprintf("+%.1f MiB per host", per/(1<<20)), "≤ 4 MiB per host", verdict(per <= 4<<20)})

	// Latency: the same emitter on a local pane and on box0's pane.
	local, err := w.shellPane(ctx)
	if err != nil {
		return err
	}
	wl, _, err := w.measureWait(ctx, c, local, "L", cfg.n, cfg.every)
	if err != nil {
		return fmt.Errorf("local wait: %w", err)
	}
	conn := host.New(host.Spec{Name: "box0", Addr: "127.0.0.1", Port: srv.Port, User: srv.User}, host.Options{ConfigFile: srv.ConfigFile, ControlDir: filepath.Join(w.tmp, "ssh")})
	defer conn.Close()
	rw := &world{cfg: cfg, target: tmux.Target{SocketName: sockets[0], Via: conn}, stop: func() {}, tmp: w.tmp}
	rc := c.onHost("box0")
	wr, _, err := rw.measureWait(ctx, rc, remotePane, "R", cfg.n, cfg.every)
	if err != nil {
		return fmt.Errorf("remote wait: %w", err)
	}
	wl.name, wr.name = "wait_for_text, local pane", "wait_for_text, pane on an SSH host"
	rep.add(row{sec, wl.name, wl.summary(), "—", "1.00", "", ""})
	rep.add(row{sec, wr.name, wr.summary(), "local p50 " + msf(wl.p(0.5)), fmt.Sprintf("p50 +%s ms", msf(wr.p(0.5)-wl.p(0.5))), "p50 ≤ local + 2 ms", verdict(wr.p(0.5)-wl.p(0.5) <= 2*time.Millisecond)})

	// run_shell_command true, local pane and remote pane.
	lp, err := c.newShell(ctx)
	if err != nil {
		return err
	}
	rl, err := c.runs(ctx, "run_shell_command true, local pane (bash)", cfg.n, map[string]any{"paneId": lp, "command": "true"})
	if err != nil {
		return err
	}
	rr, err := rc.runs(ctx, "run_shell_command true, pane on an SSH host (bash)", cfg.n, map[string]any{"paneId": remotePane, "command": "true"})
	if err != nil {
		return err
	}
	rep.add(row{sec, rl.name, rl.summary(), "—", "1.00", "", ""})
	rep.add(row{sec, rr.name, rr.summary(), "local p50 " + msf(rl.p(0.5)), fmt.Sprintf("%.1f× local (p50)", ratio(rr.p(0.5), rl.p(0.5))), "p50 ≤ 50 ms", verdict(rr.p(0.5) <= 50*time.Millisecond)})
	return nil
}
