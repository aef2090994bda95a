package web

import (
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
	if err := s.store.RevealAnswer(c.Request().Context(), a.ID, storage.ScopeQuestion(q.ID), storage.ReasonChoseToReveal); err != nil {
		return err
	}
	return redirectSeeOther(c, questionAnchor(qs, q))
}
