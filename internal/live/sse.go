package live

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Defaults of WriterOptions.
const (
	// DefaultWriteWait bounds each event's write: a server's WriteTimeout
	// (60 s in serve) would otherwise end every stream, and a client that
	// stops reading would hold its goroutine for ever.
	DefaultWriteWait = 30 * time.Second
	// DefaultKeepAlive sends a comment on a quiet stream, well inside the
	// idle timeouts of common proxies (nginx's is 60 s).
	DefaultKeepAlive = 15 * time.Second
	// DefaultRetry is how soon a browser reconnects a dropped stream.
	DefaultRetry = 2 * time.Second
)

// LastEventIDQuery is the query parameter LastEventID falls back to: a
// page that already shows events up to N opens its first stream with
// ?last_event_id=N, since EventSource cannot set the header itself.
const LastEventIDQuery = "last_event_id"

// WriterOptions are a stream's timings; zero values take the defaults.
type WriterOptions struct {
	WriteWait        time.Duration // deadline of each write
	KeepAlive        time.Duration // comment after this long without a write
	Retry            time.Duration // the retry: field: the client's reconnect delay
	KeepAliveComment string        // the keep-alive comment's text; "" sends "keep-alive"
	// IdleClose ends a stream that has sent no event for this long (0:
	// never). The client reconnects and resumes from its last event, so
	// nothing is lost; a client that vanished without closing its
	// connection, whose keep-alives the kernel still takes, is let go.
	IdleClose time.Duration
}

func (o WriterOptions) withDefaults() WriterOptions {
	if o.WriteWait <= 0 {
		o.WriteWait = DefaultWriteWait
	}
	if o.KeepAlive <= 0 {
		o.KeepAlive = DefaultKeepAlive
	}
	if o.Retry <= 0 {
		o.Retry = DefaultRetry
	}
	if o.KeepAliveComment == "" {
		o.KeepAliveComment = "keep-alive"
	}
	return o
}

// Writer writes server-sent events to one response. It is not safe for
// concurrent use: one goroutine (Follow's) writes a stream.
type Writer struct {
	w    http.ResponseWriter
	rc   *http.ResponseController
	opts WriterOptions
	buf  bytes.Buffer
	last time.Time // of the last write, for keep-alives
	// lastEvent is when the stream started or last sent an event, for
	// IdleClose.
	lastEvent time.Time
}

// NewWriter prepares a stream on w; nothing is written until Start.
func NewWriter(w http.ResponseWriter, opts WriterOptions) *Writer {
	return &Writer{w: w, rc: http.NewResponseController(w), opts: opts.withDefaults()}
}

// Options returns the writer's options with the defaults filled in.
func (w *Writer) Options() WriterOptions { return w.opts }

// Start sends the headers and the reconnect delay. An error means the
// client has gone.
func (w *Writer) Start() error {
	h := w.w.Header()
	h.Set("Content-Type", "text/event-stream")
	// private: no shared cache may keep one user's stream; no-store: nor
	// the browser.
	h.Set("Cache-Control", "private, no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: pass each event on at once
	w.w.WriteHeader(http.StatusOK)
	w.buf.Reset()
	fmt.Fprintf(&w.buf, "retry: %d\n\n", w.opts.Retry.Milliseconds())
	w.lastEvent = time.Now()
	return w.flush()
}

// Send writes one event and flushes it. Data may hold any bytes; its
// lines (LF, CRLF or a lone CR, which the client all reads as line ends)
// go out as one data: line each and arrive joined by LF.
func (w *Writer) Send(ev Event) error {
	if strings.ContainsAny(ev.Name, "\r\n") {
		return fmt.Errorf("live: event name %q holds a line break", ev.Name)
	}
	w.buf.Reset()
	if ev.Seq > 0 {
		w.buf.WriteString("id: ")
		w.buf.WriteString(strconv.FormatInt(ev.Seq, 10))
		w.buf.WriteByte('\n')
	}
	if ev.Name != "" {
		w.buf.WriteString("event: ")
		w.buf.WriteString(ev.Name)
		w.buf.WriteByte('\n')
	}
	// At least one data line, even for empty data: a client drops an
	// event whose data buffer is empty.
	writeLines(&w.buf, "data: ", ev.Data)
	w.buf.WriteByte('\n')
	w.lastEvent = time.Now()
	return w.flush()
}

// Comment writes a comment, which clients ignore: it keeps a quiet
// connection from looking idle to proxies.
func (w *Writer) Comment(text string) error {
	w.buf.Reset()
	writeLines(&w.buf, ": ", []byte(text))
	w.buf.WriteByte('\n')
	return w.flush()
}

// writeLines writes data as lines each starting with prefix.
func writeLines(buf *bytes.Buffer, prefix string, data []byte) {
	for {
		i := bytes.IndexAny(data, "\r\n")
		buf.WriteString(prefix)
		if i < 0 {
			buf.Write(data)
			buf.WriteByte('\n')
			return
		}
		buf.Write(data[:i])
		buf.WriteByte('\n')
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		data = data[i+1:]
	}
}

func (w *Writer) flush() error {
	if err := w.rc.SetWriteDeadline(time.Now().Add(w.opts.WriteWait)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	if _, err := w.w.Write(w.buf.Bytes()); err != nil {
		return err
	}
	w.last = time.Now()
	if err := w.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}

// LastEventID is the sequence number a client has seen up to: the
// Last-Event-ID header a reconnecting EventSource sends, else the
// last_event_id query parameter of a first connect, else 0 (from the
// start). Anything but a whole number from 0 up is an error saying what
// was sent and where; answer it with 400 before starting the stream.
func LastEventID(r *http.Request) (int64, error) {
	raw, where := strings.TrimSpace(r.Header.Get("Last-Event-ID")), "the Last-Event-ID header"
	if raw == "" {
		raw, where = strings.TrimSpace(r.URL.Query().Get(LastEventIDQuery)), "the "+LastEventIDQuery+" parameter"
	}
	if raw == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("live: %s is %q; it must be the id of an event received, a whole number from 0 up", where, raw)
	}
	return n, nil
}
