package practice

import (
	"time"

	"github.com/faultline-dev/faultline/internal/storage"
	"github.com/faultline-dev/faultline/internal/timer"
)

// RunItem is one item of a run (a question of a set run as one timed
// sequence), as far as the run's clock cares.
type RunItem struct {
	AnsweredAt time.Time // the latest answer's, zero if none
	RevealedAt time.Time // its answer material revealed; zero if not
}

// RunState is a run's overall clock at one moment.
type RunState struct {
	Limit    time.Duration
	Used     time.Duration // at most Limit
	Up       bool          // the whole limit is used
	Done     bool          // every item is done: the clock has stopped
	Deadline time.Time     // when the run's time runs out
}

// Run is the clock of a run at now. It counts from the run's start and
// stops at the last answer once every item is done (answered, or revealed
// without an answer, since the start), so a summary read an hour later
// still shows the time the run took. An answer from before the start
// does not count: running the set again starts from nothing.
func Run(rc storage.RunClock, items []RunItem, now time.Time) RunState {
	// The stored clock of a run never ends (ClockRun): its end is read
	// from its items here.
	end, done := rc.StartedAt, true
	for _, it := range items {
		switch {
		case !it.AnsweredAt.IsZero() && !it.AnsweredAt.Before(rc.StartedAt):
			end = later(end, it.AnsweredAt)
		case it.AnsweredAt.IsZero() && !it.RevealedAt.IsZero() && !it.RevealedAt.Before(rc.StartedAt):
			// looked at without answering in this run: done, with no
			// answer's time to add
		default: // unanswered, or answered only before this run started
			done = false
		}
	}
	c := rc.Clock
	if done {
		c.EndedAt = end
	}
	st := ClockAt(c, now)
	return RunState{Limit: rc.Limit, Used: st.Used, Up: st.Phase == timer.ClockUp, Done: done, Deadline: Deadline(c)}
}

// Bound is when an answer started now must end because of the run: its
// deadline while it goes on; none (zero) once it is done, since answering
// again afterwards is practice outside the run.
func (r RunState) Bound() time.Time {
	if r.Done {
		return time.Time{}
	}
	return r.Deadline
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
