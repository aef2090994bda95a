package web

import (
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/practice"
	"github.com/faultline-dev/faultline/internal/storage"
	"github.com/faultline-dev/faultline/internal/textclip"
	"github.com/faultline-dev/faultline/internal/timer"
)

// timerStartReply is what the box's script gets back from a start.
type timerStartReply struct {
	Session     int64  `json:"session"`
	RemainingMS int64  `json:"remaining_ms"`
	LimitMS     int64  `json:"limit_ms"`
	Mode        string `json:"mode"`
	State       string `json:"state"`
	Created     bool   `json:"created"`   // false: the session was already running (a second start)
	DraftSeq    int64  `json:"draft_seq"` // the newest save the server has
}

// timedAnswerStart records the first keystroke in a box: the clock starts
// now, by the server's clock. A start for a box that is already running
// returns the running session, so a retried request or a second tab cannot
// restart the clock. A page load never calls this.
func (s *Server) timedAnswerStart(c echo.Context) error {
	tg, err := s.findTimedTarget(c)
	if err != nil {
		return err
	}
	rawMode, err := formValue(c, "mode")
	if err != nil {
		return err
	}
	mode, err := timer.ParseMode(rawMode)
	if err != nil {
		return badRequest("Choose the practice mode \"timed\" or \"untimed\" (no limit); the box sent " + quoteForUser(rawMode) + ".")
	}
	a, err := s.startAttempt(c, tg.kind, tg.slug)
	if err != nil {
		return err
	}
	until, err := s.answerBound(c, tg)
	if err != nil {
		return err
	}
	st, err := s.timed().Start(c.Request().Context(), practice.Start{AttemptID: a.ID, Scope: tg.scope, Mode: mode, Limit: tg.limit, Until: until})
	if errors.Is(err, practice.ErrOuterClockUp) {
		return echo.NewHTTPError(http.StatusConflict, "The whole set's time is up, so this answer cannot start. See the summary, or run the set again.")
	}
	if err != nil {
		return err
	}
	t := st.Session
	return c.JSON(http.StatusOK, timerStartReply{Session: t.ID, RemainingMS: st.Remaining.Milliseconds(),
		LimitMS: t.Limit.Milliseconds(), Mode: t.Mode, State: st.Phase, Created: st.Created, DraftSeq: t.DraftSeq})
}

// answerBound is when an answer started now must end because of an
// overall clock: a question of a set being run as one timed sequence
// ends with the run. Zero: no bound.
func (s *Server) answerBound(c echo.Context, tg timedTarget) (time.Time, error) {
	if tg.kind != storage.KindSet {
		return time.Time{}, nil
	}
	qs, err := s.findSet(c)
	if err != nil {
		return time.Time{}, err
	}
	page, err := s.setPage(c, qs)
	if err != nil {
		return time.Time{}, err
	}
	rc, err := s.setRunClock(c.Request().Context(), page)
	if err != nil {
		return time.Time{}, err
	}
	return rc.Bound(), nil
}

// quoteForUser quotes a short user value for a message, cut to a sane
// length without breaking a character.
func quoteForUser(v string) string {
	return `"` + textclip.Bytes(v, 40, "…") + `"`
}
