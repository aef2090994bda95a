package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/storage"
)

// catalogueStore is what the catalogue reads to mark the user's progress;
// *storage.Store has it.
type catalogueStore interface {
	CatalogueProgress(ctx context.Context, userID string) ([]storage.Progress, error)
}

// progressMark is how far the user got with one catalogue entry. State is
// attempted, answered, graded or solved (the browser tests and the
// stylesheet use these names); Text says it in words, with the latest
// grade's figures for a code problem.
type progressMark struct {
	State, Text string
}

type progressKey struct {
	kind storage.Kind
	slug string
}

// userProgress is the user's marks by attempt; none for a visitor who has
// not started anything.
func (s *Server) userProgress(ctx context.Context) (map[progressKey]storage.Progress, error) {
	id, ok := UserID(ctx)
	if !ok {
		return nil, nil
	}
	list, err := s.store.CatalogueProgress(ctx, id)
	if err != nil {
		return nil, err
	}
	out := make(map[progressKey]storage.Progress, len(list))
	for _, p := range list {
		out[progressKey{p.Kind, p.Slug}] = p
	}
	return out, nil
}

// problemMark marks a problem: solved once a grade passed (a code problem)
// or an answer is in (one answered in writing), graded once the grader
// finished a run, attempted once anything was started.
func problemMark(p *problems.Problem, pr storage.Progress, ok bool) progressMark {
	switch {
	case !ok:
		return progressMark{}
	case p.Code != nil && pr.Graded:
		state, text := "graded", "Graded"
		if pr.Solved {
			state, text = "solved", "Solved"
		}
		return progressMark{State: state, Text: text + " · latest grade: " + gradeFigures(pr.Latest)}
	case p.Code == nil && pr.Answered > 0:
		return progressMark{State: "solved", Text: "Answered"}
	}
	return progressMark{State: "attempted", Text: "Attempted"}
}

func gradeFigures(g storage.GradeSummary) string {
	switch {
	case g.Verdict == "error":
		return "it did not run (a compile error or a limit)"
	case g.ScenariosTotal > 0 && g.ScenariosPassed == g.ScenariosTotal:
		return "all " + plural(g.ScenariosTotal, "scenario") + " passed"
	}
	text := fmt.Sprintf("%d of %s passed", g.ScenariosPassed, plural(g.ScenariosTotal, "scenario"))
	if g.DefectsTotal > 0 {
		text += fmt.Sprintf(", %d of %d defects fixed", g.DefectsFixed, g.DefectsTotal)
	}
	return text
}

// setMark marks a question set by how many of its questions have an answer.
func setMark(qs *problems.QuestionSet, pr storage.Progress, ok bool) progressMark {
	n := len(qs.Questions)
	switch {
	case !ok:
		return progressMark{}
	case pr.Answered >= n && n > 0:
		return progressMark{State: "solved", Text: "Answered all " + plural(n, "question")}
	case pr.Answered > 0:
		return progressMark{State: "answered", Text: fmt.Sprintf("%d of %d answered", pr.Answered, n)}
	}
	return progressMark{State: "attempted", Text: "Attempted"}
}

// tagKinds are the catalogue filters, in display order, with their query
// parameter names.
var tagKinds = []struct {
	Param, Label string
	of           func(problems.Tags) []string
}{
	{"topic", "Topic", func(t problems.Tags) []string { return t.Topics }},
	{"company", "Company", func(t problems.Tags) []string { return t.Companies }},
	{"role", "Role", func(t problems.Tags) []string { return t.Roles }},
}

// tagFilter is the tags chosen in the query: parameter name -> value.
type tagFilter map[string]string

func filterFromQuery(q url.Values) tagFilter {
	f := tagFilter{}
	for _, k := range tagKinds {
		if v := q.Get(k.Param); v != "" {
			f[k.Param] = v
		}
	}
	return f
}

// matches reports whether tags carry every chosen tag.
func (f tagFilter) matches(t problems.Tags) bool {
	for _, k := range tagKinds {
		if v, ok := f[k.Param]; ok && !slices.Contains(k.of(t), v) {
			return false
		}
	}
	return true
}

