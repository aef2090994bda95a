package web

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/problems"
)

// TestReviewQueue answers a question with a prediction, ticks its key
// points, and follows the item through /review, the catalogue and My
// practice as the server's clock moves.
func TestReviewQueue(t *testing.T) {
	cat := testCatalog()
	cat.Sets[0].Questions[0].KeyPoints = items("KP-A", "KP-B", "KP-C", "KP-D")
	ts := newTestServer(t, cat)
	clock := &testClock{now: time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)}
	ts.app.clock = clock.Now
	b := ts.newBrowser(t)

	b.get("/review").mustContain(t, "<h1>Review</h1>", "Nothing is due")
	b.get("/sets/rapid").mustContain(t, `name="predicted" min="0" max="4"`)

	// A prediction out of range is refused, saying what was wrong.
	status, got := b.postJSON(questionBase+"/answer", url.Values{"answer": {"my answer"}, "predicted": {"5"}})
	if status != http.StatusBadRequest || !strings.Contains(fmt.Sprint(got["error"]), "give 0 to 4") {
		t.Fatalf("prediction of 5 of 4: %d %v", status, got)
	}
	status, got = b.postJSON(questionBase+"/answer", url.Values{"answer": {"my answer"}, "predicted": {"4"}})
	if status != http.StatusOK {
		t.Fatalf("submit: %d %v", status, got)
	}
	answer := fmt.Sprint(num(got["answer"]))

	// Answered, not ticked: due tomorrow.
	b.get("/review").mustContain(t, "Nothing is due", "Coming later", "Rapid-fire questions: What is RAG?",
		`href="/sets/rapid?again=what-is-rag#answer-what-is-rag"`, "tick its key points")

	// The link opens the box ready to answer again: the last answer and
	// the model answer folded away above the open form; other boxes and
	// the page without ?again= are as ever.
	again := b.get("/sets/rapid?again=what-is-rag")
	again.mustContain(t, `id="answer-what-is-rag-box"`, `data-again`, `<details class="answer-last" data-answer-last><summary>Your last answer, the model answer and the key points (open them after answering)</summary>`,
		`<label for="answer-what-is-rag">Answer question 1 again</label>`)
	if n := strings.Count(again.body, "data-again"); n != 1 {
		t.Errorf("%d boxes opened to answer again; want the one named", n)
	}
	if plain := b.get("/sets/rapid"); strings.Contains(plain.body, "data-again") || strings.Contains(plain.body, "data-answer-last") {
		t.Error("the set page without ?again= folds the last answer away")
	}
	b.get("/").mustContain(t, "Nothing due for review", `href="/review"`)

	// Ticked 2 of 4 after predicting 4: SM-2 gives a day for a first pass.
	clock.Advance(time.Minute)
	if status, got := b.postJSON(questionBase+"/assessment", url.Values{"answer": {answer}, "covered": {"0", "2"}}); status != 200 {
		t.Fatalf("assessment: %d %v", status, got)
	}
	p := b.get("/practice")
	p.mustContain(t, "Predictions and ticks", `role="img"`, `<title id="calibration-title">`, "<desc id=\"calibration-desc\">",
		"<caption>Every answer with a prediction, oldest first</caption>", "4 of 4", "2 of 4", "over by 2 points",
		"predicted more key points than ticked 1 time", "On average you predicted 50% of the key points more than you ticked")

	clock.Advance(24 * time.Hour)
	b.get("/review").mustContain(t, "Due now", `data-review-due`, "Rapid-fire questions: What is RAG?",
		"Reviewed 1 time in a row; latest interval 1 day")
	b.get("/").mustContain(t, "1 review due now", `<p class="review-due" data-review-due-entry><a href="/review">1 review due</a></p>`)
	b.get("/practice").mustContain(t, "1 review due now")

	// Another user sees nothing of it.
	ts.newBrowser(t).get("/review").mustContain(t, "Nothing is due")
	if strings.Contains(ts.newBrowser(t).get("/").body, "data-review-notice") {
		t.Error("a new visitor's catalogue mentions a review queue")
	}
}

// TestRubricMarks submits an answer to a question whose key points list
// phrases: the box marks each point beside its checkbox, with the words
// that earned the mark highlighted in the answer, and the ticks stay the
// candidate's.
func TestRubricMarks(t *testing.T) {
	cat := testCatalog()
	q := &cat.Sets[0].Questions[0]
	q.KeyPoints = items("KP-REUSE", "KP-REPLAY", "KP-NOPHRASES")
	q.KeyPoints[0].Shows = []problems.Phrase{{Text: "reuse the same key"}}
	q.KeyPoints[0].Contradicts = []problems.Phrase{{Text: "new key for each retry"}}
	q.KeyPoints[1].Shows = []problems.Phrase{{Text: "replays the first result"}}
	ts := newTestServer(t, cat)
	b := ts.newBrowser(t)
	status, got := b.postJSON(questionBase+"/answer", url.Values{"answer": {"Make a new key for each retry <b>now</b>."}})
	if status != http.StatusOK {
		t.Fatalf("submit: %d %v", status, got)
	}
	p := b.get("/sets/rapid")
	p.mustContain(t, `data-matched-answer`, `<mark class="match-hit">new key for each retry</mark>`, "&lt;b&gt;now&lt;/b&gt;",
		`data-match="contradicted"`, `Matcher: contradicted (matched the misconception &#34;new key for each retry&#34;; your words: “new key for each retry”)`,
		`data-match="not-found"`, "Matcher: not found", `aria-describedby="answer-what-is-rag-kp-0-match"`, "Your ticks are what count")
	if strings.Contains(p.body, `id="answer-what-is-rag-kp-2-match"`) {
		t.Error("a key point with no phrases got a mark")
	}
	if regexp.MustCompile(`name="covered"[^>]*checked`).MatchString(p.body) {
		t.Error("the matcher ticked a box")
	}
}

