package live

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestWriterSend(t *testing.T) {
	tests := []struct {
		name string
		ev   Event
		want string
	}{
		{"id, name and data", Event{Seq: 7, Name: "progress", Data: []byte(`{"n":1}`)}, "id: 7\nevent: progress\ndata: {\"n\":1}\n\n"},
		{"no id without a sequence", Event{Name: "report", Data: []byte("x")}, "event: report\ndata: x\n\n"},
		{"default name", Event{Seq: 1, Data: []byte("x")}, "id: 1\ndata: x\n\n"},
		{"empty data still has a data line", Event{Seq: 2, Name: "ping"}, "id: 2\nevent: ping\ndata: \n\n"},
		{"LF lines", Event{Seq: 3, Data: []byte("a\nb")}, "id: 3\ndata: a\ndata: b\n\n"},
		{"CRLF lines", Event{Seq: 3, Data: []byte("a\r\nb")}, "id: 3\ndata: a\ndata: b\n\n"},
		{"a lone CR is a line end", Event{Seq: 3, Data: []byte("a\rb")}, "id: 3\ndata: a\ndata: b\n\n"},
		{"trailing newline kept", Event{Seq: 4, Data: []byte("a\n")}, "id: 4\ndata: a\ndata: \n\n"},
		{"blank line inside", Event{Seq: 5, Data: []byte("a\n\nb")}, "id: 5\ndata: a\ndata: \ndata: b\n\n"},
		{"leading space kept", Event{Seq: 6, Data: []byte(" x")}, "id: 6\ndata:  x\n\n"},
		{"a line that looks like a field", Event{Seq: 8, Data: []byte("x\nid: 99\nevent: evil")}, "id: 8\ndata: x\ndata: id: 99\ndata: event: evil\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			w := NewWriter(rec, WriterOptions{})
			if err := w.Send(tt.ev); err != nil {
				t.Fatal(err)
			}
			if got := rec.Body.String(); got != tt.want {
				t.Errorf("wrote %q; want %q", got, tt.want)
			}
			if !rec.Flushed {
				t.Error("the event was not flushed")
			}
			// What a client reads back is the data with its line ends as LF.
			evs := parseSSE(t, rec.Body.String())
			want := strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(string(tt.ev.Data))
			if len(evs) != 1 || evs[0].data != want || evs[0].name != tt.ev.Name {
				t.Errorf("a client reads %+v; want one event %q with data %q", evs, tt.ev.Name, want)
			}
		})
	}
}

func TestWriterRefusesNamesWithLineBreaks(t *testing.T) {
	for _, name := range []string{"a\nb", "a\r", "\n"} {
		rec := httptest.NewRecorder()
		if err := NewWriter(rec, WriterOptions{}).Send(Event{Seq: 1, Name: name}); err == nil || !strings.Contains(err.Error(), "line break") {
			t.Errorf("Send(name %q) = %v; want an error naming the line break", name, err)
		}
		if rec.Body.Len() != 0 {
			t.Errorf("Send(name %q) wrote %q", name, rec.Body.String())
		}
	}
}

func TestWriterStart(t *testing.T) {
	tests := []struct {
		opts WriterOptions
		want string
	}{
		{WriterOptions{}, "retry: 2000\n\n"},
		{WriterOptions{Retry: 350 * time.Millisecond}, "retry: 350\n\n"},
	}
	for _, tt := range tests {
		rec := httptest.NewRecorder()
		if err := NewWriter(rec, tt.opts).Start(); err != nil {
			t.Fatal(err)
		}
		if rec.Code != http.StatusOK || rec.Body.String() != tt.want {
			t.Errorf("Start wrote %d %q; want 200 %q", rec.Code, rec.Body.String(), tt.want)
		}
		for k, v := range map[string]string{"Content-Type": "text/event-stream", "Cache-Control": "private, no-store", "X-Accel-Buffering": "no"} {
			if got := rec.Header().Get(k); got != v {
				t.Errorf("%s = %q; want %q", k, got, v)
			}
		}
	}
}

func TestWriterComment(t *testing.T) {
	rec := httptest.NewRecorder()
	w := NewWriter(rec, WriterOptions{})
	if err := w.Comment("still grading\nsecond"); err != nil {
		t.Fatal(err)
	}
	if got, want := rec.Body.String(), ": still grading\n: second\n\n"; got != want {
		t.Errorf("wrote %q; want %q", got, want)
	}
	if evs := parseSSE(t, rec.Body.String()); len(evs) != 0 {
		t.Errorf("a comment was read as events %+v", evs)
	}
}

func TestLastEventID(t *testing.T) {
	tests := []struct {
		name, header, query string
		want                int64
		wantErr             string
	}{
		{name: "nothing: from the start", want: 0},
		{name: "header", header: "42", want: 42},
		{name: "header with spaces", header: " 42 ", want: 42},
		{name: "query on a first connect", query: "17", want: 17},
		{name: "header wins over query", header: "5", query: "17", want: 5},
		{name: "zero", header: "0", want: 0},
		{name: "not a number", header: "abc", wantErr: `the Last-Event-ID header is "abc"`},
		{name: "negative", header: "-1", wantErr: `the Last-Event-ID header is "-1"`},
		{name: "bad query", query: "1.5", wantErr: `the last_event_id parameter is "1.5"`},
		{name: "too big", header: "99999999999999999999", wantErr: "whole number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target := "/events"
			if tt.query != "" {
				target += "?" + LastEventIDQuery + "=" + tt.query
			}
			r := httptest.NewRequest(http.MethodGet, target, nil)
			if tt.header != "" {
				r.Header.Set("Last-Event-ID", tt.header)
			}
			got, err := LastEventID(r)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("LastEventID = %d, %v; want an error with %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("LastEventID = %d, %v; want %d", got, err, tt.want)
			}
		})
	}
}

// sseEvent is an event as a client reads it.
type sseEvent struct {
	id   int64
	name string
	data string
}

// parseSSE reads a stream the way the HTML standard's EventSource does
// (the parts these tests need: fields, comments, the data buffer).
func parseSSE(t *testing.T, s string) []sseEvent {
	t.Helper()
	var out []sseEvent
	readSSE(strings.NewReader(s), func(ev sseEvent) bool { out = append(out, ev); return true })
	return out
}

// readSSE calls fn with each event read from r until fn returns false or
// r ends.
func readSSE(r io.Reader, fn func(sseEvent) bool) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var ev sseEvent
	var data strings.Builder
	hasData := false
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			if hasData {
				ev.data = strings.TrimSuffix(data.String(), "\n")
				if !fn(ev) {
					return
				}
			}
			ev, hasData = sseEvent{}, false
			data.Reset()
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			ev.id, _ = strconv.ParseInt(value, 10, 64)
		case "event":
			ev.name = value
		case "data":
			data.WriteString(value)
			data.WriteByte('\n')
			hasData = true
		}
	}
}
