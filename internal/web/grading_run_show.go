package web

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/storage"
)

// runRefreshSeconds is how often a run page reloads itself while the run
// is going: the page works without JavaScript.
const runRefreshSeconds = 2

// gradeRunPage is one grade run's page.
type gradeRunPage struct {
	Problem *problems.Problem
	Run     gradeRunView
	// Source is the code the run graded, shown beside its report; "" once
	// the store has trimmed it (old runs past the quota).
	Source string
}

// gradeRunShow is a run's page: the report, or "still running" (the page
// refreshes itself), or busy. It is where a Grade without JavaScript
// lands, and a permalink to a report.
func (s *Server) gradeRunShow(c echo.Context) error {
	p, run, err := s.ownedRun(c)
	if err != nil {
		return err
	}
	v, err := s.gradeRunViewOf(c.Request().Context(), p.Slug, run)
	if err != nil {
		return err
	}
	v.Already = c.QueryParam("already") != ""
	if v.Status == storage.GradeRunning {
		c.Response().Header().Set("Refresh", strconv.Itoa(runRefreshSeconds))
	}
	m := s.meta("Grade run " + strconv.FormatInt(run.ID, 10) + ": " + p.Title)
	m.CSS = append(m.CSS, s.assets.url("code-workspace.css"))
	m = s.withGradeReport(m)
	return render(c, http.StatusOK, gradeRunShowView(m, gradeRunPage{Problem: p, Run: v, Source: run.Source}))
}
