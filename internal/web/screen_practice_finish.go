package web

import (
	"errors"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/practice"
)

// screenPracticeFinish is POST /screens/:slug/practice/finish: the run ends now
// and the summary shows its times.
func (s *Server) screenPracticeFinish(c echo.Context) error {
	sc, err := s.findScreen(c)
	if err != nil {
		return err
	}
	userID, err := s.screenRunUser(c)
	if err != nil {
		return err
	}
	if _, err := s.screens().Finish(c.Request().Context(), userID, sc.Slug, len(sc.Items)); err != nil && !errors.Is(err, practice.ErrNoScreenRun) {
		return err
	}
	return redirectSeeOther(c, screenSummaryURL(sc))
}