// TestCalibrationChartGeometry: the chart's points sit on the frame, a
// share of 1 at the top line and 0 at the bottom one, oldest at the left.
func TestCalibrationChartGeometry(t *testing.T) {
	v := calibrationView{Rows: []calibrationRow{{Predicted: 4, Covered: 2, Of: 4}, {Predicted: 0, Covered: 3, Of: 3}}}
	top, bottom := calY(1), calY(0)
	if top != calPadTop || bottom != calH-calPadBottom {
		t.Fatalf("calY(1) = %v, calY(0) = %v; want %d and %d", top, bottom, calPadTop, calH-calPadBottom)
	}
	want := fmt.Sprintf("%.1f,%.1f %.1f,%.1f", float64(calPadX), top, float64(calW-calPadX), bottom)
	if got := v.points(true); got != want {
		t.Errorf("predicted points %q; want %q", got, want)
	}
	if got := v.points(false); !strings.HasPrefix(got, fmt.Sprintf("%.1f,%.1f ", float64(calPadX), calY(0.5))) {
		t.Errorf("ticked points %q; want the first at half height", got)
	}
	if one := (calibrationView{Rows: v.Rows[:1]}); one.points(false) != fmt.Sprintf("%.1f,%.1f", float64(calW)/2, calY(0.5)) {
		t.Errorf("a single answer is drawn at %q; want the middle", one.points(false))
	}
}

// TestReviewPlainFormAnswers: a problem answered in the plain form enters
// the queue when it has key points to rate it by, and its link opens the
// form with the last answer folded away; with no key points it stays out.
func TestReviewPlainFormAnswers(t *testing.T) {
	cat := testCatalog()
	cat.Problems[0].StrongAnswer = items("KP-A", "KP-B")
	b := newTestServer(t, cat).newBrowser(t)
	b.post("/problems/design-client/answer", url.Values{"answer": {"PLAIN-ANSWER-MARKER"}})
	b.get("/review").mustContain(t, "Coming later", `href="/problems/design-client?again=1#answer-text"`, "Design a safe client")
	again := b.get("/problems/design-client?again=1")
	again.mustContain(t, `<details class="answer-last" data-answer-last><summary>What you submitted last and the key points (open them after answering)</summary>`,
		"PLAIN-ANSWER-MARKER", `id="answer-text"`)
	if strings.Contains(b.get("/problems/design-client").body, "data-answer-last") {
		t.Error("the problem page without ?again= folds the last answer away")
	}

	none := newTestServer(t, testCatalog()).newBrowser(t)
	none.post("/problems/design-client/answer", url.Values{"answer": {"PLAIN-ANSWER-MARKER"}})
	if p := none.get("/review"); strings.Contains(p.body, "Coming later") || strings.Contains(p.body, "data-review-item") {
		t.Error("an answer to a problem with no key points entered the queue")
	}
}

