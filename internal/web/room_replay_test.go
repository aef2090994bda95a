package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/collab"
	"github.com/faultline-dev/faultline/internal/rooms"
	"github.com/faultline-dev/faultline/internal/storage"
)

// recordEndpoints are the record's pages: the replay and the scorecard.
var recordEndpoints = []string{"/replay", "/replay?at=3", "/replay/frame?at=3", "/scorecard", "/scorecard.json", "/scorecard.md"}

// recordRoom fills a room with interviewer-only data, each piece with a
// marker, and some shared code; it returns the markers.
func recordRoom(t *testing.T, ts *roomTestServer, id, ikey, ckey string) []string {
	t.Helper()
	ctx := context.Background()
	ia, err := ts.svc.Authenticate(ctx, id, ikey)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := ts.svc.Authenticate(ctx, id, ckey)
	if err != nil {
		t.Fatal(err)
	}
	must := func(_ storage.RoomEvent, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	starter := collab.NormalizeNewlines(ia.Items[0].Problem.Code.Starter)
	changes := fmt.Sprintf(`[[0,"// typed by the candidate"],%d]`, collab.Length(starter))
	if res, err := ts.svc.Push(ctx, ca, 0, 0, []collab.Update{{ClientID: rooms.ClientID(ca), Changes: json.RawMessage(changes)}}); err != nil || !res.Accepted() {
		t.Fatalf("push: %+v, %v", res, err)
	}
	must(ts.svc.SaveNotes(ctx, ia, "SECRET-NOTE <img src=x onerror=alert(1)>"))
	must(ts.svc.Score(ctx, ia, 1, 0, 3, nil, "SECRET-SCORE-NOTE"))
	must(ts.svc.Recommend(ctx, ia, "strong_yes"))
	must(ts.svc.Signal(ctx, ca, rooms.SignalPasteCode, 987654))
	if _, err := ts.svc.Run(ctx, ia, rooms.RunLimits{ClientKey: "k"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		iv, err := ts.svc.InterviewerView(ctx, ia)
		return err == nil && len(iv.Runs) == 1 && iv.Runs[0].Finished
	})
	return []string{"SECRET-NOTE", "SECRET-SCORE-NOTE", "SECRET-SCENARIO", "987654", "strong_yes", "strong yes", "typed by the candidate"}
}

// TestRoomRecordMatrix tries the replay's and the scorecard's endpoints
// with every credential. Only the interviewer's link reaches them, and
// it still does once the room has ended or expired.
func TestRoomRecordMatrix(t *testing.T) {
	ts := newRoomTestServer(t)
	ctx := context.Background()
	expiredID, expiredI, expiredC := ts.room(t, "problem:async-refund")
	recordRoom(t, ts, expiredID, expiredI, expiredC)
	ts.clock.add(59 * time.Minute)
	id, ikey, ckey := ts.room(t, "problem:async-refund")
	secrets := recordRoom(t, ts, id, ikey, ckey)
	_, otherI, otherC := ts.room(t, "problem:async-refund")
	endedID, endedI, endedC := ts.room(t, "problem:async-refund")
	recordRoom(t, ts, endedID, endedI, endedC)
	ended, err := ts.svc.Authenticate(ctx, endedID, endedI)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.svc.End(ctx, ended); err != nil {
		t.Fatal(err)
	}
	ts.clock.add(2 * time.Minute) // the first room has expired

	creds := []struct {
		name, room, key string
		status          int
	}{
		{"interviewer link", id, ikey, 200},
		{"candidate link", id, ckey, 403},
		{"another room's interviewer link", id, otherI, 404},
		{"another room's candidate link", id, otherC, 404},
		{"no link", id, "", 404},
		{"a made-up key", id, strings.Repeat("A", 43), 404},
		{"expired room, its interviewer link", expiredID, expiredI, 200},
		{"expired room, its candidate link", expiredID, expiredC, 410},
		{"ended room, its interviewer link", endedID, endedI, 200},
		{"ended room, its candidate link", endedID, endedC, 410},
		{"no such room", "nope", ikey, 404},
	}
	for _, cr := range creds {
		t.Run(cr.name, func(t *testing.T) {
			for _, ep := range recordEndpoints {
				resp := ts.do(t, "GET", "/rooms/"+cr.room+ep, cr.key, "")
				if resp.status != cr.status {
					t.Errorf("GET %s: %d (%s); want %d", ep, resp.status, firstN(resp.body, 200), cr.status)
				}
				if cc := resp.header.Get("Cache-Control"); cc != noStore {
					t.Errorf("GET %s: Cache-Control %q; want %q", ep, cc, noStore)
				}
				if cr.status == 200 {
					// The interviewer gets the data: so the checks below can fail.
					if ep == "/scorecard.json" && !strings.Contains(resp.body, "SECRET-SCORE-NOTE") {
						t.Errorf("the interviewer's %s lacks the score's note", ep)
					}
					// The Markdown export is the notes' source, as written, as a
					// download (nosniff): nothing renders it here.
					if ep != "/scorecard.md" && strings.Contains(resp.body, "<img src=x") {
						t.Errorf("GET %s: the notes' raw HTML is in the answer unescaped", ep)
					}
					continue
				}
				for _, s := range secrets {
					if strings.Contains(resp.body, s) {
						t.Errorf("GET %s gave the %s interviewer-only data: %q", ep, cr.name, s)
					}
				}
			}
		})
	}
}

func TestRoomRecordAnswers(t *testing.T) {
	ts := newRoomTestServer(t)
	ctx := context.Background()
	id, ikey, ckey := ts.room(t, "problem:async-refund")
	recordRoom(t, ts, id, ikey, ckey)
	ia, err := ts.svc.Authenticate(ctx, id, ikey)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := ts.svc.Scorecard(ctx, ia)
	if err != nil {
		t.Fatal(err)
	}
	wantJSON, err := sc.JSON()
	if err != nil {
		t.Fatal(err)
	}
	code, version, err := ts.svc.CodeText(ctx, ia, ia.Items[0])
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path, contentType, disposition string
		body                           func(string) error
	}{
		{"/scorecard.json", "application/json", `attachment; filename="scorecard-` + id + `.json"`, func(b string) error {
			if b != string(wantJSON) {
				return fmt.Errorf("not the scorecard's export:\n%s", firstN(b, 300))
			}
			return nil
		}},
		{"/scorecard.md", "text/markdown", `attachment; filename="scorecard-` + id + `.md"`, func(b string) error {
			if b != sc.Markdown() {
				return fmt.Errorf("not the scorecard's Markdown:\n%s", firstN(b, 300))
			}
			return nil
		}},
		{"/scorecard", "text/html", "", func(b string) error {
			for _, want := range []string{"SECRET-SCORE-NOTE", "strong yes", "/scorecard.md", "/scorecard.json", "/replay", "&lt;img src=x"} {
				if !strings.Contains(b, want) {
					return fmt.Errorf("the page lacks %q", want)
				}
			}
			return nil
		}},
		{"/replay/frame", "application/json", "", func(b string) error {
			var fr rooms.Frame
			if err := json.Unmarshal([]byte(b), &fr); err != nil {
				return err
			}
			if len(fr.Code) != 1 || fr.Code[0].Text != code || int64(fr.Code[0].Version) != version || fr.Nav.Next != 0 {
				return fmt.Errorf("the last frame = %+v; want the code now (version %d)", fr.Code, version)
			}
			return nil
		}},
		{"/replay/frame?at=1", "application/json", "", func(b string) error {
			var fr rooms.Frame
			if err := json.Unmarshal([]byte(b), &fr); err != nil {
				return err
			}
			if fr.Seq != 1 || fr.Code[0].Text != collab.NormalizeNewlines(ia.Items[0].Problem.Code.Starter) || fr.Nav.NextOf[rooms.ClassEdit] == 0 {
				return fmt.Errorf("the first frame = seq %d, nav %+v; want the starter, and an edit ahead", fr.Seq, fr.Nav)
			}
			return nil
		}},
		{"/replay?at=2", "text/html", "", func(b string) error {
			for _, want := range []string{`type="range"`, `value="2"`, "typed by the candidate", "Next moment", "room-replay", "next paste"} {
				if !strings.Contains(b, want) {
					return fmt.Errorf("the page lacks %q", want)
				}
			}
			return nil
		}},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			resp := ts.do(t, "GET", "/rooms/"+id+tc.path, ikey, "")
			if resp.status != http.StatusOK {
				t.Fatalf("%d: %s", resp.status, firstN(resp.body, 300))
			}
			if ct := resp.header.Get("Content-Type"); !strings.HasPrefix(ct, tc.contentType) {
				t.Errorf("Content-Type %q; want %s", ct, tc.contentType)
			}
			if cd := resp.header.Get("Content-Disposition"); cd != tc.disposition {
				t.Errorf("Content-Disposition %q; want %q", cd, tc.disposition)
			}
			if err := tc.body(resp.body); err != nil {
				t.Error(err)
			}
		})
	}
	for _, bad := range []string{"?at=x", "?at=1e3", "/frame?at=-"} {
		resp := ts.do(t, "GET", "/rooms/"+id+"/replay"+bad, ikey, "")
		if resp.status != http.StatusBadRequest || !strings.Contains(resp.body, "must be an event") {
			t.Errorf("GET /replay%s: %d %s; want 400 saying what at= must be", bad, resp.status, firstN(resp.body, 200))
		}
	}
	// The interviewer's live page links the record.
	page := ts.do(t, "GET", "/rooms/"+id, ikey, "")
	for _, want := range []string{`href="/rooms/` + id + `/scorecard"`, `href="/rooms/` + id + `/replay"`} {
		if !strings.Contains(page.body, want) {
			t.Errorf("the interviewer's page has no %s", want)
		}
	}
}

