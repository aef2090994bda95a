package web

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/practice"
	"github.com/faultline-dev/faultline/internal/storage"
)

// timedSubmitReply is what the box's script gets back from a submit; it then
// reloads the box and the answer material that the submit revealed.
type timedSubmitReply struct {
	Answer     int64  `json:"answer"`
	Mode       string `json:"mode"` // "" when no clock ran
	HowEnded   string `json:"how_ended"`
	TimeUsedMS int64  `json:"time_used_ms"`
	WordCount  int    `json:"word_count"`
	Late       bool   `json:"late"`
	State      string `json:"state"`
	Message    string `json:"message"`
}

// timedAnswerSubmit stores the answer of a timed box. The box's script sends
// the session; a plain form (no script) has none and is stored untimed as
// before, landing back on the page. rejected re-shows the page with a
// message beside the form when the text is not acceptable.
func (s *Server) timedAnswerSubmit(c echo.Context, tg timedTarget, rejected func(raw, problem string) error) error {
	if wantsJSON(c) {
		return jsonErrors(func(c echo.Context) error { return s.submitTimedAnswer(c, tg, nil) })(c)
	}
	return s.submitTimedAnswer(c, tg, rejected)
}

func (s *Server) submitTimedAnswer(c echo.Context, tg timedTarget, rejected func(raw, problem string) error) error {
	raw, err := formValue(c, "answer")
	if err != nil {
		return err
	}
	rawSession, _ := formValue(c, "session")
	rawSeq, _ := formValue(c, "seq")
	reject := func(problem string) error {
		if len(raw) > maxAnswerBytes {
			return echo.NewHTTPError(http.StatusRequestEntityTooLarge, problem+" Your text is still in the box.")
		}
		if rejected == nil {
			return echo.NewHTTPError(http.StatusUnprocessableEntity, problem)
		}
		return rejected(raw, problem)
	}
	a, err := s.startAttempt(c, tg.kind, tg.slug)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	// A form without the session field can still belong to a running box
	// (the script sends it, but be lenient): Submit finds it.
	var t storage.TimedSession
	if rawSession != "" {
		if t, err = s.ownSession(c, tg, rawSession); err != nil {
			return err
		}
		if !t.Open() {
			return s.keepTextAfterClose(c, tg, t, raw, rawSeq)
		}
	}
	// Too long or not UTF-8 is refused whatever the clock says; empty is
	// the use case's to judge, since a box that locked empty still ends.
	_, problem := answerText(raw)
	if problem != "" && answerBody(raw) != "" {
		return reject(problem)
	}
	predicted, err := predictionField(c, tg)
	if err != nil {
		return err
	}
	sub := practice.Submission{AttemptID: a.ID, Scope: tg.scope, SessionID: t.ID, Text: raw}
	if predicted >= 0 {
		sub.Predicted = &predicted
	}
	ans, err := s.timed().Submit(ctx, sub)
	if errors.Is(err, practice.ErrEmptyAnswer) {
		return reject(problem)
	}
	if errors.Is(err, storage.ErrSessionClosed) {
		return echo.NewHTTPError(http.StatusConflict, "This answer was already submitted. Reload the page to see it.")
	}
	if err != nil {
		return err
	}
	if !wantsJSON(c) {
		return redirectSeeOther(c, tg.anchor)
	}
	msg := "Answer saved."
	if ans.Timing.Late {
		msg = "Time ran out before this text arrived: the answer is what was saved in time, and the rest is kept with it, marked late."
	}
	return c.JSON(http.StatusOK, submitReply(ans, msg))
}

func submitReply(ans storage.TimedAnswer, msg string) timedSubmitReply {
	return timedSubmitReply{Answer: ans.ID, Mode: ans.Timing.Mode, HowEnded: ans.Timing.HowEnded,
		TimeUsedMS: ans.Timing.TimeUsed.Milliseconds(), WordCount: ans.Timing.WordCount, Late: ans.Timing.Late,
		State: phaseSubmitted, Message: msg}
}

// keepTextAfterClose handles a submit to a session that is closed already.
// Closed at expiry (the tab was away): the text is kept with the stored
// answer, marked late if it says more. Closed by an earlier submit (a
// retried request): nothing changes and the script just reloads the box.
func (s *Server) keepTextAfterClose(c echo.Context, tg timedTarget, t storage.TimedSession, raw, rawSeq string) error {
	ctx := c.Request().Context()
	ans, err := s.timed().Answer(ctx, t.AttemptID, t.Scope, t.AnswerID)
	if errors.Is(err, storage.ErrNotFound) {
		return echo.NewHTTPError(http.StatusConflict, "This answer was already submitted. Reload the page to see it.")
	}
	if err != nil {
		return err
	}
	if ans.Timing.HowEnded == storage.EndedExpired && len(raw) > maxAnswerBytes {
		return echo.NewHTTPError(http.StatusRequestEntityTooLarge,
			fmt.Sprintf("The answer is longer than %d KiB, so it was not saved. Shorten it; your text is still in the box.", maxAnswerBytes>>10))
	}
	seq, _ := strconv.ParseInt(rawSeq, 10, 64)
	if ans, err = s.timed().KeepAfterClose(ctx, t, raw, seq); err != nil {
		return err
	}
	if !wantsJSON(c) {
		return redirectSeeOther(c, tg.anchor)
	}
	msg := "This answer was already stored."
	if ans.Timing.HowEnded == storage.EndedExpired {
		msg = "Time ran out while this page was away: the answer saved in time was stored then, and this text is kept with it, marked late."
	}
	return c.JSON(http.StatusOK, submitReply(ans, msg))
}
