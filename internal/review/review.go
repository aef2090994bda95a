// Package review schedules answered questions and problems for another go,
// with the SM-2 algorithm of SuperMemo 2 (P. A. Wozniak, "Optimization of
// learning", 1990; the algorithm as published at
// https://super-memory.com/english/ol/sm2.htm). No maintained Go library of
// FSRS or SM-2 was among the packages this module may use, so the published
// rules are implemented here, small enough to read at once, with the changes
// noted:
//
//   - a review is graded q in 0..5; q >= 3 is a pass;
//   - a pass: the first interval is 1 day, the second 6, then each is the
//     previous one times the easiness factor EF, rounded;
//   - a failure (q < 3) starts the repetitions again from a 1-day interval;
//   - after every review, a failure included, EF' = EF + (0.1 - (5-q)(0.08 +
//     (5-q)0.02)), never below 1.3, so a failure lowers EF (the published
//     text keeps EF on a failure; we let it fall, so an item often missed
//     grows its intervals more slowly); a new item starts at 2.5;
//   - the interval is capped at MaxInterval days (the published rules have
//     no cap);
//   - a pass that comes before the item is due (the candidate answered it
//     again before the queue asked) leaves the schedule as it was: SM-2
//     grows an interval from a review at its end, and a pass minutes after
//     the last one says nothing of remembering for longer, so answering
//     the same question four times in a sitting must not push it months
//     away. A failure counts whenever it comes.
//
// What is ours: the grade comes from the candidate's own self-assessment
// (the share of the rubric's key points they ticked, Quality), and a
// candidate who predicted more key points than they then ticked was
// over-confident, so the interval is shortened in proportion to the gap
// (Next); SM-2 multiplies the shortened interval at the next pass, so the
// shortening carries forward until a failure resets it. The package keeps
// no state: the store keeps each item's State, so a schedule survives
// restarts and is the same on every instance.
package review

import (
	"fmt"
	"math"
	"time"
)

// SM-2's constants, as published.
const (
	// StartEase is a new item's easiness factor.
	StartEase = 2.5
	// MinEase is the floor of the easiness factor.
	MinEase = 1.3
	// PassQuality is the lowest grade that counts as remembered.
	PassQuality = 3
	// MaxQuality is the best grade.
	MaxQuality = 5
)

// MaxInterval caps the interval, in days (about a century). SM-2 as
// published has no cap, but a long run of good grades multiplies without
// end: a dozen perfect ones overflow time.Duration (Due would wrap into the
// past) and later ones the store's INT column of days.
const MaxInterval = 36500

// Day is one interval step. Intervals are whole days, as in SM-2.
const Day = 24 * time.Hour

// State is one item's place in the schedule after its latest review.
type State struct {
	// Reps counts the passing reviews in a row (SM-2's n); 0 after a failure.
	Reps int
	// Ease is the easiness factor, at least MinEase.
	Ease float64
	// Interval is the days from the latest review to the next.
	Interval int
	// Lapses counts failed reviews, for the page.
	Lapses int
	// Due is when the item should come back.
	Due time.Time
	// Reviewed is when the latest review was; zero for a new item.
	Reviewed time.Time
}

// New is the state of an item never reviewed: due at once.
func New(at time.Time) State {
	return State{Ease: StartEase, Due: at}
}

// Rating is what a review is graded from: the candidate ticked Covered of
// Of key points, and before seeing them predicted Predicted (-1: made no
// prediction).
type Rating struct {
	Covered, Of, Predicted int
}

// Validate says what is wrong with a rating, or nil.
func (r Rating) Validate() error {
	switch {
	case r.Of < 1:
		return fmt.Errorf("review: %d key points; need at least 1", r.Of)
	case r.Covered < 0 || r.Covered > r.Of:
		return fmt.Errorf("review: %d key points covered out of %d", r.Covered, r.Of)
	case r.Predicted < -1 || r.Predicted > r.Of:
		return fmt.Errorf("review: %d key points predicted out of %d", r.Predicted, r.Of)
	}
	return nil
}

// Quality maps a self-assessment to SM-2's grade: the share of key points
// ticked, scaled to 0..5 and rounded half up. All of them is 5, none is 0;
// ticking at least half (2 of 4, 3 of 5) is a pass.
func Quality(covered, of int) int {
	if of < 1 || covered <= 0 {
		return 0
	}
	if covered >= of {
		return MaxQuality
	}
	return int(math.Floor(float64(MaxQuality*covered)/float64(of) + 0.5))
}

// Overconfidence is the share of the key points the candidate predicted
// but did not tick (0 when they predicted no more than they ticked, or made
// no prediction).
func (r Rating) Overconfidence() float64 {
	if r.Predicted <= r.Covered || r.Of < 1 {
		return 0
	}
	return float64(r.Predicted-r.Covered) / float64(r.Of)
}

// Next applies one review at time at to s, by SM-2, then shortens the
// interval of an over-confident review: an interval of I days becomes
// I*(1-g) for a gap g (Overconfidence), rounded, at least 1 day. The
// interval never exceeds MaxInterval. A
// candidate who said 4 of 4 and ticked 2 of 4 sees the item again in half
// the time SM-2 alone would give.
func Next(s State, r Rating, at time.Time) State {
	if s.Ease < MinEase {
		s.Ease = StartEase // a zero State is a new item
	}
	q := Quality(r.Covered, r.Of)
	if q >= PassQuality && !s.Reviewed.IsZero() && at.Before(s.Due) {
		return earlyPass(s, r, at)
	}
	if q >= PassQuality {
		switch s.Reps {
		case 0:
			s.Interval = 1
		case 1:
			s.Interval = 6
		default:
			// Capped before the conversion: a float past int's range
			// converts to nonsense.
			s.Interval = int(math.Min(math.Round(float64(s.Interval)*s.Ease), MaxInterval))
		}
		s.Reps++
	} else {
		s.Reps = 0
		s.Interval = 1
		s.Lapses++
	}
	d := float64(MaxQuality - q)
	s.Ease = math.Max(MinEase, s.Ease+0.1-d*(0.08+d*0.02))
	if g := r.Overconfidence(); g > 0 {
		s.Interval = max(1, int(math.Round(float64(s.Interval)*(1-g))))
	}
	// A stored interval from before the cap is brought under it too.
	s.Interval = min(s.Interval, MaxInterval)
	s.Reviewed = at
	s.Due = at.Add(time.Duration(s.Interval) * Day)
	return s
}

// earlyPass is Next for a pass before the item is due: the schedule
// stands (reps, ease, interval, due), except that an over-confident review
// may bring the due date nearer, as it would shorten a due review's
// interval.
func earlyPass(s State, r Rating, at time.Time) State {
	if g := r.Overconfidence(); g > 0 {
		iv := max(1, int(math.Round(float64(s.Interval)*(1-g))))
		if due := at.Add(time.Duration(iv) * Day); due.Before(s.Due) {
			s.Interval, s.Due = iv, due
		}
	}
	s.Reviewed = at
	return s
}

// IsDue reports whether the item should be reviewed at time at.
func (s State) IsDue(at time.Time) bool { return !s.Due.After(at) }
