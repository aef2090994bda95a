package live

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// logOf is a MemoryLog holding n events, the last of them Last if ended.
func logOf(t *testing.T, b Broker, topic string, n int, ended bool) *MemoryLog {
	t.Helper()
	l := NewMemoryLog(topic, b)
	for i := 1; i <= n; i++ {
		if _, err := l.Append(context.Background(), "n", []byte(strconv.Itoa(i)), ended && i == n); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

// seqs lists the ids of events.
func seqs(evs []sseEvent) []int64 {
	out := make([]int64, 0, len(evs))
	for _, ev := range evs {
		out = append(out, ev.id)
	}
	return out
}

func span(from, to int64) []int64 {
	out := []int64{}
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

// followRecorded runs Follow into a recorder until it returns (at most
// wait), and returns what it wrote and returned.
func followRecorded(t *testing.T, b Broker, read Source, after int64, wait time.Duration) ([]sseEvent, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	rec := httptest.NewRecorder()
	err := Follow(ctx, NewWriter(rec, WriterOptions{}), b, "t", read, after)
	return parseSSE(t, rec.Body.String()), err
}

func TestFollowCatchesUp(t *testing.T) {
	b := NewInProcess()
	full := logOf(t, b, "t", 5, true)
	open := logOf(t, b, "t", 5, false)
	events := func(seqs ...int64) Source {
		return func(_ context.Context, after int64, limit int) ([]Event, error) {
			var out []Event
			for _, s := range seqs {
				out = append(out, Event{Seq: s, Name: "n", Data: []byte("x"), Last: s == 4})
			}
			return out, nil
		}
	}
	tests := []struct {
		name    string
		read    Source
		after   int64
		want    []int64
		wantErr string
	}{
		{"from the start to the last event", full.EventsAfter, 0, span(1, 5), ""},
		{"from a Last-Event-ID", full.EventsAfter, 3, span(4, 5), ""},
		{"an open log, then waits until ctx ends", open.EventsAfter, 2, span(3, 5), ""},
		{"nothing new", open.EventsAfter, 5, span(1, 0), ""},
		{"a source that repeats itself", events(1, 2, 2, 1, 3, 4), 0, span(1, 4), ""},
		{"a source that skips back", events(2, 1, 3, 4), 1, span(2, 4), ""},
		{"a broken source", func(context.Context, int64, int) ([]Event, error) { return nil, errors.New("disk on fire") },
			0, span(1, 0), "disk on fire"},
		{"a name with a line break", func(context.Context, int64, int) ([]Event, error) {
			return []Event{{Seq: 1, Name: "a\nb"}}, nil
		}, 0, span(1, 0), "line break"},
		{"a source that returns only old events", func(context.Context, int64, int) ([]Event, error) {
			return make([]Event, readBatch), nil
		}, 0, span(1, 0), "none of which is after"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs, err := followRecorded(t, b, tt.read, tt.after, 200*time.Millisecond)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("Follow = %v; want error %q", err, tt.wantErr)
			}
			if got := seqs(evs); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("sent %v; want %v", got, tt.want)
			}
		})
	}
}

