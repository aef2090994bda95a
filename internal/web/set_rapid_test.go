package web

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
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
	b.get("/sets/rapid/rapid?q=1").mustContain(t, `href="/sets/rapid/rapid?q=2" data-rapid-next>Next: question 2 of 2`, "Q1-MODEL-MARKER")

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
