package web

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/storage"
)

// problemHintReveal shows the next hint of a part. The form names the part
// and the hint; hints must be revealed in order.
func (s *Server) problemHintReveal(c echo.Context) error {
	p, err := s.findProblem(c)
	if err != nil {
		return err
	}
	partField, err := formValue(c, "part")
	if err != nil {
		return err
	}
	hintField, _ := formValue(c, "hint")
	part, err1 := strconv.Atoi(partField)
	hint, err2 := strconv.Atoi(hintField)
	if err1 != nil || err2 != nil {
		return badRequest("The hint form needs a part number and a hint number.")
	}
	if part < 1 || part > len(p.Parts) {
		return badRequest(fmt.Sprintf("This problem has no part %d.", part))
	}
	hints := p.Parts[part-1].Hints
	if hint < 1 || hint > len(hints) {
		return badRequest(fmt.Sprintf("Part %d has no hint %d.", part, hint))
	}
	a, err := s.startAttempt(c, storage.KindProblem, p.Slug)
	if err != nil {
		return err
	}
	if err := s.practice.RevealHint(c.Request().Context(), a.ID, part, hint); err != nil {
		if errors.Is(err, storage.ErrHintOrder) {
			return echo.NewHTTPError(http.StatusConflict,
				fmt.Sprintf("Hints are shown in order: reveal hint %d of part %d first.", hint-1, part))
		}
		return err
	}
	return redirectSeeOther(c, fmt.Sprintf("/problems/%s#part-%d-hint-%d", p.Slug, part, hint))
}
