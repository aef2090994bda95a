package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
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
