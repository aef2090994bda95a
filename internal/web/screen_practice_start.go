package web

import "github.com/labstack/echo/v4"

// screenPracticeStart is POST /screens/:slug/practice/start: the screen's clock
// starts now, on step 1. Starting again starts from nothing.
func (s *Server) screenPracticeStart(c echo.Context) error {
	sc, err := s.findScreen(c)
	if err != nil {
		return err
	}
	if len(sc.Items) == 0 {
		return notFound("The screen " + sc.Title + " has no steps to practise.")
	}
	userID, err := s.screenRunUser(c)
	if err != nil {
		return err
	}
	if _, err := s.screens().Start(c.Request().Context(), userID, sc.Slug, screenLimit(sc), len(sc.Items)); err != nil {
		return err
	}
	return redirectSeeOther(c, screenPracticeURL(sc, 1))
}
