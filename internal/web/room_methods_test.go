package web

import (
	"net/http"
	"strings"
	"testing"
)

// TestRoomWrongMethods: a room's route asked with the wrong method says
// 405 with the methods it takes, for a browser and for the script alike,
// and GET /rooms (the address left after making a room) leads on.
func TestRoomWrongMethods(t *testing.T) {
	ts := newRoomTestServer(t)
	id, ikey, _ := ts.room(t, "problem:async-refund")
	base := "/rooms/" + id
	for _, tc := range []struct{ method, path, allow string }{
		{"GET", base + "/hints", "POST"},
		{"GET", base + "/end", "POST"},
		{"GET", base + "/notes", "POST"},
		{"POST", base, "GET"},
		{"POST", base + "/links", "GET"},
		{"POST", base + "/panel", "GET"},
		{"POST", base + "/scorecard", "GET"},
		{"DELETE", base + "/run", "POST"},
		{"POST", "/rooms/new", "GET"},
		{"PUT", "/rooms", "GET"},
	} {
		r := ts.do(t, tc.method, tc.path, ikey, "")
		if r.status != http.StatusMethodNotAllowed {
			t.Errorf("%s %s: %d; want 405", tc.method, tc.path, r.status)
			continue
		}
		if !strings.Contains(r.header.Get("Allow"), tc.allow) {
			t.Errorf("%s %s: Allow %q; want it to name %s", tc.method, tc.path, r.header.Get("Allow"), tc.allow)
		}
	}
	if r := ts.do(t, "GET", "/rooms", "", ""); r.status != http.StatusSeeOther || r.header.Get("Location") != "/rooms/new" {
		t.Errorf("GET /rooms: %d to %q; want 303 to /rooms/new", r.status, r.header.Get("Location"))
	}
}
