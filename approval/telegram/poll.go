package telegram

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tmuxmcp/tmuxmcp/private"
)

// longPoll is the longest one getUpdates call waits for a press.
const longPoll = 25 * time.Second

// Telegram serves a bot's updates to one getUpdates caller at a time, and
// each call's offset drops the updates before it for every caller. So
// when several requests are open (one per host), the approvers take turns
// through a lock in Dir: the one holding it polls for all, answers its own
// presses, and hands every other request's press to the named pipe that
// request's approver reads (its mailbox). A press for a request no
// approver waits for any more is told the request is over.

// mailbox is the named pipe Dir/NONCE.pipe through which the approver
// polling for the bot hands this request's presses over.
type mailbox struct {
	path    string
	f       *os.File
	presses chan callbackQuery
}

// openMailbox makes the request's pipe and reads it.
func openMailbox(dir, nonce string) (*mailbox, error) {
	path := filepath.Join(dir, nonce+".pipe")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		return nil, fmt.Errorf("make the request's pipe: %w", &fs.PathError{Op: "mkfifo", Path: path, Err: err})
	}
	// Read and write: opening does not wait for a writer, and the pipe
	// stays open between writers.
	f, err := os.OpenFile(path, os.O_RDWR|syscall.O_NOFOLLOW, 0)
	if err != nil {
		_ = os.Remove(path)
		return nil, fmt.Errorf("open the request's pipe: %w", err)
	}
	m := &mailbox{path: path, f: f, presses: make(chan callbackQuery, 8)}
	go m.read()
	return m, nil
}

func (m *mailbox) read() {
	sc := bufio.NewScanner(m.f)
	for sc.Scan() {
		var q callbackQuery
		if json.Unmarshal(sc.Bytes(), &q) == nil {
			select {
			case m.presses <- q:
			default: // the first presses are enough
			}
		}
	}
}

// close removes the pipe: a press handed on later finds no one.
func (m *mailbox) close() {
	_ = os.Remove(m.path)
	_ = m.f.Close()
}

// deliver hands q to the mailbox of the request its data names, and
// reports whether an approver waits there.
func deliver(dir string, q callbackQuery) bool {
	nonce, ok := nonceOf(q.Data)
	if !ok {
		return false
	}
	path := filepath.Join(dir, nonce+".pipe")
	if st, err := os.Lstat(path); err != nil || st.Mode().Type() != fs.ModeNamedPipe {
		return false
	}
	f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if errors.Is(err, syscall.ENXIO) { // no reader: its approver was stopped
		_ = os.Remove(path)
		return false
	}
	if err != nil {
		return false
	}
	defer f.Close()
	line, _ := json.Marshal(q)
	_, err = f.Write(append(line, '\n')) // one write under PIPE_BUF: whole or not at all
	return err == nil
}

// nonceOf is the request nonce of a button's data, checked to be one
// Ask makes (it names a file).
func nonceOf(data string) (string, bool) {
	_, nonce, ok := strings.Cut(data, ":")
	if !ok || (!strings.HasPrefix(data, approvePrefix) && !strings.HasPrefix(data, denyPrefix)) || len(nonce) != 26 {
		return "", false
	}
	for _, r := range nonce {
		if !(r >= 'A' && r <= 'Z' || r >= '2' && r <= '7') {
			return "", false
		}
	}
	return nonce, true
}

// waiter waits for the first press on one request's buttons.
type waiter struct {
	bot   *bot
	dir   string
	nonce string
	chats []int64
	box   *mailbox
}

// ours reports whether q is a press on this request's buttons.
func (w *waiter) ours(q callbackQuery) bool {
	return q.Data == approvePrefix+w.nonce || q.Data == denyPrefix+w.nonce
}

// wait returns the first press on the request's buttons, from its
// mailbox or, once it holds the poll lock, from getUpdates; ctx ending
// first is its error.
func (w *waiter) wait(ctx context.Context) (*callbackQuery, error) {
	locked, abandon := lockPolling(filepath.Join(w.dir, botID(w.bot.token)+".lock"))
	defer close(abandon)
	for {
		select {
		case q := <-w.box.presses:
			if w.ours(q) {
				return &q, nil
			}
		case l := <-locked:
			if l.err != nil {
				return nil, l.err
			}
			defer l.f.Close() // unlocks
			return w.poll(ctx)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// lock is the poll lock, held while f is open, or why it could not be had.
type lock struct {
	f   *os.File
	err error
}

// lockPolling takes the lock file path in a goroutine of its own and
// hands it over on the channel; closing abandon gives up waiting (a lock
// taken after that is let go at once).
func lockPolling(path string) (<-chan lock, chan struct{}) {
	got, abandon := make(chan lock), make(chan struct{})
	go func() {
		f, err := private.OpenFile(path, os.O_CREATE|os.O_RDWR)
		if err == nil {
			if err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
				f.Close()
			}
		}
		if err != nil {
			err = fmt.Errorf("the poll lock %s: %w", path, err)
			f = nil
		}
		select {
		case got <- lock{f: f, err: err}:
		case <-abandon:
			if f != nil {
				f.Close()
			}
		}
	}()
	return got, abandon
}

// poll long-polls getUpdates for the bot while holding the poll lock:
// this request's first press is returned, every other request's press is
// handed to its mailbox, and the offset is kept in Dir for the next
// approver. A getUpdates failure ends the wait with its error.
func (w *waiter) poll(ctx context.Context) (*callbackQuery, error) {
	offsetFile := filepath.Join(w.dir, botID(w.bot.token)+".offset")
	offset := readOffset(offsetFile)
	for {
		select { // handed over before the lock was ours
		case q := <-w.box.presses:
			if w.ours(q) {
				return &q, nil
			}
		default:
		}
		wait := longPoll
		if d, ok := ctx.Deadline(); ok {
			wait = min(wait, time.Until(d))
		}
		us, err := w.bot.updates(ctx, offset, max(1, int(wait/time.Second)))
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, err
		}
		var mine *callbackQuery
		for _, u := range us {
			offset = max(offset, u.UpdateID+1)
			switch q := u.CallbackQuery; {
			case q == nil:
			case w.ours(*q):
				if mine == nil {
					mine = q
				}
			case !deliver(w.dir, *q):
				_ = w.bot.answer(ctx, q.ID, "This request is over: the button does nothing now.")
			}
		}
		_ = private.WriteFile(offsetFile, []byte(strconv.FormatInt(offset, 10)+"\n"))
		if mine != nil {
			return mine, nil
		}
	}
}

// readOffset is the update offset kept in path, or 0.
func readOffset(path string) int64 {
	f, err := private.OpenFile(path, os.O_RDONLY)
	if err != nil {
		return 0
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, 64))
	n, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return n
}
