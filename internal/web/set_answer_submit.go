package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/storage"
)

// setAnswerSubmit stores the user's answer to one question, which reveals
// its model answer and key points.
func (s *Server) setAnswerSubmit(c echo.Context) error {
	qs, q, err := s.findQuestion(c)
	if err != nil {
		return err
	}
	raw, err := formValue(c, "answer")
	if err != nil {
		return err
	}
	text, problem := answerText(raw)
	if problem != "" {
		page, err := s.setPage(c, qs)
		if err != nil {
			return err
		}
		for i := range page.Questions {
			if page.Questions[i].Question.ID == q.ID {
				page.Questions[i].Draft, page.Questions[i].FormError = raw, problem
			}
		}
		return render(c, http.StatusUnprocessableEntity, setView(s.meta(qs.Title), page))
	}
	a, err := s.startAttempt(c, storage.KindSet, qs.Slug)
	if err != nil {
		return err
	}
	if _, err := s.store.SubmitAnswer(c.Request().Context(), a.ID, storage.ScopeQuestion(q.ID), text); err != nil {
		return err
	}
	return redirectSeeOther(c, questionAnchor(qs, q))
}
