package web

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/practice"
)

// screenPracticeMove is POST /screens/:slug/practice/:step: the clock counts
// that step from now. Once the screen's time is up the server ends the
// run at its deadline and the candidate lands on the summary.
func (s *Server) screenPracticeMove(c echo.Context) error {
	sc, err := s.findScreen(c)
	if err != nil {
		return err
	}
	raw := c.Param("step")
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 || n > len(sc.Items) {
		return notFound(fmt.Sprintf("The screen %s has no step %s; its steps are numbered 1 to %d.", sc.Title, quoteForUser(raw), len(sc.Items)))
	}
	userID, err := s.screenRunUser(c)
	if err != nil {
		return err
	}
	v, err := s.screens().Move(c.Request().Context(), userID, sc.Slug, n, len(sc.Items))
	if errors.Is(err, practice.ErrNoScreenRun) {
		// Practising step by step without the clock: just go there.
		return redirectSeeOther(c, screenPracticeURL(sc, n))
	}
	if err != nil {
		return err
	}
	if v.Finished {
		return redirectSeeOther(c, screenSummaryURL(sc))
	}
	return redirectSeeOther(c, screenPracticeURL(sc, n))
}
