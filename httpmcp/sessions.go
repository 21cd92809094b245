package httpmcp

import (
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionIDHeader carries a Streamable HTTP session's id.
const sessionIDHeader = "Mcp-Session-Id"

// evictWait is how long a new session waits for the one it replaces to
// close.
const evictWait = time.Second

// retryWhenBusy is the Retry-After of a refused session when every
// session has a request in flight.
const retryWhenBusy = 30 * time.Second

// sessionCap bounds the live HTTP sessions at cfg.MaxSessions. A request
// that would open one more session past the cap evicts the least recently
// active session with no request in flight (an open GET stream counts as
// one) that has been idle for cfg.EvictIdle; if there is none, it gets 503
// with a Retry-After.
type sessionCap struct {
	server *mcp.Server
	next   http.Handler
	max    int
	idle   time.Duration // evictable after this long idle
	close  time.Duration // the SDK closes sessions idle this long (0: never)
	now    func() time.Time
	log    *slog.Logger

	mu       sync.Mutex
	pending  int                    // new-session requests whose session id is not known yet
	uses     map[string]*sessionUse // by session id; live sessions and ones closed since the last admit
	lastWarn time.Time              // when a refusal was last logged at Warn
}

// sessionUse is what sessionCap knows of one session.
type sessionUse struct {
	last     time.Time // the last request's start or end
	inFlight int       // requests being served
	evicted  bool      // closed to admit another; no longer counted
}

func newSessionCap(server *mcp.Server, cfg Config, next http.Handler) *sessionCap {
	return &sessionCap{server: server, next: next, max: cfg.MaxSessions, idle: cfg.EvictIdle, close: cfg.SessionTimeout, now: cfg.Now, log: cfg.Log, uses: map[string]*sessionUse{}}
}

// ServeHTTP serves r, refusing it if it would open a session past the cap.
func (c *sessionCap) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if id := r.Header.Get(sessionIDHeader); id != "" {
		c.begin(id)
		defer c.end(id)
		c.next.ServeHTTP(w, r)
		return
	}
	if r.Method != http.MethodPost { // the SDK refuses it
		c.next.ServeHTTP(w, r)
		return
	}
	victim, retry, ok := c.admit()
	if !ok {
		c.refuse(w, retry)
		return
	}
	if victim != nil {
		// Close waits for the victim's handlers (a call whose client went
		// away may still run); the new session waits a moment at most.
		closed := make(chan struct{})
		go func() {
			_ = victim.Close()
			close(closed)
		}()
		t := time.NewTimer(evictWait)
		select {
		case <-closed:
		case <-t.C:
		}
		t.Stop()
	}
	sw := &sessionWriter{ResponseWriter: w, seen: func(h http.Header) { c.opened(h.Get(sessionIDHeader)) }}
	defer func() {
		if id := sw.finish(); id != "" {
			c.end(id)
		}
	}()
	c.next.ServeHTTP(sw, r)
}

// begin notes a request for session id starting.
func (c *sessionCap) begin(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if u := c.uses[id]; u != nil && !u.evicted {
		u.inFlight++
		u.last = c.now()
	}
}

// end notes a request for session id ending.
func (c *sessionCap) end(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if u := c.uses[id]; u != nil && !u.evicted && u.inFlight > 0 {
		u.inFlight--
		u.last = c.now()
	}
}

// opened turns a pending new-session request into session id, with this
// request in flight. The SDK has connected the session before it writes
// the response's headers.
func (c *sessionCap) opened(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending--
	if id != "" {
		c.uses[id] = &sessionUse{last: c.now(), inFlight: 1}
	}
}

// admit reserves room for one more session; the session it returns, if
// any, was chosen to make room and is for the caller to close. If there
// is no room, it returns how long until there may be.
func (c *sessionCap) admit() (victim *mcp.ServerSession, retry time.Duration, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	live := map[string]*mcp.ServerSession{}
	for ss := range c.server.Sessions() {
		live[ss.ID()] = ss
	}
	count := c.pending
	for id, u := range c.uses {
		switch {
		case live[id] == nil:
			delete(c.uses, id) // closed: by its client, the idle timeout or eviction
		case !u.evicted:
			count++
		}
	}
	for id := range live {
		if c.uses[id] == nil {
			count++ // being opened: counted, never evicted
		}
	}
	if count < c.max {
		c.pending++
		return nil, 0, true
	}
	now := c.now()
	var oldest string
	soonest := time.Duration(math.MaxInt64)
	for id, u := range c.uses {
		if u.evicted || u.inFlight > 0 {
			continue
		}
		idle := now.Sub(u.last)
		if idle >= c.idle && (oldest == "" || u.last.Before(c.uses[oldest].last)) {
			oldest = id
		}
		wait := c.idle - idle
		if c.close > 0 {
			wait = min(wait, c.close-idle)
		}
		soonest = min(soonest, wait)
	}
	if oldest == "" {
		if soonest == time.Duration(math.MaxInt64) {
			return nil, retryWhenBusy, false
		}
		return nil, max(soonest, time.Second), false
	}
	u := c.uses[oldest]
	u.evicted = true
	c.pending++
	c.log.Info("closing the least recently active HTTP session to admit a new one (--max-sessions)", "session", oldest, "idle", now.Sub(u.last).Round(time.Second), "max", c.max)
	return live[oldest], 0, true
}

// refuse answers a new-session request past the cap.
func (c *sessionCap) refuse(w http.ResponseWriter, retry time.Duration) {
	secs := int(math.Ceil(retry.Seconds()))
	c.mu.Lock()
	warn := c.lastWarn.IsZero() || c.now().Sub(c.lastWarn) >= time.Minute
	if warn {
		c.lastWarn = c.now()
	}
	c.mu.Unlock()
	if warn {
		c.log.Warn("refused a new HTTP session: --max-sessions reached and no session idle long enough to close", "max", c.max, "evictableAfter", c.idle)
	}
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusServiceUnavailable)
	writeJSONRPCError(w, fmt.Sprintf("Service Unavailable: tmuxmcp already serves %d HTTP sessions (--max-sessions %d) and none has been idle for %v; retry in %d s, end sessions you no longer use (DELETE /mcp), or start tmuxmcp with a larger --max-sessions", c.max, c.max, c.idle, secs))
}

// sessionWriter tells sessionCap the new session's id when the SDK
// starts its response.
type sessionWriter struct {
	http.ResponseWriter
	seen func(http.Header)
	done bool
	id   string
}

func (w *sessionWriter) started() {
	if !w.done {
		w.done = true
		w.id = w.Header().Get(sessionIDHeader)
		w.seen(w.Header())
	}
}

// finish returns the session id seen, if any, and releases the pending
// slot if the response never started.
func (w *sessionWriter) finish() string {
	if !w.done {
		w.started()
	}
	return w.id
}

// WriteHeader notes the session id, then writes the header.
func (w *sessionWriter) WriteHeader(code int) {
	w.started()
	w.ResponseWriter.WriteHeader(code)
}

// Write notes the session id, then writes b.
func (w *sessionWriter) Write(b []byte) (int, error) {
	w.started()
	return w.ResponseWriter.Write(b)
}

// Flush passes on to the underlying writer (SSE streams flush).
func (w *sessionWriter) Flush() {
	w.started()
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap gives http.ResponseController the underlying writer.
func (w *sessionWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