// TestFollowSeesWhatIsAppendedWhileCatchingUp appends an event just
// after Follow's first read took its snapshot: a follower that subscribed
// after reading would never be told of it and would wait until ctx ends.
func TestFollowSeesWhatIsAppendedWhileCatchingUp(t *testing.T) {
	b := NewInProcess()
	l := logOf(t, b, "t", 3, false)
	reads := 0
	read := func(ctx context.Context, after int64, limit int) ([]Event, error) {
		evs, err := l.EventsAfter(ctx, after, limit)
		if reads++; reads == 1 {
			l.Append(ctx, "n", []byte("4"), true)
		}
		return evs, err
	}
	evs, err := followRecorded(t, b, read, 0, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if got := seqs(evs); fmt.Sprint(got) != fmt.Sprint(span(1, 4)) {
		t.Errorf("sent %v; want 1 to 4, the 4th appended during catch-up", got)
	}
}

// eventsHandler serves log as a stream, as a handler would.
func eventsHandler(b Broker, l *MemoryLog, opts WriterOptions) http.HandlerFunc {
	return func(rw http.ResponseWriter, r *http.Request) {
		after, err := LastEventID(r)
		if err != nil {
			http.Error(rw, err.Error(), http.StatusBadRequest)
			return
		}
		w := NewWriter(rw, opts)
		if w.Start() != nil {
			return
		}
		Follow(r.Context(), w, b, "t", l.EventsAfter, after)
	}
}

// TestReconnectResumes drops the connection again and again while events
// are being appended and reconnects with Last-Event-ID each time, as a
// browser does: every event arrives once, in order.
func TestReconnectResumes(t *testing.T) {
	const total = 300
	tests := []struct {
		name     string
		query    string // of the first connect
		from     int64  // the first event expected
		dropEach int    // events read per connection before dropping it
	}{
		{"from the start, dropping often", "", 1, 7},
		{"first connect from the query", "?" + LastEventIDQuery + "=120", 121, 25},
		{"one event per connection", "", 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewInProcess()
			l := NewMemoryLog("t", b)
			ts := httptest.NewServer(eventsHandler(b, l, WriterOptions{}))
			defer ts.Close()
			go func() {
				for i := 1; i <= total; i++ {
					l.Append(context.Background(), "n", []byte("event "+strconv.Itoa(i)+"\nline two"), i == total)
					if i%10 == 0 {
						time.Sleep(time.Millisecond)
					}
				}
			}()

			var got []sseEvent
			var lastID int64
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			for conn := 0; ctx.Err() == nil; conn++ {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL, nil)
				if conn == 0 {
					req.URL.RawQuery = strings.TrimPrefix(tt.query, "?")
				} else {
					req.Header.Set("Last-Event-ID", strconv.FormatInt(lastID, 10))
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				n, ended := 0, false
				readSSE(resp.Body, func(ev sseEvent) bool {
					got = append(got, ev)
					lastID = ev.id
					n++
					ended = ev.id == total
					return !ended && n < tt.dropEach
				})
				resp.Body.Close() // drop it mid-stream
				if ended {
					break
				}
			}
			want := span(tt.from, total)
			if fmt.Sprint(seqs(got)) != fmt.Sprint(want) {
				t.Fatalf("received %d events %v...; want %d to %d once each in order", len(got), seqs(got)[:min(len(got), 20)], tt.from, total)
			}
			for _, ev := range got {
				if want := "event " + strconv.FormatInt(ev.id, 10) + "\nline two"; ev.data != want {
					t.Fatalf("event %d data %q; want %q", ev.id, ev.data, want)
				}
			}
			waitUntil(t, "unsubscribed after the clients left", func() bool { return b.Subscribers("t") == 0 })
		})
	}
}

func TestBadLastEventIDIsRefused(t *testing.T) {
	b := NewInProcess()
	ts := httptest.NewServer(eventsHandler(b, NewMemoryLog("t", b), WriterOptions{}))
	defer ts.Close()
	req, _ := http.NewRequest(http.MethodGet, ts.URL, nil)
	req.Header.Set("Last-Event-ID", "yesterday")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), `"yesterday"`) {
		t.Errorf("answered %d %q; want 400 naming the value", resp.StatusCode, body)
	}
}

// pipeWriter is a ResponseWriter whose body a test reads as it is
// written; gate, when set, holds every write after the first until it is
// closed: a client that has stopped reading.
type pipeWriter struct {
	header http.Header
	pw     *io.PipeWriter
	gate   chan struct{}
	writes int
}

func newPipeWriter() (*pipeWriter, *io.PipeReader) {
	pr, pw := io.Pipe()
	return &pipeWriter{header: http.Header{}, pw: pw}, pr
}

func (p *pipeWriter) Header() http.Header { return p.header }
func (p *pipeWriter) WriteHeader(int)     {}
func (p *pipeWriter) Flush()              {}
func (p *pipeWriter) Write(b []byte) (int, error) {
	if p.writes++; p.writes > 1 && p.gate != nil {
		<-p.gate
	}
	return p.pw.Write(b)
}

