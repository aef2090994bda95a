package web

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/storage"
)

// problemPage is a problem with what this user has revealed of it.
type problemPage struct {
	Problem    *problems.Problem
	Tags       tagLinks
	HintsShown map[int]int
	Revealed   bool
	Reveal     storage.AnswerReveal
	Answer     string // the user's latest answer
	Draft      string // a rejected answer, given back to the form
	FormError  string
	Box        answerBoxState
	Code       codeWorkspaceState // the user's code and latest grade run
	Workspace  workspaceView      // a code problem's layout
	Screen     *screenStrip       // the screen being practised with this problem as its step; nil if none
}

func (s *Server) problemShow(c echo.Context) error {
	p, err := s.findProblem(c)
	if err != nil {
		return err
	}
	page, err := s.problemPage(c, p)
	if err != nil {
		return err
	}
	// Opened from the review queue: the answer box is ready to answer again.
	page.Box.Again = c.QueryParam("again") != ""
	return render(c, http.StatusOK, problemView(s.problemMeta(p, page), page))
}

func (s *Server) problemPage(c echo.Context, p *problems.Problem) (problemPage, error) {
	st, err := s.loadState(c.Request().Context(), storage.KindProblem, p.Slug)
	if err != nil {
		return problemPage{}, err
	}
	page := problemPage{
		Problem:    p,
		Tags:       tagFilter{}.links(p.Tags),
		HintsShown: st.hintsShown,
		Answer:     st.answers[storage.ScopeProblem].Body,
	}
	page.Reveal, page.Revealed = st.revealed(storage.ScopeProblem)
	if page.Box, err = s.problemBox(c.Request().Context(), st, p); err != nil {
		return problemPage{}, err
	}
	want := c.QueryParam("lang")
	if p.Code != nil && want != "" {
		if _, err := codeLangOf(p, want); err != nil {
			return problemPage{}, echo.NewHTTPError(http.StatusBadRequest, err.Error())
		}
	}
	if page.Code, err = s.codeWorkspaceOf(c.Request().Context(), st.attemptID, p, want); err != nil {
		return problemPage{}, err
	}
	if page.Screen, err = s.screenStripFor(c.Request().Context(), problems.ScreenItem{Problem: p.Slug}); err != nil {
		return problemPage{}, err
	}
	if p.Code != nil {
		page.Workspace = workspaceOf(p, page.HintsShown, page.Code)
	}
	return page, nil
}

// problemMeta is a problem page's frame, with the scripts and styles of
// its timed answer box, code workspace and screen's clock when it has them.
func (s *Server) problemMeta(p *problems.Problem, page problemPage) pageMeta {
	return s.withScreenStrip(s.timedAnswerMeta(s.withCodeWorkspace(s.meta(p.Title), p), p, page.Answer != "").withScripts(s.assets.url("in-place.js")), page.Screen)
}

// findProblem is the problem named in the URL, or a 404.
func (s *Server) findProblem(c echo.Context) (*problems.Problem, error) {
	p, ok := s.catalog(c.Request().Context()).Problem(c.Param("slug"))
	if !ok {
		return nil, notFound("There is no problem called " + c.Param("slug") + ".")
	}
	return p, nil
}

// answerRegions names the parts of a problem's page an answer or a reveal
// changes, for in-place.js to replace: the answer box, the answer
// material and each part's rubric.
func answerRegions(p *problems.Problem) string {
	ids := []string{"answer", "answer-material-region"}
	for _, part := range p.Parts {
		ids = append(ids, partID(part.Number)+"-rubric")
	}
	return strings.Join(ids, " ")
}
