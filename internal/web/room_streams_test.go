package web

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// openStream opens a room's event stream with key and returns once its
// headers are in; close ends it. ended is closed when the server ends it.
type openedStream struct {
	status int
	body   string // a refusal's body
	header http.Header
	ended  chan struct{}
	close  func()
}

func (ts *roomTestServer) openStream(t *testing.T, id, key string) openedStream {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	req, err := http.NewRequestWithContext(ctx, "GET", ts.URL+"/rooms/"+id+"/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.AddCookie(&http.Cookie{Name: roomCookie, Value: key})
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	s := openedStream{status: resp.StatusCode, header: resp.Header, ended: make(chan struct{})}
	if resp.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		s.body = string(data)
		close(s.ended)
		s.close = func() {}
		return s
	}
	// The first lines (retry:) have arrived when the stream counts.
	br := bufio.NewReader(resp.Body)
	if _, err := br.ReadString('\n'); err != nil {
		t.Fatalf("the stream sent nothing: %v", err)
	}
	go func() {
		io.Copy(io.Discard, br)
		close(s.ended)
	}()
	s.close = func() { cancel(); resp.Body.Close(); <-s.ended }
	t.Cleanup(s.close)
	return s
}

// waitGone waits until the gate has let go of every stream: a client's
// leaving reaches the handler a moment after the client closes.
func (ts *roomTestServer) waitStreams(t *testing.T, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		g := ts.app.streams
		g.mu.Lock()
		n := 0
		for _, c := range g.perAddr {
			n += c
		}
		g.mu.Unlock()
		if n == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d streams counted open; want %d", n, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRoomStreamCaps: past the cap of one link, or of one address across
// links, a stream is refused with 429 and a message saying which and what
// to do; a stream that ends frees its place.
func TestRoomStreamCaps(t *testing.T) {
	ts := newRoomTestServer(t)
	ts.app.streams.maxLink, ts.app.streams.maxAddr = 2, 3
	id, ikey, ckey := ts.room(t, "problem:async-refund")

	a := ts.openStream(t, id, ckey)
	b := ts.openStream(t, id, ckey)
	if a.status != 200 || b.status != 200 {
		t.Fatalf("the first two streams: %d, %d", a.status, b.status)
	}
	third := ts.openStream(t, id, ckey)
	if third.status != http.StatusTooManyRequests || !strings.Contains(third.body, "link already has 2 live connections") || third.header.Get("Retry-After") == "" {
		t.Fatalf("a third stream of one link: %d %q (Retry-After %q); want 429 naming the link's cap", third.status, third.body, third.header.Get("Retry-After"))
	}
	// The other link has its own count, but the address's is shared.
	if iv := ts.openStream(t, id, ikey); iv.status != 200 {
		t.Fatalf("the interviewer's stream: %d %s", iv.status, iv.body)
	}
	over := ts.openStream(t, id, ikey)
	if over.status != http.StatusTooManyRequests || !strings.Contains(over.body, "network address already has 3") {
		t.Fatalf("a stream past the address's cap: %d %q; want 429 naming the address's cap", over.status, over.body)
	}
	// A stream that ends gives its place back.
	a.close()
	ts.waitStreams(t, 2)
	if again := ts.openStream(t, id, ckey); again.status != 200 {
		t.Fatalf("a stream after one ended: %d %s", again.status, again.body)
	}
}

// TestRoomStreamIdleAndExpiry: a stream with no event for the idle time
// ends (the page reconnects by itself); a stream of a room that expires
// ends when it does, and its reconnection is refused with 410.
func TestRoomStreamIdleAndExpiry(t *testing.T) {
	ts := newRoomTestServer(t)
	id, ikey, ckey := ts.room(t, "problem:async-refund")

	ts.app.streams.idle, ts.app.streams.keepLive = 300*time.Millisecond, 50*time.Millisecond
	idle := ts.openStream(t, id, ckey)
	select {
	case <-idle.ended:
	case <-time.After(20 * time.Second):
		t.Fatal("an idle stream was not closed")
	}
	ts.waitStreams(t, 0)

	ts.app.streams.idle = time.Hour
	// The room's clock is an hour from its expiry: put it 300 ms short.
	ts.clock.add(time.Hour - 300*time.Millisecond)
	exp := ts.openStream(t, id, ikey)
	select {
	case <-exp.ended:
	case <-time.After(20 * time.Second):
		t.Fatal("the stream of an expired room was not closed")
	}
	ts.clock.add(time.Second)
	if again := ts.openStream(t, id, ikey); again.status != http.StatusGone {
		t.Fatalf("reconnecting to the expired room: %d %s; want 410", again.status, again.body)
	}
	ts.waitStreams(t, 0)
}
