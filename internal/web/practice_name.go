package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/storage"
)

// practiceName sets or clears the user's optional display name. A name that
// cannot be used re-shows the page with the reason beside the field and the
// name as typed.
func (s *Server) practiceName(c echo.Context) error {
	raw, err := formValue(c, "display_name")
	if err != nil {
		return err
	}
	name, problem := storage.CheckDisplayName(raw)
	if problem != "" {
		page, err := s.practicePage(c.Request().Context())
		if err != nil {
			return err
		}
		page.NameDraft, page.NameError = raw, problem
		return render(c, http.StatusUnprocessableEntity, practiceView(s.meta("My practice"), page))
	}
	userID, err := requireUser(c)
	if err != nil {
		return err
	}
	if _, err := s.store.SetDisplayName(c.Request().Context(), userID, name); err != nil {
		return err
	}
	return redirectSeeOther(c, "/practice?saved=name")
}
