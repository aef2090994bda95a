package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/problems"
)

// screenStep is one step of a screen, resolved to the page it links to.
type screenStep struct {
	Kind, URL, Title, Summary string
	Minutes                   int
	Note                      string
}

type screenPage struct {
	Screen *problems.Screen
	Tags   tagLinks
	Steps  []screenStep
}

// screenShow lists a screen's steps in order, linking each problem and set.
func (s *Server) screenShow(c echo.Context) error {
	sc, ok := s.content.catalog.Screen(c.Param("slug"))
	if !ok {
		return notFound("There is no screen called " + c.Param("slug") + ".")
	}
	page := screenPage{Screen: sc, Tags: tagFilter{}.links(sc.Tags)}
	for _, it := range sc.Items {
		step := screenStep{Minutes: it.Minutes, Note: it.Note}
		switch {
		case it.Problem != "":
			p, ok := s.content.catalog.Problem(it.Problem)
			if !ok {
				// The loader rejects screens naming unknown content, so this
				// is a catalogue built by hand, wrongly.
				return echo.NewHTTPError(http.StatusInternalServerError).SetInternal(
					errUnknownStep(sc.Slug, "problem", it.Problem))
			}
			step.Kind, step.URL, step.Title, step.Summary = "Problem", "/problems/"+p.Slug, p.Title, p.Summary
			if step.Minutes == 0 {
				step.Minutes = p.Minutes
			}
		case it.Questions != "":
			qs, ok := s.content.catalog.Set(it.Questions)
			if !ok {
				return echo.NewHTTPError(http.StatusInternalServerError).SetInternal(
					errUnknownStep(sc.Slug, "question set", it.Questions))
			}
			step.Kind, step.URL, step.Title, step.Summary = "Question set", "/sets/"+qs.Slug, qs.Title, qs.Summary
			if step.Minutes == 0 {
				step.Minutes = qs.Minutes
			}
		}
		page.Steps = append(page.Steps, step)
	}
	return render(c, http.StatusOK, screenView(s.meta(sc.Title), page))
}
