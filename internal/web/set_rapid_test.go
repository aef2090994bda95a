package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/storage"
)

// TestRapidFireRun walks the test set's two questions one at a time: each
// page holds one question and its progress, the next step appears only
// once the question is answered or revealed, and the summary says per
// question how it went.
func TestRapidFireRun(t *testing.T) {
	ts := newTestServer(t, testCatalog())
	b := ts.newBrowser(t)

	b.get("/sets/rapid").mustContain(t, `href="/sets/rapid/rapid?q=1"`, "Rapid fire: one question at a time")

	first := b.get("/sets/rapid/rapid")
	if first.status != http.StatusOK {
		t.Fatalf("GET /sets/rapid/rapid: status %d", first.status)
	}
	first.mustContain(t, "Question 1 of 2", `<progress class="rapid-progress" value="1" max="2"`, "What is RAG?",
		"The next question is offered when you submit or the time runs out.", `href="/sets/rapid/rapid?q=2">Skip this question`)
	first.mustNotContain(t, "Tell me about a project you led.", "data-rapid-next", "Q1-MODEL-MARKER")

	// Answering (as the timed box does, with its session) offers the next.
	session, _ := b.start(questionBase, "timed")
	status, got := b.submitTimed(questionBase, session, "Retrieval, then generation.")
	if status != http.StatusOK {
		t.Fatalf("submit: %d %v", status, got)
	}
	answered := b.get("/sets/rapid/rapid?q=1")
	answered.mustContain(t, `href="/sets/rapid/rapid?q=2" data-rapid-next>Next: question 2 of 2`, "Q1-MODEL-MARKER")
	// The next step is right under the answer and its comparison, before
	// the rest of the material; answering again is folded; nothing twice.
	compare, next := strings.Index(answered.body, "data-answer-compare"), strings.Index(answered.body, "data-rapid-next")
	again, material := strings.Index(answered.body, `<details class="answer-again"`), strings.Index(answered.body, `class="answer-material"`)
	if compare < 0 || again < compare || next < again || (material >= 0 && material < next) {
		t.Errorf("in order want the comparison (%d), the folded answer again (%d), the next step (%d), then the material (%d)", compare, again, next, material)
	}
	for _, w := range []string{"Q1-MODEL-MARKER", "<textarea", "Key points"} {
		if n := strings.Count(answered.body, w); n != 1 {
			t.Errorf("%q is on the answered page %d times; want once", w, n)
		}
	}

	second := b.get("/sets/rapid/rapid?q=2")
	second.mustContain(t, "Question 2 of 2", "Tell me about a project you led.", `href="/sets/rapid/rapid/summary">Skip to the summary`)
	second.mustNotContain(t, "What is RAG?")
	b.post("/sets/rapid/questions/a-project-you-led/reveal", nil)
	b.get("/sets/rapid/rapid?q=2").mustContain(t, `href="/sets/rapid/rapid/summary" data-rapid-next>See the summary`)

	// A self-assessment of the first answer shows in the summary.
	b.post(questionBase+"/assessment", url.Values{"answer": {fmt.Sprint(num(got["answer"]))}, "covered": {"0"}})
	sum := b.get("/sets/rapid/rapid/summary")
	sum.mustContain(t, "1 of 2 questions answered", "1. What is RAG?", "Timed: ", "1 of 1 key points covered",
		"Not answered: the model answer was revealed", `data-label="Self-assessment"`)
	if strings.Count(sum.body, "<tr>") != 1+2 {
		t.Errorf("the summary has %d rows; want a header and 2 questions", strings.Count(sum.body, "<tr>")-1)
	}
}

func TestRapidFireRefusesAQuestionNumberNotInTheSet(t *testing.T) {
	ts := newTestServer(t, testCatalog())
	b := ts.newBrowser(t)
	for _, q := range []string{"0", "3", "two", "-1"} {
		p := b.get("/sets/rapid/rapid?q=" + q)
		if p.status != http.StatusBadRequest {
			t.Errorf("q=%s: status %d; want 400", q, p.status)
		}
		p.mustContain(t, "use 1 to 2")
	}
	if p := b.get("/sets/no-such-set/rapid"); p.status != http.StatusNotFound {
		t.Errorf("an unknown set's run: status %d; want 404", p.status)
	}
}