// follower runs Follow into a pipe and collects what a client reads.
type follower struct {
	cancel context.CancelFunc
	done   chan error // Follow's result
	read   chan []sseEvent
}

func startFollower(b Broker, l *MemoryLog, gate chan struct{}) *follower {
	ctx, cancel := context.WithCancel(context.Background())
	pw, pr := newPipeWriter()
	pw.gate = gate
	f := &follower{cancel: cancel, done: make(chan error, 1), read: make(chan []sseEvent, 1)}
	w := NewWriter(pw, WriterOptions{})
	go func() {
		err := w.Start()
		if err == nil {
			err = Follow(ctx, w, b, "t", l.EventsAfter, 0)
		}
		pw.pw.Close()
		f.done <- err
	}()
	go func() {
		var evs []sseEvent
		readSSE(pr, func(ev sseEvent) bool { evs = append(evs, ev); return true })
		pr.Close()
		f.read <- evs
	}()
	return f
}

// TestSlowFollowerDelaysNobody holds one follower's writes (a client
// that stopped reading) while 1000 events are appended: the appender and
// another follower finish, and the slow one, released, still gets every
// event once, in order.
func TestSlowFollowerDelaysNobody(t *testing.T) {
	const total = 1000
	b := NewInProcess()
	l := NewMemoryLog("t", b)
	gate := make(chan struct{})
	slow := startFollower(b, l, gate)
	fast := startFollower(b, l, nil)
	waitUntil(t, "both subscribed", func() bool { return b.Subscribers("t") == 2 })
	appended := make(chan struct{})
	go func() {
		defer close(appended)
		for i := 1; i <= total; i++ {
			l.Append(context.Background(), "n", nil, i == total)
		}
	}()
	select {
	case <-appended:
	case <-time.After(30 * time.Second):
		t.Fatal("appending waited for the slow follower")
	}
	if evs := <-fast.read; fmt.Sprint(seqs(evs)) != fmt.Sprint(span(1, total)) {
		t.Fatalf("the fast follower got %d events", len(evs))
	}
	select {
	case evs := <-slow.read:
		t.Fatalf("the held follower read %d events before it was released", len(evs))
	default:
	}
	close(gate)
	if evs := <-slow.read; fmt.Sprint(seqs(evs)) != fmt.Sprint(span(1, total)) {
		t.Fatalf("the slow follower got %d events, not 1 to %d", len(evs), total)
	}
	for _, f := range []*follower{slow, fast} {
		if err := <-f.done; err != nil {
			t.Error(err)
		}
	}
}

// TestFollowersLeaveNoGoroutines ends followers every way a stream ends
// (the last event, the request's context, the client gone, the broker
// closed) and waits for the goroutine count to return to where it was.
func TestFollowersLeaveNoGoroutines(t *testing.T) {
	baseline := runtime.NumGoroutine()
	b := NewInProcess()
	ended := logOf(t, b, "t", 3, true)
	open := logOf(t, b, "t", 3, false)
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pw, pr := newPipeWriter()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			w := NewWriter(pw, WriterOptions{})
			l := open
			switch i % 3 {
			case 0:
				l = ended
				go io.Copy(io.Discard, pr)
			case 1: // the request ends after a few events
				go func() {
					br := bufio.NewReader(pr)
					for range 3 {
						br.ReadString('\n')
					}
					cancel()
					io.Copy(io.Discard, br)
				}()
			case 2: // the client stops reading and goes away
				pr.Close()
			}
			Follow(ctx, w, b, "t", l.EventsAfter, 0)
			pw.pw.Close()
		}()
	}
	wg.Wait()
	waitUntil(t, "every subscription released", func() bool { return b.Subscribers("t") == 0 })

	// And those still waiting when the broker closes.
	var waiting sync.WaitGroup
	for range 20 {
		waiting.Add(1)
		go func() {
			defer waiting.Done()
			pw, pr := newPipeWriter()
			go io.Copy(io.Discard, pr)
			if err := Follow(context.Background(), NewWriter(pw, WriterOptions{}), b, "t", open.EventsAfter, 0); err != nil {
				t.Error(err)
			}
			pw.pw.Close()
		}()
	}
	waitUntil(t, "20 followers subscribed", func() bool { return b.Subscribers("t") == 20 })
	b.Close()
	waiting.Wait()
	// One that arrives after the broker closed ends at once, quietly.
	if err := Follow(context.Background(), NewWriter(httptest.NewRecorder(), WriterOptions{}), b, "t", open.EventsAfter, 0); err != nil {
		t.Errorf("Follow on a closed broker = %v; want nil, a normal end", err)
	}
	waitUntil(t, fmt.Sprintf("back to %d goroutines", baseline), func() bool { return runtime.NumGoroutine() <= baseline })
}

