package rooms

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/storage"
	"github.com/faultline-dev/faultline/internal/timer"

	"github.com/yuin/goldmark"
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

// TestClockUsedStopsWithTheStep: a step's clock counts only while the
// room is on it. Before the fold held it at the move, a clock nobody
// paused ran on to the room's end, and the scorecard said more clock time
// was used than the room spent on the step.
func TestClockUsedStopsWithTheStep(t *testing.T) {
	type step struct {
		action string // "start", "pause", "resume", "next", "end", "wait"
		wait   time.Duration
	}
	w := func(d time.Duration) step { return step{action: "wait", wait: d} }
	do := func(a string) step { return step{action: a} }
	cases := []struct {
		name      string
		steps     []step
		used      []time.Duration // clock used of steps 1 and 2
		onStep    []time.Duration
		lastPhase timer.ClockPhase // the current step's clock at the end, as a view reads it
	}{
		{"never paused, moved on, then ended",
			[]step{do("start"), w(3 * time.Minute), do("next"), w(10 * time.Minute), do("end"), w(time.Minute)},
			[]time.Duration{3 * time.Minute, 0}, []time.Duration{3 * time.Minute, 10 * time.Minute}, timer.ClockIdle},
		{"paused a minute, moved on while running",
			[]step{do("start"), w(time.Minute), do("pause"), w(time.Minute), do("resume"), w(time.Minute), do("next"), w(5 * time.Minute), do("end")},
			[]time.Duration{2 * time.Minute, 0}, []time.Duration{3 * time.Minute, 5 * time.Minute}, timer.ClockIdle},
		{"moved on while paused",
			[]step{do("start"), w(time.Minute), do("pause"), w(time.Minute), do("next"), w(5 * time.Minute), do("end")},
			[]time.Duration{time.Minute, 0}, []time.Duration{2 * time.Minute, 5 * time.Minute}, timer.ClockIdle},
		{"both clocks run; the room ends on the second",
			[]step{do("start"), w(2 * time.Minute), do("next"), do("start"), w(90 * time.Second), do("end"), w(time.Hour / 2)},
			[]time.Duration{2 * time.Minute, 90 * time.Second}, []time.Duration{2 * time.Minute, 90 * time.Second}, timer.ClockPaused},
		{"time up before the move: the limit (35 min), not more",
			[]step{do("start"), w(50 * time.Minute), do("next"), w(time.Minute), do("end")},
			[]time.Duration{35 * time.Minute, 0}, []time.Duration{50 * time.Minute, time.Minute}, timer.ClockIdle},
		{"never started",
			[]step{w(time.Minute), do("next"), w(time.Minute), do("end")},
			[]time.Duration{0, 0}, []time.Duration{time.Minute, time.Minute}, timer.ClockIdle},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			f := newFixture(t)
			_, ia, _ := f.create(t, storage.RoomFromScreen, "applied-ai-tech-screen")
			var lastEvents []storage.RoomEvent
			for _, st := range tc.steps {
				var err error
				switch st.action {
				case "wait":
					f.clock.Add(st.wait)
				case "start":
					_, err = f.svc.Timer(ctx, ia, TimerStart, 0)
				case "pause":
					_, err = f.svc.Timer(ctx, ia, TimerPause, 0)
				case "resume":
					_, err = f.svc.Timer(ctx, ia, TimerResume, 0)
				case "next":
					_, err = f.svc.NextItem(ctx, ia)
				case "end":
					_, err = f.svc.End(ctx, ia)
				}
				if err != nil {
					t.Fatalf("%s: %v", st.action, err)
				}
			}
			sc, err := f.svc.Scorecard(ctx, ia)
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range tc.used {
				it := sc.Items[i]
				if got := time.Duration(it.ClockUsedMS) * time.Millisecond; got != want {
					t.Errorf("step %d: clock used %v; want %v", i+1, got, want)
				}
				if got := time.Duration(it.TimeOnStepMS) * time.Millisecond; got != tc.onStep[i] {
					t.Errorf("step %d: time on the step %v; want %v", i+1, got, tc.onStep[i])
				}
				if it.ClockUsedMS > it.TimeOnStepMS {
					t.Errorf("step %d: the clock used %d ms of %d ms on the step", i+1, it.ClockUsedMS, it.TimeOnStepMS)
				}
			}
			if lastEvents, err = f.svc.readState(ctx, ia.Room.ID); err != nil {
				t.Fatal(err)
			}
			fd, err := fold(ia.Items, lastEvents)
			if err != nil {
				t.Fatal(err)
			}
			if got := clockAt(fd.sh.clocks[fd.sh.current], f.clock.Now()).Phase; got != tc.lastPhase {
				t.Errorf("the current step's clock after the end: %s; want %s", got, tc.lastPhase)
			}
		})
	}
}

