package web

import (
	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/storage"
)

// problemAnswerReveal shows the rubric and model answer without an answer,
// recording that the user chose to look.
func (s *Server) problemAnswerReveal(c echo.Context) error {
	p, err := s.findProblem(c)
	if err != nil {
		return err
	}
	a, err := s.startAttempt(c, storage.KindProblem, p.Slug)
	if err != nil {
		return err
	}
	if err := s.practice.RevealAnswer(c.Request().Context(), a.ID, storage.ScopeProblem); err != nil {
		return err
	}
	return redirectSeeOther(c, "/problems/"+p.Slug+"#answer-material")
}
