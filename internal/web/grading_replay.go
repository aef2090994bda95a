package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/grading"
	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/storage"
)

// A stored report keeps no run of a passed scenario (the child drops it,
// issue 25), so its part is made when asked for (issue 27): the scenario
// alone is graded again from the run's code and seed, which gives the same
// runs. The engine seeds each scenario on its own (its runs use seeds
// FirstSeed, FirstSeed+1, ... whichever scenarios run with it), so a
// scenario run alone with the report's seed replays what the whole grade
// ran; replayScenario still checks the verdict is the stored one.

// needsReplay reports whether s is a passed scenario whose report keeps no
// run to draw.
func needsReplay(s gradewire.ScenarioReport) bool {
	return s.Status == gradewire.StatusPass && len(s.Trace) == 0
}

// replaySeed is the seed the scenarios of report ran with: the one it
// records, else the run's.
func replaySeed(report *gradewire.Report, run storage.GradeRun) int64 {
	if report.Seed != 0 {
		return report.Seed
	}
	return run.Seed
}

// replayRefused is an answer to a replay that did not happen or did not
// hold: the message says why and whether to try again.
type replayRefused struct {
	status  int
	message string
	retry   time.Duration // above zero: try again then
}

func (e *replayRefused) Error() string { return e.message }

// replayScenario grades the passed scenario stored of run again, alone,
// through the same grader, queue and per-address places as a Grade, and
// returns it with its run. A *replayRefused is an answer for the user (the
// grader busy, the replay not passing as the grade did); any other error
// is the system's.
func (s *Server) replayScenario(ctx context.Context, p *problems.Problem, run storage.GradeRun, report *gradewire.Report, stored gradewire.ScenarioReport) (*gradewire.ScenarioReport, error) {
	if s.grading == nil {
		return nil, &replayRefused{status: http.StatusServiceUnavailable,
			message: "This scenario passed. Its run is not kept, and grading is off on this server, so it cannot be replayed."}
	}
	req := grading.Request{Problem: p.Slug, Source: run.Source, Seed: replaySeed(report, run),
		Only: []string{stored.Name}, KeepPassed: true, File: runFile(p, run)}
	rep, err := s.gradeReplay(ctx, req, "this passed scenario's run")
	if err != nil {
		return nil, err
	}
	for i := range rep.Scenarios {
		if sc := &rep.Scenarios[i]; sc.Name == stored.Name && sc.Status == stored.Status && len(sc.Trace) > 0 {
			return sc, nil
		}
	}
	// The grade passed it and its replay did not, or kept no run: the
	// scenarios file changed since, or the engine is not deterministic.
	s.log.Error("web: a passed scenario's replay did not pass with a run", "problem", p.Slug, "run", run.ID,
		"scenario", stored.Name, "replay", rep.Status, "message", rep.Message)
	return nil, &replayRefused{status: http.StatusInternalServerError, message: "This scenario passed in the grade, but its replay " +
		"did not give the same run, so there is none to show. That is a fault of the grader (it is logged), not of your code: the grade's verdict stands."}
}

// gradeReplay grades req, a replay of a stored run's scenario (what names
// it for the user), through the same grader, queue and places as a Grade:
// one replay at a time per identity, and one of its address's places. A
// *replayRefused is an answer for the user (the grader busy, the address's
// places taken, a replay of the identity's going); any other error is the
// system's.
func (s *Server) gradeReplay(ctx context.Context, req grading.Request, what string) (*gradewire.Report, error) {
	addr := clientOf(ctx).key
	user, _ := UserID(ctx)
	release, err := s.grading.places.HoldReplay(user, addr, s.grading.perAddress)
	switch {
	case errors.Is(err, errGradingStopped):
		return nil, &replayRefused{status: http.StatusServiceUnavailable, retry: time.Minute,
			message: "The server is restarting, so " + what + " cannot be replayed now: try again in a minute."}
	case errors.Is(err, grading.ErrReplayGoing):
		return nil, &replayRefused{status: http.StatusTooManyRequests, retry: 2 * time.Second, message: "Another replay of yours is running, one at a time, so " +
			what + " cannot be replayed now: try again in a few seconds."}
	case errors.Is(err, errAddressBusy):
		wait := max(s.grading.grader.RetryAfter(addr), time.Second)
		return nil, &replayRefused{status: http.StatusTooManyRequests, retry: wait, message: fmt.Sprintf(
			"%d gradings from your network address are running or waiting, the most it may have at once, so %s cannot be replayed now: try again in %d s.",
			s.grading.perAddress, what, retrySeconds(wait))}
	case err != nil:
		return nil, err
	}
	defer release()
	rep, err := s.runCheck(ctx, addr, req)
	var busy *grading.BusyError
	switch {
	case errors.As(err, &busy):
		wait := max(busy.RetryAfter, time.Second)
		return nil, &replayRefused{status: http.StatusServiceUnavailable, retry: wait, message: fmt.Sprintf(
			"The grader is busy, so %s cannot be replayed now: try again in %d s.", what, retrySeconds(wait))}
	case errors.Is(err, grading.ErrBusy):
		return nil, &replayRefused{status: http.StatusServiceUnavailable, retry: 5 * time.Second,
			message: "The grader is busy, so " + what + " cannot be replayed now: try again in a few seconds."}
	}
	return rep, err
}

// renderReplayRefused answers a replay that did not happen with its
// message: the part alone for the script, else a page, with a link to try
// again when that may help.
func renderReplayRefused(c echo.Context, s *Server, p *problems.Problem, run storage.GradeRun, title string, r *replayRefused) error {
	c.Response().Header().Set("Cache-Control", "no-store")
	retry := ""
	if r.retry > 0 {
		c.Response().Header().Set("Retry-After", strconv.Itoa(retrySeconds(r.retry)))
		retry = c.Request().URL.Path
	}
	if c.QueryParam("part") != "" {
		return render(c, r.status, replayRefusedPart(r.message, retry))
	}
	m := s.withGradeReport(s.meta(title + ": grade run " + strconv.FormatInt(run.ID, 10) + ": " + p.Title))
	return render(c, r.status, replayRefusedView(m, title, gradeRunURL(p.Slug, run.ID), r.message, retry))
}
