package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/storage"
)

// problemAnswerSubmit stores the user's answer to a problem, which reveals
// its rubric and model answer. An empty answer re-shows the page with the
// problem named beside the form.
func (s *Server) problemAnswerSubmit(c echo.Context) error {
	p, err := s.findProblem(c)
	if err != nil {
		return err
	}
	if p.TimedAnswer > 0 {
		return s.timedAnswerSubmit(c, problemTarget(p), s.rejectedProblemAnswer(c, p))
	}
	raw, err := formValue(c, "answer")
	if err != nil {
		return err
	}
	text, problem := answerText(raw)
	if problem != "" {
		page, err := s.problemPage(c, p)
		if err != nil {
			return err
		}
		page.Draft, page.FormError = raw, problem
		return render(c, http.StatusUnprocessableEntity, problemView(s.meta(p.Title), page))
	}
	a, err := s.startAttempt(c, storage.KindProblem, p.Slug)
	if err != nil {
		return err
	}
	if _, err := s.store.SubmitAnswer(c.Request().Context(), a.ID, storage.ScopeProblem, text); err != nil {
		return err
	}
	return redirectSeeOther(c, "/problems/"+p.Slug+"#answer-material")
}
