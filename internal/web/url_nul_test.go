package web

import (
	"context"
	"encoding/json"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/content"
	"github.com/faultline-dev/faultline/internal/live"
	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/rooms"
	"github.com/faultline-dev/faultline/internal/storage/storagetest"
)

// TestAddressWithNUL tries every route with U+0000 in each part of its
// address that names something: each path parameter (a slug, an id, a
// room, a step) and a query parameter. Postgres text cannot hold the
// character, so a room id holding it used to fail there as a 500 while
// SQLite answered 404; every store must answer the same 404 or 400,
// saying what was wrong. Run with FAULTLINE_TEST_STORE=postgres for the
// Postgres half.
func TestAddressWithNUL(t *testing.T) {
	cat, err := problems.Load(content.FS)
	if err != nil {
		t.Fatal(err)
	}
	store := storagetest.Open(t)
	broker := live.NewInProcess()
	t.Cleanup(broker.Close)
	svc, err := rooms.New(rooms.Config{Store: store, Catalog: cat, Publisher: broker, Grader: roomGrader{}, TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close(context.Background()) })
	app, err := New(Config{Catalog: cat, Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Rooms: svc, Broker: broker, Grader: &fakeGrader{report: failingReport()}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(app)
	t.Cleanup(hs.Close)
	ts := &roomTestServer{Server: hs, cat: cat}
	roomID, ikey, _ := ts.room(t, "screen:applied-ai-tech-screen")

	// What each path parameter is when it is not the one being spoiled:
	// real things, so the request gets as far as a lookup.
	real := func(route, param string) string {
		switch {
		case param == "slug" && strings.HasPrefix(route, "/sets/"):
			return "applied-ai-rapid-fire"
		case param == "slug" && strings.HasPrefix(route, "/screens/"):
			return "applied-ai-tech-screen"
		case param == "slug":
			return "async-refund"
		case param == "room":
			return roomID
		case param == "id" && strings.HasPrefix(route, "/sets/"):
			return "what-is-idempotency"
		}
		return "1"
	}
	send := func(t *testing.T, method, path string, script bool) page {
		t.Helper()
		req, err := http.NewRequest(method, hs.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if script {
			req.Header.Set("Accept", "application/json")
		}
		// The interviewer's room cookie, so a room's routes get past
		// Authenticate's cheap refusals to the lookup of the room.
		req.AddCookie(&http.Cookie{Name: roomCookie, Value: ikey})
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return page{status: resp.StatusCode, body: string(body), header: resp.Header}
	}

	tried := 0
	for _, r := range app.Echo().Routes() {
		if r.Method != http.MethodGet && r.Method != http.MethodPost || strings.HasPrefix(r.Path, "/static/") {
			continue
		}
		segs := strings.Split(r.Path, "/")
		for i, seg := range segs {
			if !strings.HasPrefix(seg, ":") {
				continue
			}
			parts := make([]string, len(segs))
			for j, s := range segs {
				switch {
				case j == i:
					parts[j] = url.PathEscape(real(r.Path, s[1:])[:1]) + "%00" + url.PathEscape(real(r.Path, s[1:])[1:])
				case strings.HasPrefix(s, ":"):
					parts[j] = url.PathEscape(real(r.Path, s[1:]))
				default:
					parts[j] = s
				}
			}
			path := strings.Join(parts, "/")
			for _, script := range []bool{false, true} {
				t.Run(r.Method+" "+r.Path+" :"+seg[1:], func(t *testing.T) {
					tried++
					p := send(t, r.Method, path, script)
					if p.status != http.StatusNotFound || !strings.Contains(p.body, "U+0000") {
						t.Errorf("%s %s: status %d %.200s; want 404 naming U+0000", r.Method, path, p.status, p.body)
					}
				})
			}
		}
	}
	if tried == 0 {
		t.Fatal("no route with a path parameter was tried")
	}

	tests := []struct {
		name, path string
		script     bool
		want       string
	}{
		{"a room's key", "/rooms/" + roomID + "/enter?key=" + url.QueryEscape(ikey) + "%00", false, `parameter "key" holds`},
		{"a question number", "/sets/applied-ai-rapid-fire/rapid?q=1%00", false, `parameter "q" holds`},
		{"a replay's moment, from the script", "/rooms/" + roomID + "/replay/frame?at=%00", true, `parameter "at" holds`},
		{"a parameter's name", "/practice?sa%00ved=name", false, `parameter "sa%00ved" holds`},
		{"two parameters", "/rooms/new?from=%00&also=x%00", false, `parameter "also", "from" holds`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := send(t, http.MethodGet, tt.path, tt.script)
			said := html.UnescapeString(p.body)
			if tt.script {
				var e jsonError
				json.Unmarshal([]byte(p.body), &e)
				said = e.Error
			}
			if p.status != http.StatusBadRequest || !strings.Contains(said, tt.want) {
				t.Errorf("GET %s: status %d %.300s; want 400 saying %s", tt.path, p.status, said, tt.want)
			}
			if ct := p.header.Get("Content-Type"); tt.script != strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type %q for a request from the script: %v", ct, tt.script)
			}
		})
	}
	// Nothing else changes: the same addresses without the character work.
	if p := send(t, http.MethodGet, "/sets/applied-ai-rapid-fire/rapid?q=1", false); p.status != http.StatusOK {
		t.Errorf("the question page without U+0000: status %d", p.status)
	}
	if p := send(t, http.MethodGet, "/rooms/"+roomID, false); p.status != http.StatusOK {
		t.Errorf("the room without U+0000: status %d", p.status)
	}
}