// TestRapidFireWholeSetClock runs the set as one timed sequence: the start
// offers it with the sum of the limits, the server's clock (stored, not
// kept in memory) counts across the questions, the summary keeps the time
// the run took, running it again restarts the clock, and the clock stops at
// the whole limit.
func TestRapidFireWholeSetClock(t *testing.T) {
	ts, clock := newTimedServer(t)
	b := ts.newBrowser(t)
	t0 := clock.Now()

	first := b.get("/sets/rapid/rapid?q=1")
	first.mustContain(t, "data-run-whole", `action="/sets/rapid/rapid/start"`, "Run the whole set as one timed sequence (4:00 in all)")
	first.mustNotContain(t, "data-run-clock")
	b.get("/sets/rapid/rapid?q=2").mustNotContain(t, "data-run-whole", "data-run-clock")

	started := b.post("/sets/rapid/rapid/start", nil)
	if started.status != http.StatusOK {
		t.Fatalf("start the whole set: status %d", started.status)
	}
	started.mustContain(t, "Question 1 of 2", "Whole set as one timed sequence:", `data-clock-ms="240000" data-clock-running="true"`, ">4:00</span> left of 4:00.")
	started.mustNotContain(t, "data-run-whole")
	a, err := ts.store.Attempt(context.Background(), cookieUser(t, b), storage.KindSet, "rapid")
	if err != nil {
		t.Fatal(err)
	}
	if rc, err := ts.store.RunClock(context.Background(), a.ID); err != nil || !rc.StartedAt.Equal(t0) || rc.Limit != 4*time.Minute {
		t.Fatalf("stored clock = %+v, %v; want 4m from %v", rc, err, t0)
	}

	clock.Advance(30 * time.Second)
	session, _ := b.start(questionBase, "timed")
	clock.Advance(20 * time.Second)
	if status, got := b.submitTimed(questionBase, session, "Retrieval, then generation."); status != http.StatusOK {
		t.Fatalf("submit: %d %v", status, got)
	}
	clock.Advance(10 * time.Second)
	b.get("/sets/rapid/rapid?q=2").mustContain(t, `data-clock-ms="180000" data-clock-running="true"`, ">3:00</span> left of 4:00.")
	b.post("/sets/rapid/questions/a-project-you-led/reveal", nil)

	// Every question done, the run's time is its last answer's, read later.
	clock.Advance(10 * time.Minute)
	sum := b.get("/sets/rapid/rapid/summary")
	sum.mustContain(t, `data-clock-running="false"`, "0:50 of 4:00 used.", "Run it again as one timed sequence (4:00 in all)")
	sum.mustNotContain(t, "time is up")

	// Again: the old answers predate the new start, so the clock runs, and
	// it stops at the limit.
	b.post("/sets/rapid/rapid/start", nil).mustContain(t, ">4:00</span> left of 4:00.")
	clock.Advance(5 * time.Minute)
	b.get("/sets/rapid/rapid?q=1").mustContain(t, "4:00 of 4:00 used.", "The whole set's time is up.", `data-clock-running="false"`)
	b.get("/sets/rapid/rapid/summary").mustContain(t, "4:00 of 4:00 used.")

	if p := b.post("/sets/no-such-set/rapid/start", nil); p.status != http.StatusNotFound {
		t.Errorf("starting an unknown set: status %d; want 404", p.status)
	}
}

// TestRapidFireWholeSetBoundsAnswers: inside a run of the whole set an
// answer ends when the run does, whatever its own limit; once the run's
// time is up no answer starts, and the next question's box is locked with
// the way on offered.
func TestRapidFireWholeSetBoundsAnswers(t *testing.T) {
	ts, clock := newTimedServer(t)
	b := ts.newBrowser(t)
	b.post("/sets/rapid/rapid/start", nil).mustContain(t, ">4:00</span> left of 4:00.")
	// An answer begun with less of the run left than its own limit ends
	// with the run.
	clock.Advance(3*time.Minute + 30*time.Second)
	if status, got := b.postJSON(questionBase+"/timer/start", url.Values{"mode": {"timed"}}); status != http.StatusOK || num(got["limit_ms"]) != 30000 || num(got["remaining_ms"]) != 30000 {
		t.Fatalf("a start with 30 s of the run left = %d %v; want a 30 s limit", status, got)
	}
	clock.Advance(90 * time.Second)
	// Once it is up no answer starts, and the question's box is locked
	// with the way on offered.
	if status, got := b.postJSON("/sets/rapid/questions/a-project-you-led/timer/start", url.Values{"mode": {"timed"}}); status != http.StatusConflict ||
		!strings.Contains(fmt.Sprint(got["error"]), "The whole set's time is up") {
		t.Fatalf("a start after the run's time = %d %v; want 409 saying the time is up", status, got)
	}
	q2 := b.get("/sets/rapid/rapid?q=2")
	q2.mustContain(t, `data-state="locked"`, "data-rapid-next", "See the summary")
	if got := boxStates(q2.body); len(got) != 1 || got[0] != "locked" {
		t.Errorf("question 2's box after the run's time: %v; want locked", got)
	}
}

