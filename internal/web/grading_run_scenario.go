package web

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/storage"
)

// gradeRunScenarioPage is one scenario's part of a stored run's report,
// on a page of its own.
type gradeRunScenarioPage struct {
	Problem *problems.Problem
	RunID   int64
	View    reportView
	S       failedScenario
}

// gradeRunScenario serves one scenario's part of a run's report: what it
// checked, what broke and its run drawn. A report leaves most runs out
// (newRunReportView) and links here; grade-report.js fetches the part
// alone (?part=1) when the scenario is opened, and without JavaScript the
// link opens it as a page.
func (s *Server) gradeRunScenario(c echo.Context) error {
	p, run, err := s.ownedRun(c)
	if err != nil {
		return err
	}
	name := c.Param("name")
	missing := notFound("Grade run " + strconv.FormatInt(run.ID, 10) + " has no scenario " + strconv.Quote(name) + " in its report.")
	if run.Status != storage.GradeDone || run.ReportJSON == nil {
		return missing
	}
	report, err := decodeReport(run.ReportJSON)
	if err != nil {
		return err
	}
	var sc *gradewire.ScenarioReport
	for i := range report.Scenarios {
		if report.Scenarios[i].Name == name {
			sc = &report.Scenarios[i]
			break
		}
	}
	if sc == nil {
		return missing
	}
	if needsReplay(*sc) {
		// A pass keeps no run: replay it (grading_replay.go).
		replayed, err := s.replayScenario(c.Request().Context(), p, run, report, *sc)
		var refused *replayRefused
		if errors.As(err, &refused) {
			return renderReplayRefused(c, s, p, run, sc.Title, refused)
		}
		if err != nil {
			return err
		}
		sc = replayed
	}
	v := newReportView(report, sourceHash(run.Source), "")
	v.RunURL = gradeRunURL(p.Slug, run.ID)
	f := newFailedScenario(*sc, report.Kit, "")
	// A stored report never changes: the browser may keep the part, but
	// only for the cookie that owns the run (another identity in the same
	// browser gets its own answer, a 404).
	c.Response().Header().Set("Cache-Control", "private, max-age=3600")
	c.Response().Header().Add("Vary", "Cookie")
	if c.QueryParam("part") != "" {
		// It goes into the report on the page, where its links point.
		return render(c, http.StatusOK, scenarioBody(v, f))
	}
	v.Alone = true
	m := s.withGradeReport(s.meta(sc.Title + ": grade run " + strconv.FormatInt(run.ID, 10) + ": " + p.Title))
	return render(c, http.StatusOK, gradeRunScenarioView(m, gradeRunScenarioPage{Problem: p, RunID: run.ID, View: v, S: f}))
}
