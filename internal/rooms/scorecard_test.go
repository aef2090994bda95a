package rooms

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/storage"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata from the current output")

// golden compares got with testdata/name, or rewrites it with -update.
// The room's id is random, so it is replaced by ROOM first.
func golden(t *testing.T, name, roomID, got string) {
	t.Helper()
	got = strings.ReplaceAll(got, roomID, "ROOM")
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (run with -update after checking the change):\n%s", name, got)
	}
}

func TestScorecardGolden(t *testing.T) {
	f := newFixture(t)
	s := playSession(t, f)
	sc, err := f.svc.Scorecard(context.Background(), s.ia)
	if err != nil {
		t.Fatal(err)
	}
	data, err := sc.JSON()
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "scorecard.golden.json", s.ia.Room.ID, string(data))
	golden(t, "scorecard.golden.md", s.ia.Room.ID, sc.Markdown())
}

// TestScorecardShape holds the JSON to its documented shape: version 1,
// and lists present (never null) even for a room where nothing happened.
func TestScorecardShape(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	_, ia, _ := f.create(t, storage.RoomFromProblem, "async-refund")
	f.clock.Add(90 * time.Second)
	sc, err := f.svc.Scorecard(ctx, ia)
	if err != nil {
		t.Fatal(err)
	}
	data, err := sc.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"version", "room", "recommendation", "items", "notes", "signals"} {
		if _, ok := top[key]; !ok {
			t.Errorf("the scorecard has no %q", key)
		}
	}
	for _, key := range []string{"items", "signals"} {
		if string(top[key]) == "null" {
			t.Errorf("%q is null; lists are never null", key)
		}
	}
	if string(top["version"]) != "1" {
		t.Errorf("version = %s; want 1", top["version"])
	}
	it := sc.Items[0]
	if it.Rubric == nil || it.Runs == nil || len(it.Rubric) == 0 || it.Score != 0 || it.MaxScore != MaxScore*len(it.Rubric) {
		t.Errorf("the unscored item = %+v", it)
	}
	for _, p := range it.Rubric {
		if p.Score != nil {
			t.Errorf("point %+v is scored; nothing was", p)
		}
	}
	if sc.Room.EndedAt != nil || sc.Room.DurationMS != 90_000 || it.TimeOnStepMS != 90_000 || it.ClockUsedMS != 0 {
		t.Errorf("an open room 90 s old: %+v, item %+v", sc.Room, it)
	}
	// A room left to expire lasts until its expiry, not until now.
	f.clock.Add(5 * time.Hour)
	if sc, err = f.svc.Scorecard(ctx, ia); err != nil || sc.Room.DurationMS != time.Hour.Milliseconds() {
		t.Errorf("an expired room's duration: %d ms, %v; want an hour, its TTL", sc.Room.DurationMS, err)
	}
}

func TestMarkdownCells(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain", "plain"},
		{"a | b", `a \| b`},
		{"two\nlines", "two lines"},
		{"  spaced\t out ", "spaced out"},
	}
	for _, tc := range cases {
		if got := cell(tc.in); got != tc.want {
			t.Errorf("cell(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}
