package web

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/grader"
	"github.com/faultline-dev/faultline/internal/storage"
)

// gradeStarted answers the script's Grade: where to follow the run.
type gradeStarted struct {
	RunID     int64  `json:"run_id"`
	RunURL    string `json:"run_url"`
	EventsURL string `json:"events_url"`
	Total     int    `json:"total"`
	Error     string `json:"error,omitempty"` // set with 409: the user's run already going
}

// gradeStart saves the code as the draft first (so no grading outcome can
// lose it), records a run and grades it in the background. The script
// gets the run's addresses as JSON; a plain form is sent to the run page.
func (s *Server) gradeStart(c echo.Context) error {
	p, err := s.findCodeProblem(c)
	if err != nil {
		return err
	}
	code, err := codeValue(c)
	if err != nil {
		return answered(err)
	}
	a, err := s.startAttempt(c, storage.KindProblem, p.Slug)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	if _, err := s.store.SaveCodeDraft(ctx, a.ID, code); err != nil {
		return err
	}
	// The seed is checked after the code is saved: a mistyped seed must
	// not cost the code.
	seed := int64(defaultSeed)
	if raw := strings.TrimSpace(c.Request().PostForm.Get("seed")); raw != "" {
		if seed, err = strconv.ParseInt(raw, 10, 64); err != nil {
			return answered(codeError(c, http.StatusBadRequest,
				"The seed must be a whole number, not "+strconv.Quote(raw)+". Your code is saved."))
		}
	}
	if s.grading == nil {
		return answered(codeError(c, http.StatusServiceUnavailable, "Grading is off on this server. Your code is saved."))
	}

	total := scenarioTotal(p.Slug)
	claim, existing, err := s.grading.claim(a.UserID, total)
	if errors.Is(err, errGradingStopped) {
		return answered(codeError(c, http.StatusServiceUnavailable,
			"The server is restarting, so it cannot grade now. Your code is saved: grade it again in a minute."))
	}
	if err != nil {
		return err
	}
	if existing != nil {
		return s.alreadyGrading(c, p.Slug, existing)
	}
	run, err := s.store.StartGradeRun(ctx, a.ID, p.Slug, seed, code)
	if err != nil {
		s.grading.release(claim)
		return err
	}
	s.grading.start(claim, run.ID, grader.Job{Problem: p.Slug, Source: code, Seed: seed})

	url := gradeRunURL(p.Slug, run.ID)
	if fromScript(c) {
		return c.JSON(http.StatusAccepted, gradeStarted{RunID: run.ID, RunURL: url, EventsURL: url + "/events", Total: total})
	}
	return redirectSeeOther(c, url)
}

// alreadyGrading answers a Grade while the user's previous run is still
// going: one run at a time per user. The new code is saved; the answer
// points at the run in progress.
func (s *Server) alreadyGrading(c echo.Context, slug string, r *liveRun) error {
	// The run may belong to another problem: it is the user's one place.
	runSlug := slug
	if r.id == 0 {
		return answered(codeError(c, http.StatusConflict,
			"Your previous Grade is still starting. Your code is saved: press Grade again in a moment."))
	}
	if run, err := s.store.GradeRun(c.Request().Context(), r.id); err == nil {
		runSlug = run.Problem
	}
	url := gradeRunURL(runSlug, r.id)
	if fromScript(c) {
		return c.JSON(http.StatusConflict, gradeStarted{RunID: r.id, RunURL: url, EventsURL: url + "/events", Total: r.total,
			Error: "Your previous Grade is still running; its progress is shown. Your new code is saved: grade it when this run ends."})
	}
	return redirectSeeOther(c, url+"?already=1")
}