// TestRoomRecordEnter opens a closed room's links: the interviewer's goes
// on to the scorecard with a cookie that outlives the room, the
// candidate's is refused.
func TestRoomRecordEnter(t *testing.T) {
	ts := newRoomTestServer(t)
	ctx := context.Background()
	id, ikey, ckey := ts.room(t, "problem:async-refund")
	ia, err := ts.svc.Authenticate(ctx, id, ikey)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.svc.End(ctx, ia); err != nil {
		t.Fatal(err)
	}
	ts.clock.add(2 * time.Hour) // and past its expiry
	resp := ts.do(t, "GET", "/rooms/"+id+"/enter?key="+ikey, "", "")
	if resp.status != http.StatusOK || !strings.Contains(resp.header.Get("Refresh"), "/rooms/"+id+"/scorecard") {
		t.Fatalf("the interviewer's link to a closed room: %d, Refresh %q", resp.status, resp.header.Get("Refresh"))
	}
	var cookie *http.Cookie
	for _, ck := range (&http.Response{Header: resp.header}).Cookies() {
		if ck.Name == roomCookie {
			cookie = ck
		}
	}
	if cookie == nil || cookie.Value != ikey || cookie.MaxAge < int(24*time.Hour/time.Second) || !cookie.HttpOnly || cookie.Path != "/rooms/"+id {
		t.Fatalf("the record's cookie = %+v; want the key, HttpOnly, on the room's path, for days", cookie)
	}
	if resp := ts.do(t, "GET", "/rooms/"+id+"/enter?key="+ckey, "", ""); resp.status != http.StatusGone || strings.Contains(strings.Join(resp.header.Values("Set-Cookie"), ";"), roomCookie+"=") {
		t.Fatalf("the candidate's link to a closed room: %d, cookies %q; want 410 and none", resp.status, resp.header.Values("Set-Cookie"))
	}
	if resp := ts.do(t, "GET", "/rooms/"+id, ikey, ""); resp.status != http.StatusGone {
		t.Fatalf("the closed room's live page for its interviewer: %d; want 410", resp.status)
	}
}
