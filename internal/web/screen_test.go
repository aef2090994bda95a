package web

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/storage"
)

// TestScreenIsTheCandidates: the screen's page leaves out the interviewer's
// script (the intro and each step's note), and practising it walks its
// steps in order, each with its progress, its start and the way on.
func TestScreenIsTheCandidates(t *testing.T) {
	ts := newTestServer(t, testCatalog())
	b := ts.newBrowser(t)
	b.get("/screens/tech-screen").mustNotContain(t, "SCREEN-INTRO", "NOTE-MARKER", "For the interviewer")

	tests := []struct {
		path       string
		wantStatus int
		want, not  []string
	}{
		{"/screens/tech-screen/practice/1", http.StatusOK,
			[]string{"Step 1 of 2", `<progress class="screen-progress" max="2" value="1"`,
				`href="/screens/tech-screen/practice/1" aria-current="step"><strong>Find the refund bug</strong>`,
				`href="/problems/refund-bug" data-step-start>Open the problem</a>`,
				`href="/screens/tech-screen/practice/2" rel="next" data-next-step>Next step: Rapid-fire questions</a>`},
			[]string{`rel="prev"`, "data-screen-done", "NOTE-MARKER", "SCREEN-INTRO"}},
		{"/screens/tech-screen/practice/2", http.StatusOK,
			[]string{"Step 2 of 2", `value="2"`, `aria-current="step"><strong>Rapid-fire questions</strong>`,
				`href="/sets/rapid/rapid?q=1" data-step-start>Start the questions, one at a time</a>`,
				`href="/screens/tech-screen/practice/1" rel="prev">Previous step: Find the refund bug</a>`,
				`href="/screens/tech-screen/practice/summary" data-screen-done>See the summary</a>`},
			[]string{"data-next-step", "NOTE-MARKER"}},
		{"/screens/tech-screen/practice/3", http.StatusNotFound,
			[]string{"The screen Tech screen has no step 3; its steps are numbered 1 to 2."}, nil},
		{"/screens/tech-screen/practice/0", http.StatusNotFound, []string{"has no step 0"}, nil},
		{"/screens/tech-screen/practice/first", http.StatusNotFound, []string{"has no step"}, nil},
		{"/screens/nope/practice/1", http.StatusNotFound, []string{"There is no screen called nope."}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			p := b.get(tt.path)
			if p.status != tt.wantStatus {
				t.Fatalf("GET %s: status %d, want %d", tt.path, p.status, tt.wantStatus)
			}
			p.mustContain(t, tt.want...)
			p.mustNotContain(t, tt.not...)
		})
	}
}

// TestScreenPracticeSummary: the end of the practice lists each step with
// what storage says was done in it, and says "Not started" for the rest.
func TestScreenPracticeSummary(t *testing.T) {
	ts := newTestServer(t, testCatalog())
	b := ts.newBrowser(t)
	const summary = "/screens/tech-screen/practice/summary"
	before := b.get(summary)
	before.mustContain(t, "data-screen-summary", `href="/screens/tech-screen/practice/1">Find the refund bug`,
		`href="/screens/tech-screen/practice/2">Rapid-fire questions`)
	if n := strings.Count(before.body, `data-progress="not-started"`); n != 2 {
		t.Errorf("before anything, %d steps are marked not started; want 2", n)
	}
	b.post("/sets/rapid/questions/what-is-rag/answer", url.Values{"answer": {"Retrieval, then generation."}})
	after := b.get(summary)
	after.mustContain(t, `data-progress="answered">1 of 2 answered`)
	if n := strings.Count(after.body, `data-progress="not-started"`); n != 1 {
		t.Errorf("after answering a question, %d steps are marked not started; want 1", n)
	}
	if p := b.get("/screens/nope/practice/summary"); p.status != http.StatusNotFound {
		t.Errorf("an unknown screen's summary: status %d; want 404", p.status)
	}
}

