package web

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/grading"
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
	lang, err := postedLang(c, p)
	if err != nil {
		return answered(err)
	}
	a, err := s.startAttempt(c, storage.KindProblem, p.Slug)
	if he := (*echo.HTTPError)(nil); errors.As(err, &he) && he.Code == http.StatusTooManyRequests && fromScript(c) {
		// A new identity refused: nothing could be saved, the editor
		// still holds the code.
		msg, _ := he.Message.(string)
		return c.JSON(he.Code, gradeRefused{Error: msg + " Your code was not saved; it is still in the editor.",
			RetryAfterS: retryAfterHeader(c)})
	}
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	if _, err := s.store.SaveCodeDraftIn(ctx, a.ID, lang.Name, code); err != nil {
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
	if why := s.gradeUnavailable(lang); why != "" {
		return s.langUnavailable(c, lang.Label+" cannot be graded on this server: "+why+". Your code is saved.")
	}

	total := s.grading.scenarioTotal(p.Slug)
	addr := clientOf(ctx).key
	claim, existing, err := s.grading.claim(a.UserID, addr, total)
	switch {
	case errors.Is(err, errGradingStopped):
		return answered(codeError(c, http.StatusServiceUnavailable,
			"The server is restarting, so it cannot grade now. Your code is saved: grade it again in a minute."))
	case errors.Is(err, errAddressBusy):
		return s.addressBusy(c, addr)
	case err != nil:
		return err
	case existing != nil && existing.id == 0:
		return s.refuseGrade(c, http.StatusTooManyRequests, time.Second,
			"Your previous Grade is still starting. Your code is saved: press Grade again in a moment.")
	case existing != nil:
		runSlug := p.Slug // the run may belong to another problem: it is the user's one place
		if run, err := s.store.GradeRun(ctx, existing.id); err == nil {
			runSlug = run.Problem
		}
		return s.alreadyGrading(c, runSlug, existing.id, existing.total)
	}
	ticket, err := s.grading.grader.Admit(addr)
	if err != nil {
		s.grading.release(claim)
		var busy *grading.BusyError
		if errors.As(err, &busy) {
			wait := max(busy.RetryAfter, time.Second)
			return s.refuseGrade(c, http.StatusServiceUnavailable, wait, busyMessage(wait))
		}
		return err
	}
	// The claim above is this instance's; the store's holds across every
	// instance on the database.
	run, err := s.store.StartOwnedGradeRunIn(ctx, a.ID, p.Slug, lang.Name, seed, code, s.grading.claimOf(a.UserID, addr))
	if err != nil {
		ticket.Release()
		s.grading.release(claim)
		var already *storage.AlreadyGradingError
		switch {
		case errors.As(err, &already):
			return s.alreadyGrading(c, already.Run.Problem, already.Run.ID, s.grading.scenarioTotal(already.Run.Problem))
		case errors.Is(err, storage.ErrAddressBusy):
			return s.addressBusy(c, addr)
		}
		return err
	}
	s.grading.start(claim, run.ID, grading.Request{Problem: p.Slug, Source: code, Seed: seed, File: lang.File()}, ticket)

	url := gradeRunURL(p.Slug, run.ID)
	if fromScript(c) {
		return c.JSON(http.StatusAccepted, gradeStarted{RunID: run.ID, RunURL: url, EventsURL: url + "/events", Total: total})
	}
	return redirectSeeOther(c, url)
}

// addressBusy refuses a Grade from an address with its maximum going.
func (s *Server) addressBusy(c echo.Context, addr string) error {
	wait := s.grading.grader.RetryAfter(addr)
	return s.refuseGrade(c, http.StatusTooManyRequests, wait, fmt.Sprintf(
		"%d gradings from your network address are running or waiting, the most it may have at once. Your code is saved: grade it again in %d s.",
		s.grading.perAddress, retrySeconds(wait)))
}

// alreadyGrading answers a Grade while the user's previous run (id, of the
// problem runSlug, perhaps another problem's, on this instance or another)
// is still going: one run at a time per user. The new code is saved; the
// answer points at the run in progress.
func (s *Server) alreadyGrading(c echo.Context, runSlug string, id int64, total int) error {
	url := gradeRunURL(runSlug, id)
	if fromScript(c) {
		return c.JSON(http.StatusConflict, gradeStarted{RunID: id, RunURL: url, EventsURL: url + "/events", Total: total,
			Error: "Your previous Grade is still running; its progress is shown. Your new code is saved: grade it when this run ends."})
	}
	return redirectSeeOther(c, url+"?already=1")
}

// gradeRefused answers the script's Grade that a limit refused.
type gradeRefused struct {
	Error       string `json:"error"`
	RetryAfterS int    `json:"retry_after_s"`
}

// refuseGrade answers a Grade that a limit refused (429 for the client's
// own limits, 503 when the grader is full): when to try again in
// Retry-After and in the message, as JSON for the script or as a page.
func (s *Server) refuseGrade(c echo.Context, status int, wait time.Duration, message string) error {
	secs := retrySeconds(wait)
	c.Response().Header().Set("Retry-After", strconv.Itoa(secs))
	if fromScript(c) {
		return c.JSON(status, gradeRefused{Error: message, RetryAfterS: secs})
	}
	// Rendered here, not by the error handler, which hides the message of
	// every 5xx: this one is for the user.
	return render(c, status, errorView(s.meta(errorTitle(status)), status, message))
}

// retryAfterHeader is the Retry-After already set on the response.
func retryAfterHeader(c echo.Context) int {
	n, _ := strconv.Atoi(c.Response().Header().Get("Retry-After"))
	return n
}
