// Package asciicast writes and reads asciicast v2 recordings, the format
// `asciinema play` plays: a JSON header line, then one JSON array per
// event — [seconds, "o", text] for output and [seconds, "m", label] for a
// marker (asciinema 2.2 and later). Output is cut on UTF-8 boundaries, so
// a character split across two writes stays whole, and bytes that are not
// UTF-8 become U+FFFD. It knows nothing of tmux, MCP, streams or jobs.
package asciicast

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Header is a recording's first line.
type Header struct {
	Width, Height int       // the terminal's size, in cells
	Timestamp     time.Time // when the recording starts; zero: left out
	Title         string    // "": left out
	// IdleTimeLimit, when set, tells players to shorten pauses longer than
	// it (the event times stay as recorded).
	IdleTimeLimit time.Duration
	Env           map[string]string // nil: left out
}

// wireHeader is Header as asciicast v2 spells it.
type wireHeader struct {
	Version       int               `json:"version"`
	Width         int               `json:"width"`
	Height        int               `json:"height"`
	Timestamp     int64             `json:"timestamp,omitempty"`
	IdleTimeLimit float64           `json:"idle_time_limit,omitempty"`
	Title         string            `json:"title,omitempty"`
	Env           map[string]string `json:"env,omitempty"`
}

// Event codes.
const (
	Output = "o" // what the terminal printed
	Marker = "m" // a point of interest, with a label
)

// Event is one event line: Time seconds after the start.
type Event struct {
	Time float64
	Code string // Output or Marker (players skip codes they do not know)
	Data string
}

// Writer writes one recording. Event times never go backwards: a time
// before the last one is written as the last one.
type Writer struct {
	w       *bufio.Writer
	last    time.Duration
	pending []byte // the start of a character whose rest has not come yet
	err     error
}

// NewWriter writes h to w and returns the writer of the events.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	if h.Width < 1 || h.Height < 1 {
		return nil, fmt.Errorf("asciicast: size %dx%d: width and height must be at least 1", h.Width, h.Height)
	}
	wh := wireHeader{Version: 2, Width: h.Width, Height: h.Height, Title: h.Title, Env: h.Env,
		IdleTimeLimit: h.IdleTimeLimit.Seconds()}
	if !h.Timestamp.IsZero() {
		wh.Timestamp = h.Timestamp.Unix()
	}
	line, err := marshal(wh)
	if err != nil {
		return nil, err
	}
	cw := &Writer{w: bufio.NewWriterSize(w, 64<<10)}
	cw.line(line)
	return cw, cw.err
}

// Output writes data, printed at, as an output event. A character whose
// last bytes are not in data is held for the next Output (or Cut).
func (w *Writer) Output(at time.Duration, data []byte) error {
	buf := append(w.pending, data...)
	n := completeUpTo(buf)
	w.pending = append([]byte(nil), buf[n:]...)
	if n > 0 {
		w.event(at, Output, validText(buf[:n]))
	}
	return w.err
}

// Cut ends a character held by Output as U+FFFD: the output that follows
// does not continue it (output was lost in between).
func (w *Writer) Cut(at time.Duration) error {
	if len(w.pending) > 0 {
		w.pending = nil
		w.event(at, Output, string(utf8.RuneError))
	}
	return w.err
}

// Marker writes a marker event labelled label at at.
func (w *Writer) Marker(at time.Duration, label string) error {
	w.event(at, Marker, validText([]byte(label)))
	return w.err
}

// Close writes a held partial character as U+FFFD and flushes.
func (w *Writer) Close() error {
	_ = w.Cut(w.last)
	if w.err == nil {
		w.err = w.w.Flush()
	}
	return w.err
}

func (w *Writer) event(at time.Duration, code, text string) {
	at = max(at, w.last)
	w.last = at
	data, err := marshal(text)
	if err != nil {
		w.err = err
		return
	}
	w.line("[" + strconv.FormatFloat(at.Seconds(), 'f', 6, 64) + `, "` + code + `", ` + data + "]")
}

func (w *Writer) line(s string) {
	if w.err != nil {
		return
	}
	if _, err := w.w.WriteString(s + "\n"); err != nil {
		w.err = fmt.Errorf("asciicast: %w", err)
	}
}

// marshal is JSON without HTML escaping and without the trailing newline.
func marshal(v any) (string, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("asciicast: %w", err)
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// completeUpTo is the length of the longest prefix of b that does not end
// inside a character: the start of a valid multi-byte character whose
// remaining bytes are missing is left for later.
func completeUpTo(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax+1; i-- {
		if !utf8.RuneStart(b[i]) {
			continue
		}
		if tail := b[i:]; !utf8.FullRune(tail) {
			return i
		}
		break
	}
	return len(b)
}

// validText is b with each byte that is not part of a UTF-8 character as
// U+FFFD.
func validText(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var s strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			s.WriteRune(utf8.RuneError)
		} else {
			s.Write(b[:n])
		}
		b = b[n:]
	}
	return s.String()
}

// Read parses a recording: its header and its events, checking the
// version, the size and that times do not go backwards.
func Read(r io.Reader) (Header, []Event, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	if !sc.Scan() {
		return Header{}, nil, errors.New("asciicast: empty: no header line")
	}
	var wh wireHeader
	if err := json.Unmarshal(sc.Bytes(), &wh); err != nil {
		return Header{}, nil, fmt.Errorf("asciicast: header: %w", err)
	}
	if wh.Version != 2 || wh.Width < 1 || wh.Height < 1 {
		return Header{}, nil, fmt.Errorf("asciicast: header %s: want version 2 and a size", sc.Bytes())
	}
	h := Header{Width: wh.Width, Height: wh.Height, Title: wh.Title, Env: wh.Env,
		IdleTimeLimit: time.Duration(wh.IdleTimeLimit * float64(time.Second))}
	if wh.Timestamp != 0 {
		h.Timestamp = time.Unix(wh.Timestamp, 0)
	}
	var events []Event
	last := 0.0
	for n := 2; sc.Scan(); n++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var raw [3]any
		if err := json.Unmarshal(sc.Bytes(), &raw); err != nil {
			return h, events, fmt.Errorf("asciicast: line %d: %w", n, err)
		}
		t, ok1 := raw[0].(float64)
		code, ok2 := raw[1].(string)
		data, ok3 := raw[2].(string)
		if !ok1 || !ok2 || !ok3 || t < last || math.IsNaN(t) {
			return h, events, fmt.Errorf("asciicast: line %d: %s: want [time (not before the last), code, text]", n, sc.Bytes())
		}
		last = t
		events = append(events, Event{Time: t, Code: code, Data: data})
	}
	if err := sc.Err(); err != nil {
		return h, events, fmt.Errorf("asciicast: %w", err)
	}
	return h, events, nil
}
