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
	b := &sshBench{cfg: cfg, rep: rep, srv: srv, w: w}
	defer b.close()
	if err := b.measureMemory(ctx); err != nil {
		return err
	}
	if err := b.compareWaits(ctx); err != nil {
		return err
	}
	return b.compareRuns(ctx)
}

// sshHosts is how many hosts section 8 connects tmuxmcp to.
const sshHosts = 5

// sshSection names section 8's rows.
const sshSection = "8 ssh"

// sshBench is section 8 under way: the private sshd, the local world, and
// what has been set up on the way (each nil or empty until it is).
type sshBench struct {
	cfg        config
	rep        *report
	srv        *sshtest.Server
	w          *world
	sockets    []string  // the hosts' tmux server sockets, box0's first
	c          *client   // tmuxmcp connected to every host
	remotePane string    // a pane on box0
	conn       *host.SSH // this program's own connection to box0
	rc         *client   // c, its calls going to box0
}

// close ends what the section set up, the last first: the connection to
// box0, tmuxmcp, and the hosts' tmux servers.
func (b *sshBench) close() {
	if b.conn != nil {
		b.conn.Close()
	}
	if b.c != nil {
		b.c.close()
	}
	for _, s := range b.sockets {
		b.srv.KillTmux(s)
	}
}

// measureMemory measures tmuxmcp's RSS with no host, then connected to
// sshHosts hosts with one pane each, and reports the cost per host. It
// leaves that tmuxmcp running as b.c.
func (b *sshBench) measureMemory(ctx context.Context) error {
	// Memory first: the process with no host, then with 5.
	c0, err := b.w.startMCP(ctx, nil)
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
	var args []string
	for i := 0; i < sshHosts; i++ {
		bs := make([]byte, 6)
		_, _ = rand.Read(bs)
		sock := "tmuxmcp-bench-" + hex.EncodeToString(bs)
		b.sockets = append(b.sockets, sock)
		args = append(args, "--host", fmt.Sprintf("box%d=%s?socket=%s", i, b.srv.URL(), sock))
	}
	c, err := b.w.startMCP(ctx, nil, append([]string{"--ssh-config", b.srv.ConfigFile}, args...)...)
	if err != nil {
		return err
	}
	b.c = c
	for i := 0; i < sshHosts; i++ {
		lp, err := c.onHost(fmt.Sprintf("box%d", i)).call(ctx, "list_panes", map[string]any{})
		if err != nil {
			return err
		}
		if ps, _ := lp["panes"].([]any); len(ps) > 0 && i == 0 {
			b.remotePane, _ = ps[0].(map[string]any)["paneId"].(string)
		}
	}
	time.Sleep(time.Second)
	full, err := rss(c.pid())
	if err != nil {
		return err
	}
	per := float64(full-base) / sshHosts
	b.rep.add(row{sshSection, fmt.Sprintf("RSS with %d connected hosts (one pane each)", sshHosts), mib(full), "no host " + mib(base), fmt.Sprintf("+%.1f MiB per host", per/(1<<20)), "≤ 4 MiB per host", verdict(per <= 4<<20)})
	return nil
}

// compareWaits measures wait_for_text for the same emitter on a local pane
// and on box0's pane.
func (b *sshBench) compareWaits(ctx context.Context) error {
	// Latency: the same emitter on a local pane and on box0's pane.
	local, err := b.w.shellPane(ctx)
	if err != nil {
		return err
	}
	wl, _, err := b.w.measureWait(ctx, b.c, local, "L", b.cfg.n, b.cfg.every)
	if err != nil {
		return fmt.Errorf("local wait: %w", err)
	}
	b.conn = host.New(host.Spec{Name: "box0", Addr: "127.0.0.1", Port: b.srv.Port, User: b.srv.User}, host.Options{ConfigFile: b.srv.ConfigFile, ControlDir: filepath.Join(b.w.tmp, "ssh")})
	rw := &world{cfg: b.cfg, target: tmux.Target{SocketName: b.sockets[0], Via: b.conn}, stop: func() {}, tmp: b.w.tmp}
	b.rc = b.c.onHost("box0")
	wr, _, err := rw.measureWait(ctx, b.rc, b.remotePane, "R", b.cfg.n, b.cfg.every)
	if err != nil {
		return fmt.Errorf("remote wait: %w", err)
	}
	wl.name, wr.name = "wait_for_text, local pane", "wait_for_text, pane on an SSH host"
	b.rep.add(row{sshSection, wl.name, wl.summary(), "—", "1.00", "", ""})
	b.rep.add(row{sshSection, wr.name, wr.summary(), "local p50 " + msf(wl.p(0.5)), fmt.Sprintf("p50 +%s ms", msf(wr.p(0.5)-wl.p(0.5))), "p50 ≤ local + 2 ms", verdict(wr.p(0.5)-wl.p(0.5) <= 2*time.Millisecond)})
	return nil
}

// compareRuns measures run_shell_command true on a new local pane and on
// box0's pane.
func (b *sshBench) compareRuns(ctx context.Context) error {
	// run_shell_command true, local pane and remote pane.
	lp, err := b.c.newShell(ctx)
	if err != nil {
		return err
	}
	rl, err := b.c.runs(ctx, "run_shell_command true, local pane (bash)", b.cfg.n, map[string]any{"paneId": lp, "command": "true"})
	if err != nil {
		return err
	}
	rr, err := b.rc.runs(ctx, "run_shell_command true, pane on an SSH host (bash)", b.cfg.n, map[string]any{"paneId": b.remotePane, "command": "true"})
	if err != nil {
		return err
	}
	b.rep.add(row{sshSection, rl.name, rl.summary(), "—", "1.00", "", ""})
	b.rep.add(row{sshSection, rr.name, rr.summary(), "local p50 " + msf(rl.p(0.5)), fmt.Sprintf("%.1f× local (p50)", ratio(rr.p(0.5), rl.p(0.5))), "p50 ≤ 50 ms", verdict(rr.p(0.5) <= 50*time.Millisecond)})
	return nil
}
