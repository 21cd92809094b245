// Package replay is how `tmuxmcp record` reaches the tmuxmcp that records
// a pane: the recordings live in that process's memory, so each running
// tmuxmcp serves them on a unix socket in its state directory
// (<state>/replay/<pid>.sock, in the 0700 directory, only to connections
// of the same user), and the command asks each socket there which tmux
// server it records and takes the pane's recording from the one that has
// the most of it. It serves recordings only: nothing on the socket can
// type into a pane. It knows nothing of tmux, MCP or the engine.
package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tmuxmcp/tmuxmcp/private"
)

// Record writes the recording of pane paneID ("%N") to w.
type Record func(ctx context.Context, paneID string, w io.Writer) error

// Info is what a socket says about the tmuxmcp serving it.
type Info struct {
	PID    int    `json:"pid"`
	Server string `json:"server"` // the tmux server it records, as Serve was told
}

// Dir is the directory of the sockets under a state directory.
func Dir(stateDir string) string { return filepath.Join(stateDir, "replay") }

// maxSocketPath is the longest path a unix socket can be bound to.
const maxSocketPath = 107

// Serve serves record on a socket in Dir(stateDir) until the returned
// stop is called (which removes the socket). server names the tmux server
// recorded, in the form the command compares (see Fetch).
func Serve(stateDir, server string, record Record, log *slog.Logger) (stop func(), err error) {
	dir := Dir(stateDir)
	if err := private.Dir(dir); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, strconv.Itoa(os.Getpid())+".sock")
	if len(path) > maxSocketPath {
		return nil, fmt.Errorf("replay socket %s: longer than %d bytes, the most a unix socket path may be: use a shorter --state-dir", path, maxSocketPath)
	}
	_ = os.Remove(path) // a socket of an earlier process with this pid
	l, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("replay socket: %w", err)
	}
	_ = os.Chmod(path, 0o600)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /info", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(Info{PID: os.Getpid(), Server: server})
	})
	mux.HandleFunc("GET /panes/{n}/recording.cast", func(w http.ResponseWriter, r *http.Request) {
		var b bytes.Buffer
		if err := record(r.Context(), "%"+r.PathValue("n"), &b); err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/x-asciicast")
		_, _ = w.Write(b.Bytes())
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(sameUser{l.(*net.UnixListener)}); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Warn("replay socket stopped", "err", err)
		}
	}()
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		_ = os.Remove(path)
	}, nil
}

// sameUser accepts only connections of this process's user (the
// directory already keeps others out: this fails closed if it did not).
type sameUser struct{ *net.UnixListener }

func (l sameUser) Accept() (net.Conn, error) {
	for {
		c, err := l.AcceptUnix()
		if err != nil {
			return nil, err
		}
		if peerIsMe(c) {
			return c, nil
		}
		_ = c.Close()
	}
}

func peerIsMe(c *net.UnixConn) bool {
	raw, err := c.SyscallConn()
	if err != nil {
		return false
	}
	var cred *syscall.Ucred
	_ = raw.Control(func(fd uintptr) {
		cred, err = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	})
	return err == nil && cred != nil && int(cred.Uid) == os.Geteuid()
}

// ErrNoRecorder is Fetch's error when no running tmuxmcp records the
// server.
var ErrNoRecorder = errors.New("no running tmuxmcp records this tmux server")

// Fetch asks every tmuxmcp with a socket in Dir(stateDir) that records
// server for pane paneID's recording and returns the longest. A socket
// nobody listens on any more (its tmuxmcp ended without removing it) is
// removed.
func Fetch(ctx context.Context, stateDir, server, paneID string) ([]byte, error) {
	if n, ok := strings.CutPrefix(paneID, "%"); !ok || strconv.Itoa(atoi(n)) != n {
		return nil, fmt.Errorf("pane %q: give a pane id such as %%3 (list_panes, or the pane_id tmux shows)", paneID)
	}
	socks, err := filepath.Glob(filepath.Join(Dir(stateDir), "*.sock"))
	if err != nil {
		return nil, err
	}
	var best []byte
	var reasons []string
	for _, sock := range socks {
		cast, err := fetchOne(ctx, sock, server, paneID)
		switch {
		case errors.Is(err, syscall.ECONNREFUSED):
			if fi, lerr := os.Lstat(sock); lerr == nil && fi.Mode().Type() == fs.ModeSocket {
				_ = os.Remove(sock)
			}
		case errors.Is(err, errOtherServer):
		case err != nil:
			reasons = append(reasons, err.Error())
		case len(cast) > len(best):
			best = cast
		}
	}
	if best != nil {
		return best, nil
	}
	if len(reasons) > 0 {
		return nil, errors.New(strings.Join(reasons, "; "))
	}
	return nil, ErrNoRecorder
}

var errOtherServer = errors.New("records another tmux server")

func fetchOne(ctx context.Context, sock, server, paneID string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	defer client.CloseIdleConnections()
	get := func(path string) ([]byte, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://tmuxmcp"+path, nil)
		if err != nil {
			return nil, err
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err == nil && resp.StatusCode != http.StatusOK {
			err = errors.New(strings.TrimSpace(string(body)))
		}
		return body, err
	}
	body, err := get("/info")
	if err != nil {
		return nil, err
	}
	var info Info
	if err := json.Unmarshal(body, &info); err != nil {
		return nil, fmt.Errorf("%s: %w", sock, err)
	}
	if info.Server != server {
		return nil, errOtherServer
	}
	return get("/panes/" + strings.TrimPrefix(paneID, "%") + "/recording.cast")
}

// atoi is n as a non-negative number, or -1.
func atoi(n string) int {
	v, err := strconv.Atoi(n)
	if err != nil || v < 0 {
		return -1
	}
	return v
}
