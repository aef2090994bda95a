package practice

import (
	"time"

	"github.com/faultline-dev/faultline/internal/storage"
	"github.com/faultline-dev/faultline/internal/timer"
)

// The one clock model. Every clock practice keeps is a storage.Clock: a
// timed answer's, a set run as one timed sequence, a screen practised as a
// whole. Each counts from its start by the server's clock, down from its
// limit (up when the limit is 0), is never paused, and stops at its end
// (EndedAt) or when its limit is used, whichever comes first. ClockAt and
// Deadline are that rule; the answer box's own rules (the grace, the lock,
// late text) are timer.Session's, on the same clock (TimerSession).

// ClockAt is c at now: its phase, the time used and the time left. A clock
// that ended before its limit keeps the phase running, with the time used
// at its end: whether that means finished is its owner's to say (an
// answer stored, a screen finished, a run's last item done).
func ClockAt(c storage.Clock, now time.Time) timer.ClockState {
	if !c.EndedAt.IsZero() && c.EndedAt.Before(now) {
		now = c.EndedAt
	}
	return running(c).State(now)
}

// Deadline is when c runs out if it has not ended: zero for a clock that
// counts up.
func Deadline(c storage.Clock) time.Time { return running(c).Deadline() }

// running is c as timer.Clock counts: started at its start, never paused.
func running(c storage.Clock) timer.Clock {
	return timer.Clock{Limit: c.Limit, StartedAt: c.StartedAt, Since: c.StartedAt}
}
