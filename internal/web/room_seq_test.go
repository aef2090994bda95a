package web

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestRoomCandidateSeesOwnNumbers: what the candidate's actions answer
// carries the number the event has in the candidate's stream, never the
// room's overall count, which would count (and time) the interviewer's
// notes and scores; an event the candidate's stream does not carry (a
// signal) answers with no number.
func TestRoomCandidateSeesOwnNumbers(t *testing.T) {
	ts := newRoomTestServer(t)
	id, ikey, ckey := ts.room(t, "problem:async-refund")
	base := func(id string) string { return "/rooms/" + id }
	// The interviewer's private events push the room's count up.
	for _, note := range []string{"one", "two", "three", "four", "five"} {
		if r := ts.do(t, "POST", base(id)+"/notes", ikey, url.Values{"notes": {note}}.Encode()); r.status != http.StatusOK {
			t.Fatalf("notes: %d %s", r.status, r.body)
		}
	}
	seqOf := func(r roomResponse) map[string]any {
		t.Helper()
		if r.status != http.StatusOK {
			t.Fatalf("%d %s", r.status, r.body)
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(r.body), &got); err != nil {
			t.Fatalf("%s: %v", r.body, err)
		}
		return got
	}
	cur := seqOf(ts.do(t, "POST", base(id)+"/cursor", ckey, `cursor={"item":0,"clientID":"candidate-x","version":0,"anchor":0,"head":0}`))
	// The candidate's stream has seen the room's creation and this cursor.
	if cur["seq"] != float64(2) {
		t.Errorf("the candidate's cursor answered %v; want seq 2, its number in the candidate's stream (the room is at 7)", cur)
	}
	sig := seqOf(ts.do(t, "POST", base(id)+"/signal", ckey, "signal=hidden"))
	if _, ok := sig["seq"]; ok {
		t.Errorf("the candidate's signal answered %v; want no number (the candidate's stream does not carry it)", sig)
	}
	// The interviewer's own actions go by the room's numbers.
	iv := seqOf(ts.do(t, "POST", base(id)+"/notes", ikey, "notes=six"))
	if iv["seq"] != float64(9) {
		t.Errorf("the interviewer's notes answered %v; want seq 9", iv)
	}
	// The candidate's stream numbers its events 1, 2, ... too.
	stream := ts.do(t, "GET", base(id)+"/events", ckey, "")
	if !strings.Contains(stream.body, "id: 2\n") || strings.Contains(stream.body, "id: 7\n") {
		t.Errorf("the candidate's stream:\n%s\nwant ids 1 and 2 only", stream.body)
	}
}
