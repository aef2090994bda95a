package web

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/storage"
)

// savedData answers an autosave.
type savedData struct {
	SavedAt time.Time `json:"saved_at"`
	Bytes   int       `json:"bytes"`
}

// codeSave stores the user's code for a problem as their draft: the
// workspace script autosaves through it. A plain form gets the problem
// page back.
func (s *Server) codeSave(c echo.Context) error {
	p, err := s.findCodeProblem(c)
	if err != nil {
		return err
	}
	code, err := codeValue(c)
	if err != nil {
		return answered(err)
	}
	lang, err := postedLang(c, p)
	if err != nil {
		return answered(err)
	}
	a, err := s.startAttempt(c, storage.KindProblem, p.Slug)
	if err != nil {
		return err
	}
	d, err := s.store.SaveCodeDraftIn(c.Request().Context(), a.ID, lang.Name, code)
	if err != nil {
		return err
	}
	if fromScript(c) {
		return c.JSON(http.StatusOK, savedData{SavedAt: d.SavedAt, Bytes: len(d.Code)})
	}
	if len(codeLangsOf(p)) > 1 {
		return redirectSeeOther(c, langURL(p.Slug, lang.Name))
	}
	return redirectSeeOther(c, problemURL(p.Slug)+"#code-h")
}
