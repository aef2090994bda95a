package web

import (
	"net/http"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/problems"
)

// TestInterviewOnlyContent: a problem, set and screen marked
// interview_only are not in the public catalogue, and none of their pages
// (the problem with its model answer, rubric and hints; the set's
// questions and answers; the screen's practice) is served; /rooms/new
// offers them, a room is made from them, and their material reaches the
// room's interviewer, not its candidate.
func TestInterviewOnlyContent(t *testing.T) {
	ts := newRoomTestServer(t, func(cat *problems.Catalog) {
		for _, p := range cat.Problems {
			p.InterviewOnly = p.Slug == "async-refund"
		}
		for _, s := range cat.Sets {
			s.InterviewOnly = true
		}
		for _, s := range cat.Screens {
			s.InterviewOnly = true
		}
	})
	set, screen := ts.cat.Sets[0], ts.cat.Screens[0]
	home := ts.do(t, "GET", "/", "", "")
	for _, hidden := range []string{"/problems/async-refund", "/sets/" + set.Slug, "/screens/" + screen.Slug} {
		if strings.Contains(home.body, `href="`+hidden) {
			t.Errorf("the catalogue links the interview-only %s", hidden)
		}
	}
	if !strings.Contains(home.body, `href="/problems/`) {
		t.Error("the catalogue lost its public problems")
	}
	for _, r := range []struct{ method, path, form string }{
		{"GET", "/problems/async-refund", ""},
		{"POST", "/problems/async-refund/hints", "part=1"},
		{"POST", "/problems/async-refund/reveal", ""},
		{"GET", "/sets/" + set.Slug, ""},
		{"GET", "/sets/" + set.Slug + "/rapid", ""},
		{"POST", "/sets/" + set.Slug + "/questions/" + set.Questions[0].ID + "/reveal", ""},
		{"GET", "/screens/" + screen.Slug, ""},
		{"POST", "/screens/" + screen.Slug + "/practice/start", ""},
	} {
		if got := ts.do(t, r.method, r.path, "", r.form); got.status != http.StatusNotFound {
			t.Errorf("%s %s: %d; want 404", r.method, r.path, got.status)
		}
	}
	rec := ts.do(t, "GET", "/rooms/new", "", "")
	if !strings.Contains(rec.body, `value="problem:async-refund"`) || !strings.Contains(rec.body, `value="screen:`+screen.Slug+`"`) {
		t.Error("/rooms/new does not offer the interview-only problem and screen")
	}
	id, ikey, ckey := ts.room(t, "problem:async-refund")
	model := ts.cat.Problems[0].ModelAnswer.HTML
	for _, p := range ts.cat.Problems {
		if p.Slug == "async-refund" {
			model = p.ModelAnswer.HTML
		}
	}
	snippet := model[:min(len(model), 60)]
	if iv := ts.do(t, "GET", "/rooms/"+id, ikey, ""); iv.status != 200 || !strings.Contains(iv.body, "Model answer") || !strings.Contains(iv.body, snippet) {
		t.Errorf("the interviewer's room: %d, model answer shown %v", iv.status, strings.Contains(iv.body, snippet))
	}
	if cv := ts.do(t, "GET", "/rooms/"+id, ckey, ""); cv.status != 200 || strings.Contains(cv.body, snippet) {
		t.Errorf("the candidate's room: %d, model answer shown %v", cv.status, strings.Contains(cv.body, snippet))
	}
}
