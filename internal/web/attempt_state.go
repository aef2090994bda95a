package web

import (
	"context"
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/storage"
)

// attemptState is what one user has done on one problem or set, for the page.
type attemptState struct {
	attemptID  int64       // 0: the user has not started this item
	hintsShown map[int]int // part -> hints shown
	reveals    map[string]storage.AnswerReveal
	answers    map[string]storage.TimedAnswer // the latest per scope
}

func (st attemptState) revealed(scope string) (storage.AnswerReveal, bool) {
	r, ok := st.reveals[scope]
	return r, ok
}

// loadState reads the user's attempt; a user who has done nothing yet has an
// empty state, not an error.
func (s *Server) loadState(ctx context.Context, kind storage.Kind, slug string) (attemptState, error) {
	st := attemptState{hintsShown: map[int]int{}, reveals: map[string]storage.AnswerReveal{}, answers: map[string]storage.TimedAnswer{}}
	userID, ok := UserID(ctx)
	if !ok {
		return st, errNoIdentity
	}
	a, err := s.store.Attempt(ctx, userID, kind, slug)
	if errors.Is(err, storage.ErrNotFound) {
		return st, nil
	}
	if err != nil {
		return st, err
	}
	// An overdue timed session is not closed here: a read never writes.
	// Its box shows it locked (the stored start says so) and the next
	// write to the attempt stores it (startAttempt).
	st.attemptID = a.ID
	hints, err := s.store.HintReveals(ctx, a.ID)
	if err != nil {
		return st, err
	}
	for _, h := range hints {
		st.hintsShown[h.Part] = max(st.hintsShown[h.Part], h.Index)
	}
	reveals, err := s.store.AnswerReveals(ctx, a.ID)
	if err != nil {
		return st, err
	}
	for _, r := range reveals {
		st.reveals[r.Scope] = r
	}
	if st.answers, err = s.store.LatestTimedAnswers(ctx, a.ID); err != nil {
		return st, err
	}
	return st, nil
}

// startAttempt returns the user's attempt, creating it on their first
// action (practice.Service.Begin, which also stores a timed answer that
// ran out while the user was away). Every write goes through here.
func (s *Server) startAttempt(c echo.Context, kind storage.Kind, slug string) (storage.Attempt, error) {
	userID, err := requireUser(c)
	if err != nil {
		return storage.Attempt{}, err
	}
	if err := s.admitIdentity(c, userID); err != nil {
		return storage.Attempt{}, err
	}
	return s.practice.Begin(c.Request().Context(), userID, kind, slug)
}

func redirectSeeOther(c echo.Context, url string) error {
	return c.Redirect(http.StatusSeeOther, url)
}
