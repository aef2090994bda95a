package timer

import (
	"errors"
	"fmt"
	"time"
)

// Clock is an overall clock: a screen practised as a whole, or a live
// room's, where the interviewer starts, pauses, resumes and extends it. It
// counts down from Limit, or up when Limit is zero. Like Session it is a
// value and every method takes the time from its caller; a change returns
// the new value, which the caller stores.
//
// Time used is Banked (the spans that ended at a pause) plus the running
// span since Since. It stops at the limit: once the time is up, the clock
// shows the limit used however long nobody touches it, so an extension
// gives exactly the time it names.
type Clock struct {
	Limit     time.Duration // 0: counts up and never runs out
	StartedAt time.Time     // the first start; zero: not started
	Since     time.Time     // the running span's start; zero while paused (or not started)
	Banked    time.Duration // time used before Since
}

// ClockPhase is where a clock is.
type ClockPhase string

// Phases of a Clock.
const (
	ClockIdle    ClockPhase = "idle"    // not started
	ClockRunning ClockPhase = "running" // started, counting
	ClockPaused  ClockPhase = "paused"  // started, held by a pause
	ClockUp      ClockPhase = "up"      // the limit is used; counting has stopped
)

// Errors of a change that makes no sense in the clock's phase.
var (
	ErrClockNotStarted = errors.New("timer: the clock has not started")
	ErrBadExtension    = errors.New("timer: an extension must add time")
)

// ClockState is a clock at one moment, as a page draws it.
type ClockState struct {
	Phase     ClockPhase
	Used      time.Duration // at most Limit when there is one
	Remaining time.Duration // Limit - Used; 0 when counting up
}

// Started reports whether the clock has been started.
func (c Clock) Started() bool { return !c.StartedAt.IsZero() }

// Running reports whether the clock counts at the moment (it may be up).
func (c Clock) Running() bool { return !c.Since.IsZero() }

// Used is the time used at now, stopped at the limit.
func (c Clock) Used(now time.Time) time.Duration {
	used := c.Banked
	if c.Running() {
		used += max(now.Sub(c.Since), 0)
	}
	if c.Limit > 0 {
		used = min(used, c.Limit)
	}
	return used
}

// State is the clock at now.
func (c Clock) State(now time.Time) ClockState {
	used := c.Used(now)
	st := ClockState{Used: used}
	if c.Limit > 0 {
		st.Remaining = c.Limit - used
	}
	switch {
	case !c.Started():
		st.Phase = ClockIdle
	case c.Limit > 0 && used >= c.Limit:
		st.Phase = ClockUp
	case c.Running():
		st.Phase = ClockRunning
	default:
		st.Phase = ClockPaused
	}
	return st
}

// Deadline is when the clock runs out if nobody pauses it: the zero time
// when it counts up, is paused, or has not started.
func (c Clock) Deadline() time.Time {
	if c.Limit <= 0 || !c.Running() {
		return time.Time{}
	}
	return c.Since.Add(c.Limit - c.Banked)
}

// Start starts the clock at now. Starting a clock that has started changes
// nothing (a retried request, a second tab): Resume restarts a paused one.
func (c Clock) Start(now time.Time) Clock {
	if c.Started() {
		return c
	}
	c.StartedAt, c.Since = now, now
	return c
}

// Pause holds the clock at now, keeping the time used. Pausing a paused
// clock changes nothing; one that has not started is ErrClockNotStarted.
func (c Clock) Pause(now time.Time) (Clock, error) {
	if !c.Started() {
		return c, ErrClockNotStarted
	}
	if !c.Running() {
		return c, nil
	}
	c.Banked, c.Since = c.Used(now), time.Time{}
	return c, nil
}

// Resume lets a paused clock count again from now. Resuming a running
// clock changes nothing; one that has not started is ErrClockNotStarted.
func (c Clock) Resume(now time.Time) (Clock, error) {
	if !c.Started() {
		return c, ErrClockNotStarted
	}
	if c.Running() {
		return c, nil
	}
	c.Since = now
	return c, nil
}

// Extend adds by to the limit at now. A clock whose time is up has its used
// time settled at the old limit first, so it has by left whether or not it
// is running; extending one that counts up gives it a limit of its time
// used plus by. by must be positive (ErrBadExtension).
func (c Clock) Extend(now time.Time, by time.Duration) (Clock, error) {
	if by <= 0 {
		return c, fmt.Errorf("%w: %v", ErrBadExtension, by)
	}
	used := c.Used(now)
	if c.Running() {
		c.Since = now
	}
	c.Banked = used
	if c.Limit <= 0 {
		c.Limit = used
	}
	c.Limit += by
	return c, nil
}
