package rooms

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/faultline-dev/faultline/internal/storage"
	"github.com/faultline-dev/faultline/internal/timer"
)

// AnswerSaved is how the server judged a save of the candidate's answer,
// for the answer box: its phase afterwards and the room's clock then.
type AnswerSaved struct {
	Event storage.RoomEvent
	// Phase is the box's: "running", "paused" or "idle" while the step's
	// clock allows text, "locked" once it has run out, "submitted" once
	// the answer is in.
	Phase string
	Late  bool // the text came after the clock and its grace: kept, not the answer
	Clock ClockAt
}

// ErrAnswerClosed refuses text for a step whose answer is closed: it is
// submitted, or the room has moved on. The page is behind; it reloads.
var ErrAnswerClosed = errors.New("rooms: the answer is closed")

// Phases of the answer box beyond the clock's own.
const (
	AnswerSubmitted = "submitted"
	AnswerLocked    = "locked"
)

// SaveAnswer keeps the candidate's answer to the current question, whole:
// as it is typed, and with final set when it is submitted. In a room the
// interviewer's clock is the answer's: text is on time while the clock
// runs or is paused, and until timer.Grace after it runs out (the box
// locks and submits at zero, and that submit is on its way); text after
// that is kept, marked late, and the answer stays the last text that came
// in time. After a final save nothing more is taken, and a step the room
// has left takes text only for timer.Grace after the move: the box saves
// a moment after the last keystroke, and the page sends what it holds as
// it reloads for the next step, so the words typed just before the
// interviewer moved on are still on their way.
func (s *Service) SaveAnswer(ctx context.Context, a Access, item int, text string, final bool) (AnswerSaved, error) {
	if a.Role != Candidate {
		return AnswerSaved{}, inputErrorf("only the candidate writes the answer")
	}
	text, err := cleanText("The answer", text, MaxAnswerBytes)
	if err != nil {
		return AnswerSaved{}, err
	}
	if item < 0 || item >= len(a.Items) || a.Items[item].Question == nil {
		return AnswerSaved{}, inputErrorf("step %d is not a question", item+1)
	}
	f, err := s.foldAll(ctx, a)
	if err != nil {
		return AnswerSaved{}, err
	}
	if item > f.sh.current {
		return AnswerSaved{}, inputErrorf("the room has not reached step %d yet", item+1)
	}
	now := s.now()
	if item < f.sh.current && !withinMoveGrace(f.sh.leftAt[item], now) {
		return AnswerSaved{}, fmt.Errorf("%w: the room has moved on from step %d; the answer saved before the move is kept", ErrAnswerClosed, item+1)
	}
	if f.sh.submitted[item] {
		return AnswerSaved{}, fmt.Errorf("%w: the answer to step %d is already submitted", ErrAnswerClosed, item+1)
	}
	clock := f.sh.clocks[item]
	late := clockLate(*clock, now)
	ev, err := s.appendOne(ctx, a, KindAnswerText, AnswerText{Item: item, Text: text, Final: final, Late: late})
	if err != nil {
		return AnswerSaved{}, err
	}
	out := AnswerSaved{Event: ev, Late: late, Clock: clockAt(clock, now)}
	switch {
	case final:
		out.Phase = AnswerSubmitted
	case out.Clock.Phase == timer.ClockUp:
		out.Phase = AnswerLocked
	default:
		out.Phase = string(out.Clock.Phase)
	}
	return out, nil
}

// withinMoveGrace reports whether text reaching the server at now for a
// step the room left at left (zero: never) still counts.
func withinMoveGrace(left, now time.Time) bool {
	return !left.IsZero() && !now.After(left.Add(timer.Grace))
}

// clockLate reports whether text reaching the server at now is past the
// clock's limit and its grace. A clock that is up while paused (or was
// stopped by a move) ran out at a moment the fold no longer knows: it
// counts as late, since the box was locked from then on.
func clockLate(c timer.Clock, now time.Time) bool {
	if c.Limit <= 0 || !c.Started() || c.Used(now) < c.Limit {
		return false
	}
	if d := c.Deadline(); !d.IsZero() {
		return now.After(d.Add(timer.Grace))
	}
	return true
}
