package web

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
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
	}
	if s.writes != nil {
		limits.Charge = func(n int64) error {
			if ok, retry := s.writes.Take(key, float64(n)); !ok {
				return &writeBudgetError{retry: retry}
			}
			return nil
		}
	}
	ev, err := s.rooms.Run(ctx, a, limits)
	var spent *writeBudgetError
	switch {
	case errors.As(err, &spent):
		secs := int(math.Ceil(spent.retry.Seconds()))
		c.Response().Header().Set("Retry-After", strconv.Itoa(max(secs, 1)))
		return ev, codeError(c, http.StatusTooManyRequests, writeBudgetMessage(s.writeRate, secs))
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

// holdAddress takes one of addr's grading places for a grading that is
// not the user's own (a room's run): it counts against the address's
// limit with the Grades and Checks of this instance, and frees its place
// when release is called (once; later calls do nothing).
func (g *gradingRuns) holdAddress(addr string) (release func(), err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return nil, errGradingStopped
	}
	if g.byAddr[addr] >= g.perAddress {
		return nil, errAddressBusy
	}
	g.byAddr[addr]++
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			defer g.mu.Unlock()
			if g.byAddr[addr]--; g.byAddr[addr] <= 0 {
				delete(g.byAddr, addr)
			}
		})
	}, nil
}
