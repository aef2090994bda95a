package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/practice"
)

// practiceName sets or clears the user's optional display name. A name that
// cannot be used re-shows the page with the reason beside the field and the
// name as typed. Clearing takes the field sent empty: a form without it
// (a script's mistake, a body that is not a form) changes nothing.
func (s *Server) practiceName(c echo.Context) error {
	form, err := readForm(c)
	if err != nil {
		return err
	}
	values, ok := form["display_name"]
	if !ok {
		return badRequest("The form has no display_name field, so the name was not changed. Send the field empty to clear the name.")
	}
	raw := values[0]
	// Checked before the user is admitted, so a name refused spends
	// nothing of the address's new identities.
	if _, problem := practice.DisplayName(raw); problem != "" {
		page, err := s.practicePage(c.Request().Context())
		if err != nil {
			return err
		}
		page.NameDraft, page.NameError = raw, problem
		return render(c, http.StatusUnprocessableEntity, practiceView(s.reviewMeta("My practice"), page))
	}
	userID, err := requireUser(c)
	if err != nil {
		return err
	}
	if err := s.admitIdentity(c, userID); err != nil {
		return err
	}
	if _, err := s.practice.SetDisplayName(c.Request().Context(), userID, raw); err != nil {
		return err
	}
	return redirectSeeOther(c, "/practice?saved=name")
}
