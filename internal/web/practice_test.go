package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/storage"
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
	t.Run("a form that is not one, or lacks the field, leaves the saved one", func(t *testing.T) {
		b.post("/practice/name", url.Values{"display_name": {"Grace"}})
		for _, tt := range []struct {
			name, ctype, body string
			wantStatus        int
			want              string
		}{
			{"no field", "application/x-www-form-urlencoded", "other=1", http.StatusBadRequest, "no display_name field"},
			{"empty body", "application/x-www-form-urlencoded", "", http.StatusBadRequest, "no display_name field"},
			{"JSON", "application/json", `{"display_name":""}`, http.StatusUnsupportedMediaType, "application/x-www-form-urlencoded"},
			{"plain text", "text/plain", "display_name=", http.StatusUnsupportedMediaType, "application/x-www-form-urlencoded"},
		} {
			req, err := http.NewRequest(http.MethodPost, ts.URL+"/practice/name", strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", tt.ctype)
			p := b.do(req)
			if p.status != tt.wantStatus {
				t.Errorf("%s: status = %d; want %d", tt.name, p.status, tt.wantStatus)
			}
			p.mustContain(t, tt.want)
			p.mustNotContain(t, "Name saved.", "Name cleared.")
			b.get("/practice").mustContain(t, `value="Grace"`)
		}
	})
	t.Run("a rejected name leaves the saved one", func(t *testing.T) {
		b.post("/practice/name", url.Values{"display_name": {"Grace"}})
		b.post("/practice/name", url.Values{"display_name": {strings.Repeat("y", 80)}})
		b.get("/practice").mustContain(t, `value="Grace"`)
	})
}

// TestPracticeShowsTimingAndRuns puts a timed answer with late text and a
// self-assessment, and three grader runs, in the store and checks that the
// history tells them apart and shows progress.
func TestPracticeShowsTimingAndRuns(t *testing.T) {
	ctx := context.Background()
	ts := newTestServer(t, testCatalog())
	b := ts.newBrowser(t)
	b.get("/practice") // gets the cookie
	userID := b.userID()

	set, err := ts.store.StartAttempt(ctx, userID, storage.KindSet, "rapid")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	scope := storage.ScopeQuestion("what-is-rag")
	sess, _, err := ts.store.StartTimedSession(ctx, set.ID, scope, storage.ModeTimed, 2*time.Minute, false, start)
	if err != nil {
		t.Fatal(err)
	}
	ans, err := ts.store.SubmitTimedAnswer(ctx, set.ID, scope, "ON-TIME-TEXT", sess.ID, storage.AnswerTiming{
		Mode: storage.ModeTimed, Limit: 2 * time.Minute, StartedAt: start, TimeUsed: 2 * time.Minute,
		HowEnded: storage.EndedExpired, Late: true, LateBody: "LATE-TEXT-MARKER", WordCount: 2,
	}, start.Add(2*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.store.SaveSelfAssessment(ctx, ans.ID, []int{0}, 1, start.Add(3*time.Minute)); err != nil {
		t.Fatal(err)
	}

	prob, err := ts.store.StartAttempt(ctx, userID, storage.KindProblem, "refund-bug")
	if err != nil {
		t.Fatal(err)
	}
	runs := []storage.GradeRunEnd{
		{Status: storage.GradeDone, Summary: storage.GradeSummary{Verdict: "fail", ScenariosPassed: 9, ScenariosTotal: 23,
			InvariantsHeld: 200, InvariantsTotal: 260, DefectsFixed: 1, DefectsTotal: 6}, ReportJSON: []byte(`{}`)},
		{Status: storage.GradeBusy, Message: "busy", RetryAfter: 3 * time.Second},
		{Status: storage.GradeDone, Summary: storage.GradeSummary{Verdict: "pass", ScenariosPassed: 23, ScenariosTotal: 23,
			InvariantsHeld: 260, InvariantsTotal: 260, DefectsFixed: 6, DefectsTotal: 6}, ReportJSON: []byte(`{}`)},
	}
	for _, end := range runs {
		r, err := ts.store.StartGradeRun(ctx, prob.ID, "refund-bug", 1, "package refund")
		if err != nil {
			t.Fatal(err)
		}
		if err := ts.store.FinishGradeRun(ctx, r.ID, end); err != nil {
			t.Fatal(err)
		}
	}

	p := b.get("/practice")
	p.mustContain(t, "Timed: the 2:00 limit ran out · 2 words", "ON-TIME-TEXT",
		"Text typed after the limit (kept, not part of the timed answer)", "LATE-TEXT-MARKER",
		"Self-assessment: 1 of 1 key point covered",
		"Grader runs", "9 of 23", "grader busy, not run", "passed", "23 of 23", "1 of 6", "6 of 6",
		"Invariants held: 200 of 260 on your first graded run, 260 of 260 on your latest (2 graded runs).",
		`href="/problems/refund-bug/runs/`)
}

func TestTimingText(t *testing.T) {
	tests := []struct {
		in   storage.AnswerTiming
		want string
	}{
		{storage.AnswerTiming{}, "Sent without the timer"},
		{storage.AnswerTiming{WordCount: 1}, "Sent without the timer · 1 word"},
		{storage.AnswerTiming{Mode: storage.ModeTimed, HowEnded: storage.EndedSubmitted, TimeUsed: 102 * time.Second, Limit: 2 * time.Minute, WordCount: 40},
			"Timed: answered in 1:42 of 2:00 · 40 words"},
		{storage.AnswerTiming{Mode: storage.ModeUntimed, HowEnded: storage.EndedSubmitted, TimeUsed: 250 * time.Second, Limit: 2 * time.Minute},
			"No limit: took 4:10"},
	}
	for _, tt := range tests {
		if got := timingText(tt.in); got != tt.want {
			t.Errorf("timingText(%+v) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

// userID is the anonymous id in this browser's cookie; fails if it has none.
func (b *browser) userID() string {
	b.t.Helper()
	u, err := url.Parse(b.ts.URL)
	if err != nil {
		b.t.Fatal(err)
	}
	for _, ck := range b.client.Jar.Cookies(u) {
		if ck.Name == userCookie {
			return ck.Value
		}
	}
	b.t.Fatal("the browser has no identity cookie")
	return ""
}
