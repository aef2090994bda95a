package web

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/storage"
	"github.com/faultline-dev/faultline/internal/timer"
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
	var (
		t          storage.TimedSession
		hasSession bool
	)
	if rawSession != "" {
		if t, err = s.ownSession(c, tg, rawSession); err != nil {
			return err
		}
		hasSession = true
	} else {
		// A form without the session field can still belong to a running
		// box (the script sends it, but be lenient): the server knows.
		open, err := s.store.OpenTimedSessions(ctx, a.ID)
		if err != nil {
			return err
		}
		t, hasSession = open[tg.scope]
	}
	now := s.now()
	if hasSession && !t.Open() {
		return s.keepTextAfterClose(c, tg, t, raw, rawSeq)
	}

	text, problem := answerText(raw)
	var ans storage.TimedAnswer
	if !hasSession {
		if problem != "" {
			return reject(problem)
		}
		ans, err = s.store.SubmitTimedAnswer(ctx, a.ID, tg.scope, text, 0, storage.AnswerTiming{WordCount: timer.WordCount(text)}, now)
	} else {
		end := timerSession(t).Submit(now)
		// A box that locked with nothing in it still ends: the answer is empty.
		if problem != "" && !(end.HowEnded == timer.Expired && answerBody(raw) == "") {
			return reject(problem)
		}
		body, lateBody := text, ""
		if end.Late {
			// Only the text saved in time is the timed answer; what came
			// after is kept beside it.
			body = answerBody(t.Draft)
			if text != body {
				lateBody = text
			}
		}
		timing := storage.AnswerTiming{Mode: t.Mode, Limit: t.Limit, StartedAt: t.StartedAt, TimeUsed: end.TimeUsed,
			HowEnded: string(end.HowEnded), Late: lateBody != "", LateBody: lateBody, WordCount: timer.WordCount(body)}
		ans, err = s.store.SubmitTimedAnswer(ctx, a.ID, tg.scope, body, t.ID, timing, now)
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
	ans, err := s.store.TimedAnswer(ctx, t.AnswerID)
	if errors.Is(err, storage.ErrNotFound) {
		return echo.NewHTTPError(http.StatusConflict, "This answer was already submitted. Reload the page to see it.")
	}
	if err != nil {
		return err
	}
	text := answerBody(raw)
	if ans.Timing.HowEnded == storage.EndedExpired && text != "" && text != ans.Body && text != ans.Timing.LateBody {
		if len(text) > maxAnswerBytes {
			return echo.NewHTTPError(http.StatusRequestEntityTooLarge,
				fmt.Sprintf("The answer is longer than %d KiB, so it was not saved. Shorten it; your text is still in the box.", maxAnswerBytes>>10))
		}
		// This text must be kept whatever the tab numbered it, so it is
		// numbered after the newest save, within the bound.
		seq, _ := strconv.ParseInt(rawSeq, 10, 64)
		seq = min(max(seq, t.DraftSeq+1), storage.MaxDraftSeq)
		if _, _, err := s.store.SaveDraft(ctx, t.ID, seq, text, true, s.now()); err != nil {
			return err
		}
		if ans, err = s.store.TimedAnswer(ctx, t.AnswerID); err != nil {
			return err
		}
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
