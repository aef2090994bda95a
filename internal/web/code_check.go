package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/grading"
	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/storage"
)

const (
	// checkTimeout bounds one Check from the request: a place in the pool
	// and a child's run of a few single-worker scenarios.
	checkTimeout = 45 * time.Second
)

// checkScenarios names the scenarios a Check of problem runs: the short
// list its grader declares (a kit's scenarios file says it in check;
// another grader may name its first few single-worker, single-run
// scenarios, which need no schedule exploration). None means every
// scenario.
func (s *Server) checkScenarios(problem string) []string {
	plan, _ := s.grading.grader.Plan(problem)
	return plan.Check
}

// checkResult answers the script's Check: what a few scenarios made of
// the code. It is not stored as a grade run.
type checkResult struct {
	Verdict     string                 `json:"verdict"`
	Summary     string                 `json:"summary"`
	HTML        string                 `json:"html"`
	Diagnostics []gradewire.Diagnostic `json:"diagnostics"`
	Scenarios   []checkedScenario      `json:"scenarios"`
}

type checkedScenario struct {
	Name   string `json:"name"`
	Title  string `json:"title"`
	Status string `json:"status"`
}

// codeCheck saves the code as the draft, then runs it against a few
// scenarios through the same grader and the same one-at-a-time place as
// Grade, and answers the result at once. Nothing is added to the history.
func (s *Server) codeCheck(c echo.Context) error {
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
	ctx := c.Request().Context()
	if _, err := s.store.SaveCodeDraftIn(ctx, a.ID, lang.Name, code); err != nil {
		return err
	}
	if s.grading == nil {
		return answered(codeError(c, http.StatusServiceUnavailable, "Checking is off on this server. Your code is saved."))
	}
	if why := s.gradeUnavailable(lang); why != "" {
		return s.langUnavailable(c, lang.Label+" cannot be checked on this server: "+why+". Your code is saved.")
	}
	names := s.checkScenarios(p.Slug)
	addr := clientOf(ctx).key
	claim, existing, err := s.grading.claim(a.UserID, addr, len(names))
	if errors.Is(err, errGradingStopped) {
		return answered(codeError(c, http.StatusServiceUnavailable,
			"The server is restarting, so it cannot check now. Your code is saved: check it again in a minute."))
	}
	if errors.Is(err, errAddressBusy) {
		wait := s.grading.grader.RetryAfter(addr)
		c.Response().Header().Set("Retry-After", strconv.Itoa(retrySeconds(wait)))
		return answered(codeError(c, http.StatusTooManyRequests, fmt.Sprintf(
			"%d gradings from your network address are running or waiting, the most it may have at once. Your code is saved: check it again in %d s.",
			s.grading.perAddress, retrySeconds(wait))))
	}
	if err != nil {
		return err
	}
	if existing != nil {
		return answered(codeError(c, http.StatusConflict,
			"Your Grade or Check is still running. Your code is saved: check it when that has finished."))
	}
	report, err := s.runCheck(ctx, addr, grading.Request{Problem: p.Slug, Source: code, Seed: defaultSeed, Only: names, File: lang.File()})
	s.grading.release(claim)
	var busy *grading.BusyError
	switch {
	case errors.As(err, &busy):
		wait := max(busy.RetryAfter, time.Second)
		c.Response().Header().Set("Retry-After", strconv.Itoa(retrySeconds(wait)))
		return answered(codeError(c, http.StatusServiceUnavailable, "The grader is busy; check again in "+strconv.Itoa(retrySeconds(wait))+" s. Your code is saved."))
	case errors.Is(err, grading.ErrBusy):
		return answered(codeError(c, http.StatusServiceUnavailable, "The grader is busy; check again in a few seconds. Your code is saved."))
	case err != nil && ctx.Err() != nil:
		return ctx.Err() // the candidate left: nobody to answer
	case err != nil:
		s.log.Error("web: a check failed", "problem", p.Slug, "err", err)
		return answered(codeError(c, http.StatusInternalServerError, "The check failed on the server; that is our fault, not your code's. Your code is saved: try again."))
	}
	if fromScript(c) {
		res, err := checkResultOf(ctx, report)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, res)
	}
	return render(c, http.StatusOK, checkView(s.withGradeReport(s.meta("Check: "+p.Title)), checkPage{Problem: p, Report: report, Summary: checkSummary(report)}))
}

