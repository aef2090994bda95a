package web

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/rooms"
)

// The candidate's timed answer box in a room speaks the box's own
// protocol (timed-answer.js): autosaves to .../timer/draft, the submit to
// .../answer, both under the step's path. The room's clock stands in for
// the box's session: there is nothing to start, the interviewer's
// controls drive it, and the server judges each save by it.

// roomItemBase is the path a room step's answer box hangs under.
func roomItemBase(roomID string, item int) string {
	return roomBase(roomID) + "/items/" + strconv.Itoa(item)
}

// roomAnswerReply is what the box's script gets back.
type roomAnswerReply struct {
	SavedAt     int64  `json:"saved_at"`
	RemainingMS int64  `json:"remaining_ms"`
	ClockPhase  string `json:"clock_phase"`
	State       string `json:"state"`
	Late        bool   `json:"late"`
	Message     string `json:"message,omitempty"`
}

// roomAnswerDraft keeps the box's text as it is typed: each save reaches
// the interviewer's page at once.
func (s *Server) roomAnswerDraft(c echo.Context) error {
	return s.roomAnswerSave(c, "text", false)
}

// roomAnswerSubmit takes the answer as final; a plain form lands back on
// the room's page.
func (s *Server) roomAnswerSubmit(c echo.Context) error {
	return s.roomAnswerSave(c, "answer", true)
}

func (s *Server) roomAnswerSave(c echo.Context, field string, final bool) error {
	item, err := strconv.Atoi(c.Param("item"))
	if err != nil {
		return s.roomError(c, &rooms.InputError{Message: "there is no step " + quoteForUser(c.Param("item")) + " in this room"})
	}
	form, err := readForm(c)
	if err != nil {
		return err
	}
	a := accessOf(c)
	text := strings.ReplaceAll(form.Get(field), "\r\n", "\n")
	saved, err := s.rooms.SaveAnswer(c.Request().Context(), a, item, text, final)
	if errors.Is(err, rooms.ErrAnswerClosed) {
		msg := strings.TrimPrefix(err.Error(), rooms.ErrAnswerClosed.Error()+": ")
		return answered(codeError(c, http.StatusConflict, upperFirst(msg)+"."))
	}
	if err != nil {
		return s.roomError(c, err)
	}
	if !fromScript(c) {
		return c.Redirect(http.StatusSeeOther, roomBase(a.Room.ID))
	}
	reply := roomAnswerReply{SavedAt: unixMillis(saved.Event.At), RemainingMS: saved.Clock.RemainingMS,
		ClockPhase: string(saved.Clock.Phase), State: saved.Phase, Late: saved.Late}
	if final {
		reply.Message = "Answer submitted: the interviewer has it."
		if saved.Late {
			reply.Message = "Time was up when this arrived: the interviewer has the answer saved in time, and this text marked late."
		}
	}
	return c.JSON(http.StatusOK, reply)
}