// TestMarkdownQuoteEscapes: the candidate's answer, rendered by a
// CommonMark viewer from the scorecard's Markdown, is one quote holding
// the text as typed: no line escapes it (a lone carriage return ends a
// line in CommonMark), and nothing in it becomes an image, a link, HTML,
// a heading, a list or emphasis.
func TestMarkdownQuoteEscapes(t *testing.T) {
	cases := []struct{ name, answer, shows string }{
		{"lone carriage return", "first\r# Heading outside", "# Heading outside"},
		{"CRLF and LF", "one\r\ntwo\nthree", "three"},
		{"remote image", "see ![x](https://evil.example/p.png)", "![x](https://evil.example/p.png)"},
		{"link", "[click](https://evil.example)", "[click](https://evil.example)"},
		{"raw HTML", `<img src="https://evil.example/p.png"> <script>alert(1)</script>`, `<img src="https://evil.example/p.png">`},
		{"autolink", "<https://evil.example>", "<https://evil.example>"},
		{"emphasis and code", "*strong* _em_ `code`", "*strong* _em_ `code`"},
		{"list and heading at a line's start", "- item\n1. one\n## two", "1. one"},
		{"indented code", "    four spaces", "four spaces"},
		{"entity", "&amp; &lt;", "&amp; &lt;"},
		{"a quote's end", "text\n\nafter a blank line", "after a blank line"},
		{"setext underline", "Title\n===", "==="},
		{"backslash", `a \* b`, `a \* b`},
	}
	md := goldmark.New()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			quote(&b, tc.answer)
			var out bytes.Buffer
			if err := md.Convert([]byte(b.String()), &out); err != nil {
				t.Fatal(err)
			}
			h := out.String()
			if !strings.HasPrefix(h, "<blockquote>\n") || !strings.HasSuffix(h, "</blockquote>\n") || strings.Count(h, "<blockquote>") != 1 {
				t.Errorf("not one quote:\n%s\nfrom\n%s", h, b.String())
			}
			for _, bad := range []string{"<img", "<a ", "<h1", "<h2", "<ul", "<ol", "<em", "<strong", "<code", "<pre", "<script", "raw HTML", "<hr"} {
				if strings.Contains(h, bad) {
					t.Errorf("the answer became markup (%s):\n%s", bad, h)
				}
			}
			if !strings.Contains(html.UnescapeString(h), tc.shows) {
				t.Errorf("the quote does not show %q as typed:\n%s", tc.shows, h)
			}
		})
	}
}

// TestMarkdownFencedCode: the final code is one code block whatever it
// holds: backtick fences, a lone carriage return, Markdown.
func TestMarkdownFencedCode(t *testing.T) {
	code := "x := `raw`\r```\n# not a heading\n````go\n![img](https://evil.example/p.png)\n"
	var b strings.Builder
	fenced(&b, "go", code)
	var out bytes.Buffer
	if err := goldmark.New().Convert([]byte(b.String()+"after\n"), &out); err != nil {
		t.Fatal(err)
	}
	h := out.String()
	if strings.Count(h, "<pre>") != 1 || strings.Contains(h, "<h1") || strings.Contains(h, "<img") || !strings.HasSuffix(h, "</code></pre>\n<p>after</p>\n") {
		t.Errorf("the code is not one block:\n%s\nfrom\n%s", h, b.String())
	}
	if !strings.Contains(html.UnescapeString(h), "# not a heading\n````go\n![img]") {
		t.Errorf("the block does not hold the code as written:\n%s", h)
	}
}
