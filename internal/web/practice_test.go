package web

import (
	"net/url"
	"strings"
	"testing"
)

func TestPracticeHistory(t *testing.T) {
	ts := newTestServer(t, testCatalog())
	b := ts.newBrowser(t)

	t.Run("empty for a new visitor", func(t *testing.T) {
		p := b.get("/practice")
		if p.status != 200 {
			t.Fatalf("status %d", p.status)
		}
		p.mustContain(t, "My practice", "Nothing yet.", `<label for="display-name"`)
	})

	b.post("/problems/refund-bug/hints", url.Values{"part": {"1"}, "hint": {"1"}})
	b.post("/problems/refund-bug/hints", url.Values{"part": {"1"}, "hint": {"2"}})
	b.post("/problems/refund-bug/answer", url.Values{"answer": {"FIRST-TRY-MARKER"}})
	b.post("/problems/refund-bug/answer", url.Values{"answer": {"SECOND-TRY-MARKER"}})
	b.post("/sets/rapid/questions/what-is-rag/answer", url.Values{"answer": {"RAG-ANSWER-MARKER"}})
	b.post("/sets/rapid/questions/a-project-you-led/reveal", nil)

	t.Run("shows hints, every answer and reveals", func(t *testing.T) {
		p := b.get("/practice")
		p.mustContain(t, "Find the refund bug", "Hints revealed (2)", "Part 1: Find the defects, hint 1",
			"Part 1: Find the defects, hint 2", "FIRST-TRY-MARKER", "SECOND-TRY-MARKER",
			"Rapid-fire questions", "Question 1: What is RAG?", "RAG-ANSWER-MARKER",
			"Question 2: Tell me about a project you led.", "You revealed the model answer without answering",
			"Model answer shown after you answered", `<time datetime="`)
		p.mustNotContain(t, "Nothing yet.")
		if strings.Index(p.body, "FIRST-TRY-MARKER") > strings.Index(p.body, "SECOND-TRY-MARKER") {
			t.Error("answers are not oldest first")
		}
	})

	t.Run("another visitor sees none of it", func(t *testing.T) {
		other := ts.newBrowser(t)
		other.get("/practice").mustNotContain(t, "FIRST-TRY-MARKER", "RAG-ANSWER-MARKER")
	})
}

func TestPracticeDisplayName(t *testing.T) {
	ts := newTestServer(t, testCatalog())
	b := ts.newBrowser(t)
	tests := []struct {
		name       string
		input      string
		wantStatus int
		want       []string
	}{
		{"saved and trimmed", "  Ada Lovelace  ", 200, []string{"Name saved.", `value="Ada Lovelace"`}},
		{"too long, kept as typed", strings.Repeat("x", 61), 422, []string{"61 characters long; at most 60", `aria-invalid="true"`, strings.Repeat("x", 61)}},
		{"control character", "Ada\tL", 422, []string{"control character"}},
		{"cleared when empty", "", 200, []string{"Name cleared."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := b.post("/practice/name", url.Values{"display_name": {tt.input}})
			if p.status != tt.wantStatus {
				t.Fatalf("status = %d; want %d", p.status, tt.wantStatus)
			}
			p.mustContain(t, tt.want...)
		})
	}
	t.Run("a rejected name leaves the saved one", func(t *testing.T) {
		b.post("/practice/name", url.Values{"display_name": {"Grace"}})
		b.post("/practice/name", url.Values{"display_name": {strings.Repeat("y", 80)}})
		b.get("/practice").mustContain(t, `value="Grace"`)
	})
}
