package web

import (
	"context"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/practice"
	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/storage"
)

// runClock is the whole set's clock as a page shows it.
type runClock struct{ practice.RunState }

// Running reports whether the clock still counts: the browser ticks it on.
func (rc *runClock) Running() bool { return rc != nil && !rc.Done && !rc.Up }

// Bound is when an answer started now must end because of the run; none
// without a run.
func (rc *runClock) Bound() time.Time {
	if rc == nil {
		return time.Time{}
	}
	return rc.RunState.Bound()
}

func (rc *runClock) leftMS() string {
	return strconv.FormatInt((rc.Limit - rc.Used).Milliseconds(), 10)
}

// setLimit is the whole set's time: the sum of its questions' limits, each
// as its box counts it.
func setLimit(qs *problems.QuestionSet) time.Duration {
	var total time.Duration
	for i := range qs.Questions {
		total += questionTarget(qs, &qs.Questions[i]).limit
	}
	return total
}

// setRapidStart is POST /sets/:slug/rapid/start: run the whole set as one
// timed sequence, its clock started now by the server and stored, then
// question 1. Starting again restarts the clock.
func (s *Server) setRapidStart(c echo.Context) error {
	qs, err := s.findSet(c)
	if err != nil {
		return err
	}
	a, err := s.startAttempt(c, storage.KindSet, qs.Slug)
	if err != nil {
		return err
	}
	if _, err := s.practice.StartRun(c.Request().Context(), a.ID, setLimit(qs)); err != nil {
		return err
	}
	return redirectSeeOther(c, rapidURL(qs, 1))
}

// setRunClock reads the set's overall clock (practice.Run); nil when the
// set is not run as one timed sequence.
func (s *Server) setRunClock(ctx context.Context, page setPage) (*runClock, error) {
	if page.AttemptID == 0 {
		return nil, nil
	}
	items := make([]practice.RunItem, len(page.Questions))
	for i, q := range page.Questions {
		if q.Box.Last != nil {
			items[i].AnsweredAt = q.Box.Last.CreatedAt
		}
		if q.Revealed {
			items[i].RevealedAt = q.Reveal.RevealedAt
		}
	}
	st, ok, err := s.practice.Run(ctx, page.AttemptID, items)
	if !ok || err != nil {
		return nil, err
	}
	return &runClock{st}, nil
}
