package web

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/storage"
)

// runClockStore keeps the overall clock of a set run as one timed
// sequence; *storage.Store has it.
type runClockStore interface {
	StartRunClock(ctx context.Context, attemptID int64, limit time.Duration, at time.Time) (storage.RunClock, error)
	RunClock(ctx context.Context, attemptID int64) (storage.RunClock, error)
}

// runClock is the whole set's clock as a page shows it.
type runClock struct {
	Limit    time.Duration
	Used     time.Duration // by the server's clock, at most Limit
	Up       bool          // the whole limit is used
	Done     bool          // every question is done: the clock has stopped
	Deadline time.Time     // when the whole set's time runs out
}

// Running reports whether the clock still counts: the browser ticks it on.
func (rc *runClock) Running() bool { return !rc.Done && !rc.Up }

// Bound is when an answer started now must end: the run's deadline while
// the run goes on, none once it is over (answering again afterwards is
// practice outside the run).
func (rc *runClock) Bound() time.Time {
	if rc == nil || rc.Done {
		return time.Time{}
	}
	return rc.Deadline
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
	if _, err := s.store.StartRunClock(c.Request().Context(), a.ID, setLimit(qs), s.now()); err != nil {
		return err
	}
	return redirectSeeOther(c, rapidURL(qs, 1))
}

// setRunClock reads the set's overall clock; nil when the set is not run as
// one timed sequence. The clock stops at the last answer once every
// question is done (answered, or revealed unanswered, since the start), so
// the summary keeps the time the run took however late it is read.
func (s *Server) setRunClock(ctx context.Context, page setPage) (*runClock, error) {
	if page.AttemptID == 0 {
		return nil, nil
	}
	rc, err := s.store.RunClock(ctx, page.AttemptID)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	end, done := rc.StartedAt, true
	for _, q := range page.Questions {
		switch last := q.Box.Last; {
		case last != nil && !last.CreatedAt.Before(rc.StartedAt):
			end = later(end, last.CreatedAt)
		case last == nil && q.Revealed && !q.Reveal.RevealedAt.Before(rc.StartedAt):
			// looked at without answering in this run: done, and no
			// answer's time to add
		default: // unanswered, or answered only before this run started
			done = false
		}
	}
	if !done {
		end = s.now()
	}
	used := min(max(end.Sub(rc.StartedAt), 0), rc.Limit)
	return &runClock{Limit: rc.Limit, Used: used, Up: used >= rc.Limit, Done: done, Deadline: rc.StartedAt.Add(rc.Limit)}, nil
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
