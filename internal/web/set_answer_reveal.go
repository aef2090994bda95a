package web

import (
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/storage"
)

// setAnswerReveal shows one question's model answer without an answer,
// recording that the user chose to look.
func (s *Server) setAnswerReveal(c echo.Context) error {
	qs, q, err := s.findQuestion(c)
	if err != nil {
		return err
	}
	a, err := s.startAttempt(c, storage.KindSet, qs.Slug)
	if err != nil {
		return err
	}
	if err := s.practice.RevealAnswer(c.Request().Context(), a.ID, storage.ScopeQuestion(q.ID)); err != nil {
		return err
	}
	// From a rapid-fire run the form says so: back to the run's question,
	// where its next step is, rather than to the whole set.
	if from, _ := formValue(c, "rapid"); from != "" {
		for i := range qs.Questions {
			if qs.Questions[i].ID == q.ID && strconv.Itoa(i+1) == from {
				return redirectSeeOther(c, rapidURL(qs, i+1)+"#q-"+q.ID)
			}
		}
	}
	return redirectSeeOther(c, questionAnchor(qs, q))
}