// runCheck grades the job for the client address addr within
// checkTimeout of the request.
func (s *Server) runCheck(ctx context.Context, addr string, job grading.Request) (*gradewire.Report, error) {
	ticket, err := s.grading.grader.Admit(addr)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	return s.grading.grader.GradeAdmitted(ctx, ticket, job, func(gradewire.ScenarioReport) {})
}

func checkResultOf(ctx context.Context, r *gradewire.Report) (checkResult, error) {
	var buf bytes.Buffer
	if err := checkReport(r).Render(ctx, &buf); err != nil {
		return checkResult{}, fmt.Errorf("web: render a check's report: %w", err)
	}
	res := checkResult{Verdict: r.Status, Summary: checkSummary(r), HTML: buf.String(), Diagnostics: r.Diagnostics,
		Scenarios: []checkedScenario{}}
	if res.Diagnostics == nil {
		res.Diagnostics = []gradewire.Diagnostic{}
	}
	for _, sc := range r.Scenarios {
		res.Scenarios = append(res.Scenarios, checkedScenario{Name: sc.Name, Title: sc.Title, Status: sc.Status})
	}
	return res, nil
}

// checkSummary is a Check's one line: it says how few scenarios ran, so a
// pass is not taken for a graded pass.
func checkSummary(r *gradewire.Report) string {
	switch r.Status {
	case gradewire.StatusPass, gradewire.StatusFail:
		return fmt.Sprintf("Checked: %d of %d quick scenarios passed. Grade runs all of them.", r.Summary.ScenariosPassed, r.Summary.ScenariosTotal)
	}
	if len(r.Diagnostics) > 0 {
		return fmt.Sprintf("Checked: the code does not compile: %s.", plural(len(r.Diagnostics), "problem"))
	}
	return "Checked: " + r.Message
}

// newCheckView arranges a Check's report. A Check runs a few scenarios, so
// it says nothing of the defects of the original: a defect its scenarios
// cannot reach would be counted as fixed. It has no fingerprint either: it
// is answered for the code just sent, so it is never marked stale.
func newCheckView(r *gradewire.Report) reportView {
	v := newReportView(r, "", "check-")
	v.Check = true
	v.Original, v.OriginalFixed, v.Rewrite, v.RewriteAvoided = nil, 0, nil, 0
	return v
}

// checkHeading heads a Check's report: it is a Check, and what it ran.
func checkHeading(r *gradewire.Report) string {
	switch r.Status {
	case gradewire.StatusPass:
		return fmt.Sprintf("Check: %s passed", allOf(r.Summary.ScenariosTotal))
	case gradewire.StatusFail:
		return fmt.Sprintf("Check: %d of %d quick scenarios failed", r.Summary.ScenariosTotal-r.Summary.ScenariosPassed, r.Summary.ScenariosTotal)
	}
	return "Check: could not run the code"
}

func allOf(n int) string {
	if n == 1 {
		return "the 1 quick scenario"
	}
	return fmt.Sprintf("all %d quick scenarios", n)
}

// checkVerdictLine says under the heading what a Check is not.
func checkVerdictLine(r *gradewire.Report) string {
	if r.Status == gradewire.StatusError {
		if len(r.Diagnostics) > 0 {
			return "The code could not be checked: " + plural(len(r.Diagnostics), "problem") + " to fix first."
		}
		return strings.TrimSpace(r.Message)
	}
	return "A check runs a few quick scenarios and is not kept in your history. Grade runs every scenario and says which defects of the original are fixed."
}

// checkPage is what a Check without JavaScript shows.
type checkPage struct {
	Problem *problems.Problem
	Report  *gradewire.Report
	Summary string
}
