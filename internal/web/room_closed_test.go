package web

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/collab"
	"github.com/faultline-dev/faultline/internal/rooms"
)

// TestRoomEndWithoutScript: the end form posted by a browser without
// JavaScript lands the interviewer on the room's record, and each side's
// link to the closed room says plainly what happened, the interviewer's
// with the way to the record.
func TestRoomEndWithoutScript(t *testing.T) {
	ts := newRoomTestServer(t)
	id, ikey, ckey := ts.room(t, "problem:async-refund")
	base := "/rooms/" + id

	req, err := http.NewRequest("POST", ts.URL+base+"/end", strings.NewReader(""))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "text/html")
	req.Header.Set("Origin", ts.URL)
	req.AddCookie(&http.Cookie{Name: roomCookie, Value: ikey})
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != base+"/scorecard" {
		t.Fatalf("POST end from a plain form: %d to %q; want 303 to %s/scorecard", resp.StatusCode, resp.Header.Get("Location"), base)
	}
	if sc := ts.do(t, "GET", base+"/scorecard", ikey, ""); sc.status != http.StatusOK || !strings.Contains(sc.body, `href="`+base+`/replay"`) {
		t.Fatalf("the scorecard after the end: %d, links the replay: %v", sc.status, strings.Contains(sc.body, base+"/replay"))
	}

	tests := []struct {
		name, path, key string
		want, refuse    []string
	}{
		{"interviewer at the room", base, ikey,
			[]string{"You have ended this room", `href="` + base + `/scorecard"`, `href="` + base + `/replay"`}, nil},
		{"interviewer's link again", base + "/enter?key=" + ikey, "", []string{"Opening the room&#39;s record"}, nil},
		{"candidate at the room", base, ckey,
			[]string{"The interview is over", "The interviewer has ended this room"}, []string{"/scorecard", "/replay"}},
		{"candidate's link again", base + "/enter?key=" + ckey, "",
			[]string{"The interview is over"}, []string{"/scorecard", "/replay"}},
		{"candidate at the record", base + "/scorecard", ckey, []string{"The interview is over"}, []string{"/replay"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := ts.do(t, "GET", tt.path, tt.key, "")
			want := http.StatusGone
			if strings.Contains(tt.path, "/enter") && tt.key == "" && strings.Contains(tt.path, ikey) {
				want = http.StatusOK
			}
			if resp.status != want {
				t.Fatalf("GET %s: %d; want %d", tt.path, resp.status, want)
			}
			for _, s := range tt.want {
				if !strings.Contains(resp.body, s) {
					t.Errorf("the page lacks %q", s)
				}
			}
			for _, s := range tt.refuse {
				if strings.Contains(resp.body, base+s) {
					t.Errorf("the candidate's page links %s", s)
				}
			}
		})
	}
}

// TestRoomExpiredAndDeletedLinks: an expired room says so to each side;
// once swept past its retention, every link to it answers 404, saying
// that a room may have been deleted and when that happens.
func TestRoomExpiredAndDeletedLinks(t *testing.T) {
	ts := newRoomTestServer(t)
	id, ikey, ckey := ts.room(t, "problem:async-refund")
	base := "/rooms/" + id
	ts.clock.add(time.Hour) // the test server's TTL
	if resp := ts.do(t, "GET", base, ckey, ""); resp.status != http.StatusGone || !strings.Contains(resp.body, "This room has expired") ||
		!strings.Contains(resp.body, "ask the interviewer for a new link") {
		t.Fatalf("the candidate at the expired room: %d %s", resp.status, shortBody(resp.body))
	}
	if resp := ts.do(t, "GET", base, ikey, ""); resp.status != http.StatusGone || !strings.Contains(resp.body, `href="`+base+`/scorecard"`) {
		t.Fatalf("the interviewer at the expired room: %d %s", resp.status, shortBody(resp.body))
	}
	ts.clock.add(rooms.DefaultRetention)
	if n, err := ts.svc.Sweep(context.Background()); err != nil || n != 1 {
		t.Fatalf("Sweep = %d, %v; want the room deleted", n, err)
	}
	for _, tc := range []struct{ path, key string }{
		{base + "/enter?key=" + ikey, ""},
		{base + "/enter?key=" + ckey, ""},
		{base, ikey},
		{base, ckey},
		{base + "/scorecard", ikey},
		{base + "/replay", ikey},
	} {
		resp := ts.do(t, "GET", tc.path, tc.key, "")
		if resp.status != http.StatusNotFound || !strings.Contains(resp.body, "or it was deleted") ||
			!strings.Contains(resp.body, "deleted 30 days after its time runs out") {
			t.Errorf("GET %s of a deleted room: %d %s", tc.path, resp.status, shortBody(resp.body))
		}
	}
}

func shortBody(s string) string {
	if i := strings.Index(s, "<main"); i >= 0 {
		s = s[i:]
	}
	if len(s) > 600 {
		s = s[:600] + "..."
	}
	return s
}

// TestRoomCursorRidesWithThePush: a push's selection reaches the other's
// stream in the same code.update event, and the replay page shows it.
func TestRoomCursorRidesWithThePush(t *testing.T) {
	ts := newRoomTestServer(t)
	id, ikey, ckey := ts.room(t, "problem:async-refund")
	base := "/rooms/" + id
	p, _ := ts.cat.Problem("async-refund")
	n := collab.Length(collab.NormalizeNewlines(p.Code.Starter))
	push := fmt.Sprintf(`{"version":0,"updates":[{"clientID":"candidate-t","changes":[[0,"AB"],%d],"selection":{"anchor":2,"head":1,"name":"Mallory","colour":1}}]}`, n)
	if resp := ts.do(t, "POST", base+"/code/0/push", ckey, push); resp.status != http.StatusOK || !strings.Contains(resp.body, `"ok":true`) {
		t.Fatalf("the push with its selection: %d %s", resp.status, resp.body)
	}
	stream := ts.do(t, "GET", base+"/events", ikey, "")
	if !strings.Contains(stream.body, `"selection":{"anchor":2,"head":1,"name":"Candidate","colour":1}`) {
		t.Fatalf("the interviewer's stream lacks the selection on the update, named by role: %s", stream.body)
	}
	if strings.Contains(stream.body, "event: cursor.moved") {
		t.Fatal("the push's cursor was written as an event of its own too")
	}
	replay := ts.do(t, "GET", base+"/replay", ikey, "")
	if want := "Candidate&#39;s cursor: line 1, column 2, with 1 character selected."; !strings.Contains(replay.body, want) {
		t.Fatalf("the replay lacks %q: %s", want, shortBody(replay.body))
	}
}
