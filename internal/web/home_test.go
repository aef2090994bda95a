package web

import (
	"context"
	"net/url"
	"regexp"
	"testing"

	"github.com/faultline-dev/faultline/internal/storage"
)

var progressMarkRE = regexp.MustCompile(`<a class="title" href="([^"]+)">[^<]*</a>\s*<p class="progress-mark" data-progress="([a-z]+)">([^<]*)</p>`)

// marks reads the catalogue's progress marks: URL -> "state: text".
func marks(body string) map[string]string {
	out := map[string]string{}
	for _, m := range progressMarkRE.FindAllStringSubmatch(body, -1) {
		out[m[1]] = m[2] + ": " + m[3]
	}
	return out
}

// TestCatalogueMarksProgress: a new visitor's catalogue has no marks; the
// marks follow what the user did (a hint revealed, an answer written, a
// question answered, a grade finished), with the newest finished grade's
// figures; another user sees none of them.
func TestCatalogueMarksProgress(t *testing.T) {
	ts := newTestServer(t, testCatalog())
	b := ts.newBrowser(t)
	if got := marks(b.get("/").body); len(got) != 0 {
		t.Fatalf("a new visitor's catalogue has marks %v", got)
	}
	b.post("/problems/refund-bug/hints", url.Values{"part": {"1"}, "hint": {"1"}})
	b.post("/sets/rapid/questions/what-is-rag/answer", url.Values{"answer": {"Retrieval, then generation."}})
	steps := []struct {
		name string
		do   func()
		want map[string]string
	}{
		{"a hint and one question", func() {}, map[string]string{
			"/problems/refund-bug": "attempted: Attempted",
			"/sets/rapid":          "answered: 1 of 2 answered"}},
		{"a written answer and every question", func() {
			b.post("/problems/design-client/answer", url.Values{"answer": {"Keys on every attempt."}})
			b.post("/sets/rapid/questions/a-project-you-led/answer", url.Values{"answer": {"The grader."}})
		}, map[string]string{
			"/problems/refund-bug":    "attempted: Attempted",
			"/problems/design-client": "solved: Answered",
			"/sets/rapid":             "solved: Answered all 2 questions"}},
		{"a failed grade", func() {
			finishRun(t, ts, b, storage.GradeSummary{Verdict: "fail", ScenariosPassed: 5, ScenariosTotal: 21, DefectsFixed: 3, DefectsTotal: 7})
		}, map[string]string{
			"/problems/refund-bug":    "graded: Graded · latest grade: 5 of 21 scenarios passed, 3 of 7 defects fixed",
			"/problems/design-client": "solved: Answered",
			"/sets/rapid":             "solved: Answered all 2 questions"}},
		{"a passing grade", func() {
			finishRun(t, ts, b, storage.GradeSummary{Verdict: "pass", ScenariosPassed: 21, ScenariosTotal: 21, DefectsFixed: 7, DefectsTotal: 7})
		}, map[string]string{
			"/problems/refund-bug":    "solved: Solved · latest grade: all 21 scenarios passed",
			"/problems/design-client": "solved: Answered",
			"/sets/rapid":             "solved: Answered all 2 questions"}},
	}
	for _, st := range steps {
		st.do()
		got := marks(b.get("/").body)
		if len(got) != len(st.want) {
			t.Errorf("after %s the marks are %v; want %v", st.name, got, st.want)
			continue
		}
		for url, w := range st.want {
			if got[url] != w {
				t.Errorf("after %s %s is marked %q; want %q", st.name, url, got[url], w)
			}
		}
	}
	if got := marks(ts.newBrowser(t).get("/").body); len(got) != 0 {
		t.Errorf("another visitor sees marks %v", got)
	}
}

// finishRun records a finished grade of the refund problem for b's user,
// as the grader would.
func finishRun(t *testing.T, ts *testServer, b *browser, sum storage.GradeSummary) {
	t.Helper()
	ctx := context.Background()
	a, err := ts.store.StartAttempt(ctx, cookieUser(t, b), storage.KindProblem, "refund-bug")
	if err != nil {
		t.Fatal(err)
	}
	r, err := ts.store.StartGradeRun(ctx, a.ID, "refund", 1, "package refund")
	if err != nil {
		t.Fatal(err)
	}
	if err := ts.store.FinishGradeRun(ctx, r.ID, storage.GradeRunEnd{Status: storage.GradeDone, Summary: sum}); err != nil {
		t.Fatal(err)
	}
}
