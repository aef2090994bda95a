package web

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/rooms"
	"github.com/faultline-dev/faultline/internal/storage"
)

// roomRun runs the grader on a room's shared code, held to the limits of a
// solo Grade from the interviewer's address: a place among the address's
// gradings (-grades-per-address) for the run's life, and the write budget
// charged for what the run stores (the code and its report), not only
// for the request's small form, which the budget middleware has charged.
func (s *Server) roomRun(c echo.Context, a rooms.Access, _ formValues) (storage.RoomEvent, error) {
	ctx := c.Request().Context()
	key := clientOf(ctx).key
	limits := rooms.RunLimits{ClientKey: key}
	if s.grading != nil {
		limits.Hold = func() (func(), error) { return s.grading.holdAddress(key) }
		limits.PerAddress = s.grading.perAddress
	}
	limits.Charge = s.chargeWrites(key)
	ev, err := s.rooms.Run(ctx, a, limits)
	switch {
	case errors.As(err, new(*writeBudgetError)):
		return ev, s.writeBudgetSpent(c, err)
	case errors.Is(err, errAddressBusy):
		wait := s.grading.grader.RetryAfter(key)
		c.Response().Header().Set("Retry-After", strconv.Itoa(retrySeconds(wait)))
		return ev, codeError(c, http.StatusTooManyRequests, fmt.Sprintf(
			"Not graded: %d gradings from your network address are running or waiting, the most it may have at once. Try again in %d s.",
			s.grading.perAddress, retrySeconds(wait)))
	case errors.Is(err, errGradingStopped):
		return ev, codeError(c, http.StatusServiceUnavailable, "Not graded: the server is restarting. Try again in a minute.")
	}
	return ev, err
}

// writeBudgetError refuses a write the address's budget cannot pay for.
type writeBudgetError struct{ retry time.Duration }

func (e *writeBudgetError) Error() string {
	return fmt.Sprintf("web: the address's write budget is spent; retry in %s", e.retry)
}

// roomShare shares a run's report with the candidate, charged to the
// write budget for the report it stores again.
func (s *Server) roomShare(c echo.Context, a rooms.Access, run int64) (storage.RoomEvent, error) {
	ctx := c.Request().Context()
	ev, err := s.rooms.ShareCharged(ctx, a, run, s.chargeWrites(clientOf(ctx).key))
	if errors.As(err, new(*writeBudgetError)) {
		return ev, s.writeBudgetSpent(c, err)
	}
	return ev, err
}

// chargeWrites charges key's write budget for bytes a room action stores
// besides its request (nil with no budget).
func (s *Server) chargeWrites(key string) func(int64) error {
	if s.writes == nil {
		return nil
	}
	return func(n int64) error {
		if ok, retry := s.writes.Take(key, float64(n)); !ok {
			return &writeBudgetError{retry: retry}
		}
		return nil
	}
}

// writeBudgetSpent answers a room action the write budget refused.
func (s *Server) writeBudgetSpent(c echo.Context, err error) error {
	var spent *writeBudgetError
	errors.As(err, &spent)
	secs := max(int(math.Ceil(spent.retry.Seconds())), 1)
	c.Response().Header().Set("Retry-After", strconv.Itoa(secs))
	return codeError(c, http.StatusTooManyRequests, writeBudgetMessage(s.writeRate, secs))
}
