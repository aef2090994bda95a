// Package timer holds the rules of the timed answer box: when the clock
// starts, how much time is left, when the box locks, and whether text that
// reaches the server is on time or late. It is pure: every function takes the
// current time from its caller, so the rules are tested with a fake clock and
// the server's clock stays the only source of truth.
package timer

import (
	"fmt"
	"strings"
	"time"
	"unicode"
)

// Grace is how long after the limit a save still counts as on time. It covers
// the network: the box locks at the limit in the browser, and the last save
// and the submit sent at that moment take a little while to arrive.
const Grace = 5 * time.Second

// Mode is the practice mode, chosen before the first keystroke.
type Mode string

// Practice modes.
const (
	Timed   Mode = "timed"   // counts down from the limit and locks at zero
	Untimed Mode = "untimed" // "no limit": for reading and thinking; never locks
)

// ParseMode reads a mode sent by a form; the empty string is Timed, the
// default choice of the box.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "", Timed:
		return Timed, nil
	case Untimed:
		return Untimed, nil
	}
	return "", fmt.Errorf("timer: unknown mode %q: choose %q or %q", s, Timed, Untimed)
}

// Phase is where a session is, as the box shows it.
type Phase string

// Phases of a session. The box's data-state uses these names, plus
// "submitted" once an answer is stored.
const (
	Idle    Phase = "idle"    // no keystroke has reached the server yet
	Running Phase = "running" // started; edits are on time
	Locked  Phase = "locked"  // the limit has passed: the box takes no more on-time text
)

// Session is one timed answer: the mode and limit chosen before starting, and
// when the server saw the first keystroke (zero: not started, which is what a
// page load leaves it as).
type Session struct {
	Mode      Mode
	Limit     time.Duration
	StartedAt time.Time
}

// Started reports whether the first keystroke has been recorded.
func (s Session) Started() bool { return !s.StartedAt.IsZero() }

// Start records the first keystroke at now. Starting a session that has
// already started changes nothing: the first keystroke is the one that counts,
// however many "start" requests a flaky connection delivers.
func (s Session) Start(now time.Time) Session {
	if !s.Started() {
		s.StartedAt = now
	}
	return s
}

// Deadline is when the box locks; the zero time for a session that never
// locks (untimed, or not started).
func (s Session) Deadline() time.Time {
	if s.Mode == Untimed || !s.Started() {
		return time.Time{}
	}
	return s.StartedAt.Add(s.Limit)
}

// State is what the box shows at one moment.
type State struct {
	Phase     Phase
	Remaining time.Duration // time left; the whole limit before the start; 0 once locked or when untimed
	Expired   bool          // the limit has passed
	Locked    bool          // the box takes no more on-time edits (same moment as Expired)
}

// State is the session at now. Remaining counts from the server's record of
// the start, so a reload (or a second tab) shows the same time left.
func (s Session) State(now time.Time) State {
	switch {
	case !s.Started():
		if s.Mode == Untimed {
			return State{Phase: Idle}
		}
		return State{Phase: Idle, Remaining: s.Limit}
	case s.Mode == Untimed:
		return State{Phase: Running}
	}
	left := s.Deadline().Sub(now)
	if left <= 0 {
		return State{Phase: Locked, Expired: true, Locked: true}
	}
	return State{Phase: Running, Remaining: left}
}

// Timing says whether text that reached the server counts.
type Timing string

// Timings of an arriving save.
const (
	OnTime Timing = "on-time"
	Late   Timing = "late" // kept, but marked late and not the timed answer
)

// Classify judges a save that reaches the server at now: on time up to the
// limit plus Grace, late after that. Untimed sessions are always on time. A
// save before the session started is on time (the start is on its way).
func (s Session) Classify(now time.Time) Timing {
	if s.Mode == Untimed || !s.Started() {
		return OnTime
	}
	if now.After(s.Deadline().Add(Grace)) {
		return Late
	}
	return OnTime
}

// Overdue reports whether the session ran out and its grace is over, so the
// server should close it with the last on-time draft as the answer: the user
// left without submitting, and expiry stores the answer for them.
func (s Session) Overdue(now time.Time) bool {
	return s.Classify(now) == Late
}

// HowEnded says how a session's answer came to be stored.
type HowEnded string

// Ways a session ends.
const (
	Submitted HowEnded = "submitted" // the user submitted before the limit (or untimed)
	Expired   HowEnded = "expired"   // the limit passed: the box locked and stored what there was
)

// Ending is what is stored with an answer about its timing.
type Ending struct {
	HowEnded HowEnded
	TimeUsed time.Duration
	Late     bool // text arrived after the limit plus Grace
}

// Submit is the ending of a submit that reaches the server at now. Before the
// limit it ends the session early and the time used is now - start; from the
// limit on the session counts as expired and the time used is the limit (the
// box was locked from then on). A submit after the grace is late.
func (s Session) Submit(now time.Time) Ending {
	used := max(now.Sub(s.StartedAt), 0)
	if !s.Started() {
		used = 0
	}
	if s.Mode == Untimed {
		return Ending{HowEnded: Submitted, TimeUsed: used}
	}
	if now.Before(s.Deadline()) {
		return Ending{HowEnded: Submitted, TimeUsed: used}
	}
	return Ending{HowEnded: Expired, TimeUsed: s.Limit, Late: s.Classify(now) == Late}
}

// Expire is the ending of a session the server closes because it is overdue:
// the whole limit was used, and the stored answer is the last on-time draft.
func (s Session) Expire() Ending {
	return Ending{HowEnded: Expired, TimeUsed: s.Limit}
}

// WordCount counts the words of an answer the way a reader would: runs of
// non-space characters holding at least one letter or digit, so a Markdown
// bullet or a lone dash is not a word.
func WordCount(text string) int {
	n := 0
	for _, f := range strings.Fields(text) {
		if strings.IndexFunc(f, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
			n++
		}
	}
	return n
}