// toggle is the catalogue URL with tag param=value chosen, or unchosen when
// it already is.
func (f tagFilter) toggle(param, value string) string {
	q := url.Values{}
	for k, v := range f {
		q.Set(k, v)
	}
	if f[param] == value {
		q.Del(param)
	} else {
		q.Set(param, value)
	}
	if len(q) == 0 {
		return "/"
	}
	return "/?" + q.Encode()
}

// tagLink is one tag shown as a filter link.
type tagLink struct {
	Label, URL string
	Active     bool
}

type tagLinks []tagLink

func (f tagFilter) links(t problems.Tags) tagLinks {
	var out tagLinks
	for _, k := range tagKinds {
		for _, v := range k.of(t) {
			out = append(out, tagLink{Label: v, URL: f.toggle(k.Param, v), Active: f[k.Param] == v})
		}
	}
	return out
}

// filterGroup is one kind of tag in the filter panel.
type filterGroup struct {
	Label string
	Links tagLinks
}

// catalogueEntry is one row of the catalogue.
type catalogueEntry struct {
	URL, Title, Summary, Difficulty string
	Minutes                         int
	Detail                          string // e.g. "6 questions" or "3 steps"
	Tags                            tagLinks
	Progress                        progressMark
	Due                             int // answered items of it due for review (issue 29)
}

type homePage struct {
	Filters           []filterGroup
	Filtered          bool
	Problems, Sets    []catalogueEntry
	Screens           []catalogueEntry
	ShownCount, Total int
	Review            reviewSummary
}

// home is the catalogue: problems, question sets and screens, filtered by
// the tags in the query.
func (s *Server) home(c echo.Context) error {
	f := filterFromQuery(c.QueryParams())
	content := s.contentOf(c.Request().Context())
	cat := content.catalog
	page := homePage{Filtered: len(f) > 0}
	progress, err := s.userProgress(c.Request().Context())
	if err != nil {
		return err
	}
	for _, k := range tagKinds {
		g := filterGroup{Label: k.Label}
		for _, v := range k.of(content.tags) {
			g.Links = append(g.Links, tagLink{Label: v, URL: f.toggle(k.Param, v), Active: f[k.Param] == v})
		}
		if len(g.Links) > 0 {
			page.Filters = append(page.Filters, g)
		}
	}
	for _, p := range cat.Problems {
		page.Total++
		if f.matches(p.Tags) {
			page.Problems = append(page.Problems, catalogueEntry{URL: "/problems/" + p.Slug, Title: p.Title,
				Summary: p.Summary, Difficulty: p.Difficulty, Minutes: p.Minutes, Detail: partsDetail(p), Tags: f.links(p.Tags),
				Progress: problemMark(p, progress[progressKey{storage.KindProblem, p.Slug}], hasKey(progress, storage.KindProblem, p.Slug))})
		}
	}
	for _, qs := range cat.Sets {
		page.Total++
		if f.matches(qs.Tags) {
			page.Sets = append(page.Sets, catalogueEntry{URL: "/sets/" + qs.Slug, Title: qs.Title,
				Summary: qs.Summary, Minutes: qs.Minutes, Detail: plural(len(qs.Questions), "question"), Tags: f.links(qs.Tags),
				Progress: setMark(qs, progress[progressKey{storage.KindSet, qs.Slug}], hasKey(progress, storage.KindSet, qs.Slug))})
		}
	}
	for _, sc := range cat.Screens {
		page.Total++
		if f.matches(sc.Tags) {
			page.Screens = append(page.Screens, catalogueEntry{URL: "/screens/" + sc.Slug, Title: sc.Title,
				Summary: sc.Summary, Minutes: sc.Minutes, Detail: plural(len(sc.Items), "step"), Tags: f.links(sc.Tags)})
		}
	}
	page.ShownCount = len(page.Problems) + len(page.Sets) + len(page.Screens)
	if page.Review, err = s.reviewSummaryOf(c.Request().Context()); err != nil {
		return err
	}
	markDue(page.Problems, page.Sets, page.Review.DueBy)
	return render(c, http.StatusOK, homeView(s.reviewMeta("Catalogue"), page))
}

func partsDetail(p *problems.Problem) string {
	if len(p.Parts) == 0 {
		return ""
	}
	return plural(len(p.Parts), "part")
}

func hasKey(m map[progressKey]storage.Progress, kind storage.Kind, slug string) bool {
	_, ok := m[progressKey{kind, slug}]
	return ok
}
