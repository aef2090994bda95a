package web

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/storage"
)

// timerDraftReply is what the box's script gets back from an autosave.
type timerDraftReply struct {
	SavedAt     int64  `json:"saved_at"` // Unix ms of the newest save the server holds
	RemainingMS int64  `json:"remaining_ms"`
	State       string `json:"state"`
	Late        bool   `json:"late"`  // this text arrived after the limit plus grace: kept, marked late
	Stale       bool   `json:"stale"` // a newer save had already arrived; this one changed nothing
	// On a stale save, the newest save the server holds: its sequence
	// number, which the script must number its next save above, and its
	// text, so the script can tell a repeat of its own save from text
	// another tab or device saved.
	Seq  int64  `json:"seq,omitempty"`
	Text string `json:"text,omitempty"`
}

// timedAnswerDraft autosaves the box's text. Text that arrives after the
// limit plus grace is kept apart and marked late, never dropped; a save with
// an older sequence number than the newest one changes nothing.
func (s *Server) timedAnswerDraft(c echo.Context) error {
	tg, err := s.findTimedTarget(c)
	if err != nil {
		return err
	}
	text, err := draftText(c, "text")
	if err != nil {
		return err
	}
	rawSeq, _ := formValue(c, "seq")
	seq, err := strconv.ParseInt(rawSeq, 10, 64)
	if err != nil || seq < 1 || seq > storage.MaxDraftSeq {
		return badRequest(fmt.Sprintf("The draft's sequence number %s is not a whole number from 1 to %d.",
			quoteForUser(rawSeq), int64(storage.MaxDraftSeq)))
	}
	rawSession, _ := formValue(c, "session")
	t, err := s.ownSession(c, tg, rawSession)
	if err != nil {
		return err
	}
	d, err := s.timed().SaveDraft(c.Request().Context(), t, seq, text)
	if errors.Is(err, storage.ErrSessionClosed) {
		return echo.NewHTTPError(http.StatusConflict,
			"This answer was already submitted, so the draft was not saved. Reload the page to answer again; copy your text first.")
	}
	if err != nil {
		return err
	}
	savedAt := d.Session.DraftSavedAt
	if d.Late {
		savedAt = d.Session.LateSavedAt
	}
	reply := timerDraftReply{SavedAt: unixMillis(savedAt), RemainingMS: d.Remaining.Milliseconds(),
		State: d.Phase, Late: d.Late, Stale: !d.Saved}
	if !d.Saved {
		reply.Seq, reply.Text = d.Session.DraftSeq, newestText(d.Session)
	}
	return c.JSON(http.StatusOK, reply)
}

// newestText is the text of a session's newest save: late text, once
// there is any, came after every on-time draft.
func newestText(t storage.TimedSession) string {
	if t.LateText != "" {
		return t.LateText
	}
	return t.Draft
}

// unixMillis is t in Unix ms, 0 for the zero time.
func unixMillis(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}