// TestScreenRunClock: practising the screen as a whole starts its clock
// (45:00 from content) on the button, not on a page load; the step pages
// draw it from the server's clock, a reload shows the same time, moving
// on is a POST that counts each step's time, and the summary shows the
// time per step. Once the time is up a move ends the run at the deadline.
func TestScreenRunClock(t *testing.T) {
	ts, clock := newTimedServer(t)
	b := ts.newBrowser(t)
	const base = "/screens/tech-screen"
	b.get(base+"/practice/1").mustNotContain(t, "data-run-clock")
	b.get("/problems/refund-bug").mustNotContain(t, "data-screen-strip", "run-clock.js")
	b.get(base).mustContain(t, `action="/screens/tech-screen/practice/start"`, "Practise this screen",
		"A 45:00 clock starts when you press the button")

	step1 := b.post(base+"/practice/start", nil)
	step1.mustContain(t, "Step 1 of 2", "data-run-clock", `data-clock-dir="down"`, `data-clock-ms="2700000"`,
		`data-clock-running="true"`, ">45:00</span>", "left of 45:00", `data-step-clock data-clock-ms="0"`,
		`action="/screens/tech-screen/practice/2"`, "data-next-step", "run-clock.js?v=")
	step1.mustNotContain(t, `rel="next"`)

	clock.Advance(4*time.Minute + 30*time.Second)
	for range 2 { // a reload keeps the time, and writes nothing
		b.get(base+"/practice/1").mustContain(t, `data-clock-ms="2430000"`, ">40:30</span>", `data-step-clock data-clock-ms="270000"`, ">4:30</span>")
	}
	// The problem step 1 opens shows the screen's clock, and leads back.
	b.get("/problems/refund-bug").mustContain(t, "data-screen-strip", `href="/screens/tech-screen/practice/1">Tech screen, step 1 of 2</a>`,
		`data-clock-ms="2430000"`, ">40:30</span>", `data-clock-running="true"`, `data-clock-on-up="note"`, "data-clock-up-note hidden>", "run-clock.js?v=")
	// Viewing step 2 does not move the clock; the page offers to.
	b.get(base+"/practice/2").mustContain(t, "The clock is counting step 1: Find the refund bug.", "data-move-clock")
	b.get(base).mustContain(t, "Continue practising: step 1 of 2", "4:30 used so far", "Practise it again from step 1")

	b.get("/sets/rapid/rapid?q=1").mustNotContain(t, "data-screen-strip")
	step2 := b.post(base+"/practice/2", nil)
	step2.mustContain(t, "Step 2 of 2", `data-step-clock data-clock-ms="0"`, `action="/screens/tech-screen/practice/finish"`, "data-screen-done")
	b.get("/problems/refund-bug").mustNotContain(t, "data-screen-strip")
	// The set this step opens shows the screen's clock, and leads back.
	for _, path := range []string{"/sets/rapid/rapid?q=1", "/sets/rapid/rapid/summary"} {
		b.get(path).mustContain(t, "data-screen-strip", `href="/screens/tech-screen/practice/2">Tech screen, step 2 of 2</a>`,
			`data-clock-ms="2430000"`, ">40:30</span>", `data-clock-on-up="note"`)
	}
	clock.Advance(2 * time.Minute)
	sum := b.post(base+"/practice/finish", nil)
	sum.mustContain(t, "6:30 used of 45:00.", "Time on this step: 4:30", "(planned: about 30 minutes)", "Time on this step: 2:00")
	sum.mustNotContain(t, "Finish now")
	b.get("/sets/rapid/rapid?q=1").mustNotContain(t, "data-screen-strip")
	clock.Advance(time.Hour)
	b.get(base+"/practice/summary").mustContain(t, "6:30 used of 45:00.")
	b.get(base).mustContain(t, "data-last-summary", "(6:30 used)", "Practise it again from step 1")

	// Again, and this time let the clock run out on step 1.
	b.post(base+"/practice/start", nil).mustContain(t, ">45:00</span>")
	clock.Advance(50 * time.Minute)
	b.get(base+"/practice/1").mustContain(t, "The screen's time is up.", `data-clock-running="false"`, ">0:00</span>")
	// A reload of the problem after the deadline still says so, still
	// stopped, until a move closes the run.
	b.get("/problems/refund-bug").mustContain(t, "data-screen-strip", `data-clock-running="false"`, ">0:00</span>",
		`data-clock-up-note>The screen's time is up. <a href="/screens/tech-screen/practice/summary">See the summary</a>`)
	over := b.post(base+"/practice/2", nil)
	over.mustContain(t, "<h1>Summary</h1>", "The screen's time ran out at 45:00.", "Time on this step: 45:00", "Time on this step: 0:00")
	b.get("/problems/refund-bug").mustNotContain(t, "data-screen-strip")

	if p := b.post("/screens/tech-screen/practice/3", nil); p.status != http.StatusNotFound {
		t.Errorf("a move to step 3 of 2: status %d; want 404", p.status)
	}
}

// TestScreenRunSurvivesARestart: the screen's clock and its step times are
// in the database, not in the server's memory: a new server over the same
// file carries on where the old one stopped.
func TestScreenRunSurvivesARestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "web.db")
	clock := &testClock{now: time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)}
	open := func() (*Server, *storage.Store) {
		store, err := storage.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		app, err := New(Config{Catalog: testCatalog(), Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		app.clock = clock.Now
		return app, store
	}
	first, store := open()
	srv := httptest.NewServer(first)
	t.Cleanup(srv.Close)
	b := (&testServer{Server: srv, app: first, store: store}).newBrowser(t)
	const base = "/screens/tech-screen"
	b.post(base+"/practice/start", nil)
	clock.Advance(3 * time.Minute)
	b.post(base+"/practice/2", nil)
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}

	second, store := open()
	t.Cleanup(func() { store.Close() })
	srv.Config.Handler = second // the restart
	clock.Advance(time.Minute)
	b.get(base+"/practice/2").mustContain(t, `data-clock-ms="2460000"`, ">41:00</span>", `data-step-clock data-clock-ms="60000"`)
	b.post(base+"/practice/finish", nil).mustContain(t, "4:00 used of 45:00.", "Time on this step: 3:00", "Time on this step: 1:00")
}