// TestRapidFireWholeSetBoundsUntimedAnswers: "no limit" inside a run of
// the whole set leaves off the question's own limit, not the run's: the
// box says the set's clock still runs, the answer comes back timed to the
// run's end, and once the run is up no untimed answer starts either.
// Outside a run "no limit" is what it says.
func TestRapidFireWholeSetBoundsUntimedAnswers(t *testing.T) {
	ts, clock := newTimedServer(t)
	b := ts.newBrowser(t)
	const inRun = "No limit of its own: the whole set's clock still runs and ends this answer with the run"
	before := b.get("/sets/rapid/rapid?q=1")
	before.mustContain(t, "No limit, for reading and thinking")
	before.mustNotContain(t, inRun)
	started := b.post("/sets/rapid/rapid/start", nil)
	started.mustContain(t, inRun)
	started.mustNotContain(t, "No limit, for reading and thinking")
	// The set's own page answers the same questions, bounded the same way.
	if n := strings.Count(b.get("/sets/rapid").body, inRun); n != 2 {
		t.Errorf("the set's page says %d times that the run's clock ends the answer; want once per question, 2", n)
	}
	clock.Advance(3*time.Minute + 30*time.Second)
	status, got := b.postJSON(questionBase+"/timer/start", url.Values{"mode": {"untimed"}})
	if status != http.StatusOK || got["mode"] != "timed" || num(got["limit_ms"]) != 30000 || num(got["remaining_ms"]) != 30000 {
		t.Fatalf("an untimed start with 30 s of the run left = %d %v; want it timed to the run's end, 30 s", status, got)
	}
	clock.Advance(90 * time.Second)
	if status, got := b.postJSON("/sets/rapid/questions/a-project-you-led/timer/start", url.Values{"mode": {"untimed"}}); status != http.StatusConflict ||
		!strings.Contains(fmt.Sprint(got["error"]), "The whole set's time is up") {
		t.Fatalf("an untimed start after the run's time = %d %v; want 409 saying the time is up", status, got)
	}
	b.get("/sets/rapid/rapid?q=2").mustNotContain(t, inRun)
	b.get("/sets/rapid").mustNotContain(t, inRun)
}

// TestRapidFireUntimedAnswerReadsUntimed: "no limit" inside a run of the
// whole set is timed to the run's end, but the answer is the candidate's
// untimed one wherever it is shown: the submit's reply, the run's
// summary and My practice. One the run's end cut off says so.
func TestRapidFireUntimedAnswerReadsUntimed(t *testing.T) {
	ts, clock := newTimedServer(t)
	b := ts.newBrowser(t)
	b.post("/sets/rapid/rapid/start", nil)
	clock.Advance(3*time.Minute + 30*time.Second)
	session, got := b.start(questionBase, "untimed")
	if got["mode"] != "timed" || num(got["limit_ms"]) != 30000 {
		t.Fatalf("an untimed start with 30 s of the run left = %v; want its session timed to the run's end", got)
	}
	clock.Advance(10 * time.Second)
	status, got := b.submitTimed(questionBase, session, "Retrieval, then generation.")
	if status != http.StatusOK || got["mode"] != "untimed" || num(got["time_used_ms"]) != 10000 || got["how_ended"] != "submitted" {
		t.Fatalf("the untimed answer's submit = %d %v; want it untimed, 10 s used", status, got)
	}
	// The second question, begun with 20 s left and sent after the run's
	// end and its grace: the run's clock ended it.
	second := "/sets/rapid/questions/a-project-you-led"
	session2, _ := b.start(second, "untimed")
	if status, _ := b.draft(second, session2, 1, "The migration I led."); status != http.StatusOK {
		t.Fatalf("draft: %d", status)
	}
	clock.Advance(30 * time.Second)
	if status, got := b.submitTimed(second, session2, "The migration I led, and more."); status != http.StatusOK || got["mode"] != "untimed" || got["how_ended"] != "expired" {
		t.Fatalf("the untimed answer sent after the run's end = %d %v; want it untimed, ended by the run", status, got)
	}
	for _, tt := range []struct {
		path string
		want []string
	}{
		{"/sets/rapid/rapid/summary", []string{"No limit: 0:10 used · 3 words", "No limit: the whole set&#39;s time ran out at 0:20 · 4 words"}},
		{"/practice", []string{"No limit: took 0:10 · 3 words", "No limit: the whole set&#39;s time ran out after 0:20 · 4 words"}},
	} {
		p := b.get(tt.path)
		p.mustContain(t, tt.want...)
		p.mustNotContain(t, "Timed: ")
	}
}

// TestRapidFireRevealComesBack: revealing a question from a rapid-fire run
// without a script comes back to the run's question with its next step;
// from the set's page (no rapid field), or with a number that is not the
// question's, to the set as before.
func TestRapidFireRevealComesBack(t *testing.T) {
	tests := []struct {
		name, rapid, want string
	}{
		{"from the run", "2", "Question 2 of 2"},
		{"from the set", "", "SET-INTRO"},
		{"a number not the question's", "1", "SET-INTRO"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newTestServer(t, testCatalog()).newBrowser(t)
			form := url.Values{}
			if tc.rapid != "" {
				form.Set("rapid", tc.rapid)
			}
			got := b.post("/sets/rapid/questions/a-project-you-led/reveal", form)
			got.mustContain(t, tc.want, "Q2-GUIDANCE-MARKER")
			if tc.rapid == "2" {
				got.mustContain(t, "data-rapid-next")
			}
		})
	}
}