func TestKeepAliveOnAQuietStream(t *testing.T) {
	b := NewInProcess()
	l := NewMemoryLog("t", b)
	pw, pr := newPipeWriter()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Follow(ctx, NewWriter(pw, WriterOptions{KeepAlive: 5 * time.Millisecond, KeepAliveComment: "still grading"}),
			b, "t", l.EventsAfter, 0)
		pw.pw.Close()
	}()
	br := bufio.NewReader(pr)
	for comments := 0; comments < 3; {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		switch line {
		case ": still grading\n":
			comments++
		case "\n":
		default:
			t.Fatalf("a quiet stream sent %q", line)
		}
	}
	cancel()
	go io.Copy(io.Discard, br)
	if err := <-done; err != nil {
		t.Error(err)
	}
}

func TestMemoryLog(t *testing.T) {
	b := NewInProcess()
	sub, _ := b.Subscribe(context.Background(), "t")
	l := logOf(t, b, "t", 4, true)
	if !sub.Advanced(3) || sub.Advanced(4) {
		t.Error("appends were not published up to 4")
	}
	if _, err := l.Append(context.Background(), "more", nil, false); !errors.Is(err, ErrEnded) {
		t.Errorf("Append after the last event = %v; want ErrEnded", err)
	}
	tests := []struct {
		after int64
		limit int
		want  []int64
	}{
		{0, 10, span(1, 4)},
		{-5, 10, span(1, 4)},
		{1, 2, span(2, 3)},
		{4, 10, span(1, 0)},
		{9, 10, span(1, 0)},
		{0, 0, span(1, 4)},
	}
	for _, tt := range tests {
		evs, err := l.EventsAfter(context.Background(), tt.after, tt.limit)
		if err != nil {
			t.Fatal(err)
		}
		got := []int64{}
		for _, ev := range evs {
			got = append(got, ev.Seq)
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("EventsAfter(%d, %d) = %v; want %v", tt.after, tt.limit, got, tt.want)
		}
	}
	if evs, _ := l.EventsAfter(context.Background(), 3, 1); len(evs) != 1 || !evs[0].Last {
		t.Error("the 4th event is not marked Last")
	}
}

// TestIdleStreamCloses: a stream that has sent no event for IdleClose
// ends (the client reconnects and resumes), keep-alives notwithstanding;
// each event sent puts the end off again.
func TestIdleStreamCloses(t *testing.T) {
	b := NewInProcess()
	defer b.Close()
	l := logOf(t, b, "t", 1, false)
	rec := httptest.NewRecorder()
	opts := WriterOptions{KeepAlive: 5 * time.Millisecond, IdleClose: 200 * time.Millisecond}
	done := make(chan error, 1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	go func() { done <- Follow(ctx, NewWriter(rec, opts), b, "t", l.EventsAfter, 0) }()
	// Events every 50 ms for a while keep it open past IdleClose.
	for range 8 {
		time.Sleep(50 * time.Millisecond)
		select {
		case err := <-done:
			t.Fatalf("the stream ended (%v) while events kept coming", err)
		default:
		}
		if _, err := l.Append(context.Background(), "n", []byte("x"), false); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("an idle stream did not end")
	}
	if ctx.Err() != nil {
		t.Fatal("the stream ended only with its context")
	}
}