// TestReviewPlainFormAnswerIsRated: a plain-form answer (a problem with no
// timed box) is queued, so the page must let the candidate tick its key
// points, and the ticks rate the queued item; opened from the queue, the
// tick form is folded with the last answer.
func TestReviewPlainFormAnswerIsRated(t *testing.T) {
	cat := testCatalog()
	cat.Problems[0].StrongAnswer = items("KP-A", "KP-B")
	ts := newTestServer(t, cat)
	clock := &testClock{now: time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)}
	ts.app.clock = clock.Now
	b := ts.newBrowser(t)
	const base = "/problems/design-client"
	// Before an answer there is nothing to tick, and the page does not pay
	// for the tick form's styles (the first visit's weight, issue 27).
	if first := b.get(base); strings.Contains(first.body, "review.css") || strings.Contains(first.body, "timed-answer.css") {
		t.Error("the plain form's page links the tick form's styles before there is an answer to tick")
	}
	b.post(base+"/answer", url.Values{"answer": {"PLAIN-ANSWER-MARKER"}, "predicted": {"2"}})
	shown := b.get(base)
	shown.mustContain(t, `action="/problems/design-client/assessment"`, `name="covered" value="0"`, `name="covered" value="1"`, "review.css", "timed-answer.css")
	m := regexp.MustCompile(`name="answer" value="(\d+)"`).FindStringSubmatch(shown.body)
	if m == nil {
		t.Fatal("the plain form's tick form names no answer")
	}
	again := b.get(base + "?again=1")
	again.mustContain(t, `<summary>What you submitted last and the key points (open them after answering)</summary>`)
	if i, j := strings.Index(again.body, "data-answer-last"), strings.Index(again.body, `name="covered"`); j < i {
		t.Error("with ?again=1 the tick form is not folded with the last answer")
	}

	clock.Advance(time.Minute)
	tests := []struct {
		name   string
		form   url.Values
		status int
	}{
		{"no such key point", url.Values{"answer": {m[1]}, "covered": {"2"}}, http.StatusBadRequest},
		{"ticked both", url.Values{"answer": {m[1]}, "covered": {"0", "1"}}, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if status, got := b.postJSON(base+"/assessment", tt.form); status != tt.status {
				t.Fatalf("assessment: %d %v; want %d", status, got, tt.status)
			}
		})
	}
	b.get(base).mustContain(t, "Saved: 2 of 2 key points covered")
	clock.Advance(24 * time.Hour)
	b.get("/review").mustContain(t, "Due now", "Design a safe client", "Reviewed 1 time in a row; latest interval 1 day")

	// A timed box's clock is still refused to a problem without one.
	if status, _ := b.postJSON(base+"/timer/start", url.Values{"mode": {"timed"}}); status != http.StatusNotFound {
		t.Errorf("timer start on a plain-form problem: %d; want 404", status)
	}
}

// TestReviewAgainFoldsKeyPoints: a problem opened from the review queue
// (?again=1) shows none of its key points or part rubrics until the
// candidate opens a disclosure, in the timed box and the plain form alike;
// without ?again= they are in view as ever.
func TestReviewAgainFoldsKeyPoints(t *testing.T) {
	markers := []string{"STRONG-MARKER", "RUBRIC-1-MARKER", "RUBRIC-2-MARKER"}
	tests := []struct {
		name  string
		timed bool
	}{
		{"timed box", true},
		{"plain form", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cat := testCatalog()
			if !tt.timed {
				cat.Problems[1].TimedAnswer = 0
			}
			b := newTestServer(t, cat).newBrowser(t)
			b.post(problemBase+"/answer", url.Values{"answer": {"my answer"}})
			again := b.get(problemBase + "?again=1")
			plain := b.get(problemBase)
			for _, m := range markers {
				if !strings.Contains(again.body, m) {
					t.Errorf("?again=1 leaves %s out altogether; want it folded", m)
				}
				if visibleOutsideDetails(again.body, m) {
					t.Errorf("?again=1 shows %s outside a closed disclosure", m)
				}
				if !visibleOutsideDetails(plain.body, m) {
					t.Errorf("without ?again= %s is folded away", m)
				}
			}
		})
	}
}

// visibleOutsideDetails reports whether marker occurs in body outside every
// <details> element (none of the page's disclosures is drawn open).
func visibleOutsideDetails(body, marker string) bool {
	for i := 0; ; {
		j := strings.Index(body[i:], marker)
		if j < 0 {
			return false
		}
		i += j
		if strings.Count(body[:i], "<details") == strings.Count(body[:i], "</details>") {
			return true
		}
		i += len(marker)
	}
}

// TestReviewItemWhoseContentIsGone: an answered question whose set leaves
// the content is never due again (nothing can be answered for it) and is
// counted in no total; /review lists it apart, without a link, so the
// history is not lost.
func TestReviewItemWhoseContentIsGone(t *testing.T) {
	cat := testCatalog()
	cat.Sets[0].Questions[0].KeyPoints = items("KP-A", "KP-B")
	content := NewContent(cat)
	app, _ := newTestApp(t, Config{Content: content})
	clock := &testClock{now: time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)}
	app.clock = clock.Now
	srv := httptest.NewServer(app)
	t.Cleanup(srv.Close)
	b := (&testServer{Server: srv, app: app}).newBrowser(t)
	if status, got := b.postJSON(questionBase+"/answer", url.Values{"answer": {"my answer"}}); status != http.StatusOK {
		t.Fatalf("submit: %d %v", status, got)
	}
	clock.Advance(48 * time.Hour)
	b.get("/").mustContain(t, "1 review due now")

	gone := testCatalog()
	gone.Sets = nil
	gone.Screens = nil
	content.Replace(gone)
	page := b.get("/review")
	page.mustContain(t, "Nothing is due", "No longer in the catalogue", "data-review-gone", "rapid: what-is-rag")
	if strings.Contains(page.body, "data-review-due") {
		t.Error("an item with no content is listed as due")
	}
	for _, path := range []string{"/", "/practice"} {
		if p := b.get(path); strings.Contains(p.body, "review due now") || strings.Contains(p.body, "data-review-notice") {
			t.Errorf("GET %s still counts the item whose content is gone", path)
		}
	}
}
