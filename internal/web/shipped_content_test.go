package web

import (
	"net/url"
	"testing"

	"github.com/faultline-dev/faultline/content"
	"github.com/faultline-dev/faultline/internal/problems"
)

// TestShippedContent renders every page of the content embedded in the
// binary and checks the hidden-until-revealed rule on it.
func TestShippedContent(t *testing.T) {
	cat, err := problems.Load(content.FS)
	if err != nil {
		t.Fatalf("shipped content does not load: %v", err)
	}
	ts := newTestServer(t, cat)
	b := ts.newBrowser(t)

	home := b.get("/")
	if home.status != 200 {
		t.Fatalf("home: status %d", home.status)
	}
	for _, want := range []string{"async-refund", "idempotent-create-client"} {
		if _, ok := cat.Problem(want); !ok {
			t.Errorf("shipped content lacks problem %s", want)
		}
	}
	for _, p := range cat.Problems {
		t.Run("problem/"+p.Slug, func(t *testing.T) {
			home.mustContain(t, `href="/problems/`+p.Slug+`"`)
			pg := b.get("/problems/" + p.Slug)
			if pg.status != 200 {
				t.Fatalf("status %d", pg.status)
			}
			pg.mustContain(t, p.Prompt.HTML)
			for _, part := range p.Parts {
				pg.mustContain(t, part.Prompt.HTML)
			}
			hidden := []string{}
			if p.ModelAnswer.HTML != "" {
				hidden = append(hidden, p.ModelAnswer.HTML)
			}
			for _, part := range p.Parts {
				for _, r := range part.Rubric {
					hidden = append(hidden, r.Text.HTML)
				}
			}
			if len(hidden) == 0 {
				t.Fatal("problem has neither model answer nor rubric")
			}
			pg.mustNotContain(t, hidden...)
			after := b.post("/problems/"+p.Slug+"/reveal", nil)
			after.mustContain(t, hidden...)
			for _, page := range []page{pg, after} {
				if n := len(h1.FindAllString(page.body, -1)); n != 1 {
					t.Errorf("page has %d h1 elements; want 1", n)
				}
			}
		})
	}
	for _, qs := range cat.Sets {
		t.Run("set/"+qs.Slug, func(t *testing.T) {
			home.mustContain(t, `href="/sets/`+qs.Slug+`"`)
			pg := b.get("/sets/" + qs.Slug)
			if pg.status != 200 {
				t.Fatalf("status %d", pg.status)
			}
			for _, q := range qs.Questions {
				pg.mustContain(t, q.ID)
				if q.Details.HTML != "" {
					pg.mustContain(t, q.Details.HTML)
				}
				if q.ModelAnswer.HTML != "" {
					pg.mustNotContain(t, q.ModelAnswer.HTML)
				}
				for _, fu := range q.FollowUps {
					pg.mustNotContain(t, fu.Answer.HTML)
				}
			}
			q := qs.Questions[0]
			after := b.post("/sets/"+qs.Slug+"/questions/"+q.ID+"/answer", url.Values{"answer": {"my answer"}})
			if q.ModelAnswer.HTML != "" {
				after.mustContain(t, q.ModelAnswer.HTML)
			}
			// Follow-ups are answer material: shown with the model answer.
			for _, fu := range q.FollowUps {
				after.mustContain(t, fu.Question.HTML, fu.Answer.HTML)
			}
		})
	}
	for _, sc := range cat.Screens {
		t.Run("screen/"+sc.Slug, func(t *testing.T) {
			home.mustContain(t, `href="/screens/`+sc.Slug+`"`)
			pg := b.get("/screens/" + sc.Slug)
			if pg.status != 200 {
				t.Fatalf("status %d", pg.status)
			}
			for _, it := range sc.Items {
				if it.Problem != "" {
					pg.mustContain(t, `href="/problems/`+it.Problem+`"`)
				} else {
					pg.mustContain(t, `href="/sets/`+it.Questions+`"`)
				}
			}
		})
	}
}
