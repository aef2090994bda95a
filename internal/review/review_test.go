package review

import (
	"math"
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)

func TestQuality(t *testing.T) {
	tests := []struct{ covered, of, want int }{
		{0, 4, 0}, {1, 4, 1}, {2, 4, 3}, {3, 4, 4}, {4, 4, 5},
		{1, 5, 1}, {2, 5, 2}, {3, 5, 3}, {5, 5, 5},
		{1, 1, 5}, {0, 1, 0}, {1, 2, 3}, {9, 4, 5}, {-1, 4, 0}, {1, 0, 0},
	}
	for _, tt := range tests {
		if got := Quality(tt.covered, tt.of); got != tt.want {
			t.Errorf("Quality(%d, %d) = %d; want %d", tt.covered, tt.of, got, tt.want)
		}
	}
}

// TestIntervalsGrowWithGoodRatings follows SM-2's published sequence: 1
// day, 6 days, then 6*EF, ... with EF rising by 0.1 on each perfect grade.
func TestIntervalsGrowWithGoodRatings(t *testing.T) {
	s := New(t0)
	if !s.IsDue(t0) {
		t.Fatal("a new item is not due at once")
	}
	at := t0
	var got []int
	for range 5 {
		s = Next(s, Rating{Covered: 4, Of: 4, Predicted: -1}, at)
		got = append(got, s.Interval)
		if !s.Due.Equal(at.Add(time.Duration(s.Interval) * Day)) {
			t.Fatalf("due %v; want %d days after %v", s.Due, s.Interval, at)
		}
		if s.IsDue(at) || !s.IsDue(s.Due) {
			t.Fatalf("after a review at %v, due %v: IsDue wrong", at, s.Due)
		}
		at = s.Due
	}
	// EF: 2.6 after the first, 2.7, 2.8, 2.9: intervals 1, 6, round(6*2.7)=16,
	// round(16*2.8)=45, round(45*2.9)=131.
	want := []int{1, 6, 16, 45, 131}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("intervals = %v; want %v", got, want)
		}
	}
	if math.Abs(s.Ease-3.0) > 1e-9 || s.Reps != 5 || s.Lapses != 0 {
		t.Fatalf("state = %+v; want ease 3.0, 5 reps, no lapses", s)
	}
}

// TestIntervalIsCapped: a long run of perfect ratings, each at the due
// time, keeps the interval at MaxInterval, so Due stays after
// the review (a time.Duration of 2^63 ns is under 300 years) and fits the
// store's INT column.
func TestIntervalIsCapped(t *testing.T) {
	tests := []struct {
		name       string
		reviews    int
		atDue      bool // each review at the item's due time, else all at t0
		wantCapped bool
	}{
		{"30 at once", 30, false, false}, // early passes leave the schedule
		{"30 when due", 30, true, true},
		{"100 when due", 100, true, true},
		{"5 when due", 5, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, at := New(t0), t0
			for i := range tt.reviews {
				s = Next(s, Rating{Covered: 4, Of: 4, Predicted: -1}, at)
				if !s.Due.After(at) {
					t.Fatalf("review %d at %v: due %v, not after it (interval %d)", i+1, at, s.Due, s.Interval)
				}
				if s.Interval < 1 || s.Interval > MaxInterval {
					t.Fatalf("review %d: interval %d; want 1..%d", i+1, s.Interval, MaxInterval)
				}
				if tt.atDue {
					at = s.Due
				}
			}
			if got := s.Interval == MaxInterval; got != tt.wantCapped {
				t.Errorf("interval %d after %d reviews; capped = %v, want %v", s.Interval, tt.reviews, got, tt.wantCapped)
			}
			if tt.wantCapped && !s.Due.Equal(s.Reviewed.Add(MaxInterval*Day)) {
				t.Errorf("due %v; want %d days after %v", s.Due, MaxInterval, s.Reviewed)
			}
		})
	}
}

func TestPoorRatingResets(t *testing.T) {
	s, at := New(t0), t0
	for range 3 {
		s = Next(s, Rating{Covered: 3, Of: 3, Predicted: -1}, at)
		at = s.Due
	}
	if s.Interval <= 6 {
		t.Fatalf("after three good reviews interval %d; want more than 6 days", s.Interval)
	}
	ease := s.Ease
	s = Next(s, Rating{Covered: 1, Of: 3, Predicted: -1}, at)
	if s.Interval != 1 || s.Reps != 0 || s.Lapses != 1 || !s.Due.Equal(at.Add(Day)) {
		t.Fatalf("after a poor review = %+v; want 1 day, reps reset, one lapse", s)
	}
	if s.Ease >= ease {
		t.Fatalf("ease %v after a poor review; want below %v", s.Ease, ease)
	}
	// It climbs again from the start: 1 day, then 6.
	s = Next(s, Rating{Covered: 3, Of: 3, Predicted: -1}, s.Due)
	if s.Interval != 1 {
		t.Fatalf("first pass after a lapse: %d days; want 1", s.Interval)
	}
	s = Next(s, Rating{Covered: 3, Of: 3, Predicted: -1}, s.Due)
	if s.Interval != 6 {
		t.Fatalf("second pass after a lapse: %d days; want 6", s.Interval)
	}
}

func TestEaseHasAFloor(t *testing.T) {
	s := New(t0)
	for range 20 {
		s = Next(s, Rating{Covered: 0, Of: 4, Predicted: -1}, t0)
	}
	if s.Ease != MinEase || s.Interval != 1 || s.Lapses != 20 {
		t.Fatalf("after 20 failures = %+v; want ease %v, 1 day", s, MinEase)
	}
}

func TestOverconfidentComesBackSooner(t *testing.T) {
	grown, t1 := New(t0), t0
	for range 3 {
		grown = Next(grown, Rating{Covered: 4, Of: 4, Predicted: -1}, t1)
		t1 = grown.Due
	}
	tests := []struct {
		name      string
		r         Rating
		want      int
		wantSmall bool // shorter than the calibrated review
	}{
		{"calibrated", Rating{Covered: 3, Of: 4, Predicted: 3}, 0, false},
		{"no prediction", Rating{Covered: 3, Of: 4, Predicted: -1}, 0, false},
		{"under-confident", Rating{Covered: 3, Of: 4, Predicted: 1}, 0, false},
		{"over by one", Rating{Covered: 3, Of: 4, Predicted: 4}, 0, true},
	}
	calibrated := Next(grown, Rating{Covered: 3, Of: 4, Predicted: 3}, t1)
	for _, tt := range tests {
		got := Next(grown, tt.r, t1)
		if tt.wantSmall != (got.Interval < calibrated.Interval) || !tt.wantSmall && got.Interval != calibrated.Interval {
			t.Errorf("%s: interval %d; calibrated %d", tt.name, got.Interval, calibrated.Interval)
		}
		if got.Ease != calibrated.Ease || got.Reps != calibrated.Reps {
			t.Errorf("%s: ease %v reps %d; the gap shortens the interval only", tt.name, got.Ease, got.Reps)
		}
	}
	// Predicted 4 of 4, ticked 2: half the interval SM-2 gives for 2 of 4.
	plain := Next(grown, Rating{Covered: 2, Of: 4, Predicted: 2}, t1)
	over := Next(grown, Rating{Covered: 2, Of: 4, Predicted: 4}, t1)
	if want := int(math.Round(float64(plain.Interval) / 2)); over.Interval != want {
		t.Fatalf("over-confident by half: %d days; want %d (half of %d)", over.Interval, want, plain.Interval)
	}
	// Never below a day.
	if got := Next(New(t0), Rating{Covered: 2, Of: 4, Predicted: 4}, t0); got.Interval != 1 {
		t.Fatalf("interval %d; want at least 1 day", got.Interval)
	}
}

// TestEarlyPassKeepsTheSchedule: answering an item again before it is due
// and ticking every key point does not push it further away (SM-2 would
// multiply the interval each time); a failure resets it whenever it comes;
// an over-confident early pass may bring it nearer, never further.
func TestEarlyPassKeepsTheSchedule(t *testing.T) {
	perfect := Rating{Covered: 4, Of: 4, Predicted: -1}
	first := Next(New(t0), perfect, t0) // the first rating, at the answer
	if first.Interval != 1 || first.Reps != 1 {
		t.Fatalf("first rating = %+v; want 1 day, 1 rep", first)
	}
	grown := Next(first, perfect, first.Due) // due: 6 days
	tests := []struct {
		name         string
		s            State
		r            Rating
		at           time.Time
		wantInterval int
		wantDue      time.Time
		wantReps     int
	}{
		{"again a minute later", first, perfect, t0.Add(time.Minute), 1, first.Due, 1},
		{"four times in a sitting", Next(Next(Next(first, perfect, t0.Add(time.Minute)), perfect, t0.Add(2*time.Minute)), perfect, t0.Add(3*time.Minute)), perfect, t0.Add(4 * time.Minute), 1, first.Due, 1},
		{"a day before due", grown, perfect, grown.Due.Add(-Day), 6, grown.Due, 2},
		{"when due", grown, perfect, grown.Due, 16, grown.Due.Add(16 * Day), 3},
		{"early failure", grown, Rating{Covered: 0, Of: 4, Predicted: -1}, grown.Due.Add(-Day), 1, grown.Due, 0},
		{"early and over-confident", grown, Rating{Covered: 2, Of: 4, Predicted: 4}, first.Due, 3, first.Due.Add(3 * Day), 2},
		{"early, over-confident, due sooner already", grown, Rating{Covered: 3, Of: 4, Predicted: 4}, grown.Due.Add(-Day), 6, grown.Due, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Next(tt.s, tt.r, tt.at)
			if tt.name == "early failure" {
				tt.wantDue = tt.at.Add(Day)
			}
			if got.Interval != tt.wantInterval || !got.Due.Equal(tt.wantDue) || got.Reps != tt.wantReps {
				t.Errorf("= interval %d, due %v, reps %d; want %d, %v, %d", got.Interval, got.Due, got.Reps, tt.wantInterval, tt.wantDue, tt.wantReps)
			}
			if !got.Reviewed.Equal(tt.at) {
				t.Errorf("reviewed %v; want %v", got.Reviewed, tt.at)
			}
		})
	}
}

func TestRatingValidate(t *testing.T) {
	for _, r := range []Rating{{0, 0, -1}, {5, 4, -1}, {-1, 4, -1}, {1, 4, 5}, {1, 4, -2}} {
		if r.Validate() == nil {
			t.Errorf("%+v passes; want an error", r)
		}
	}
	for _, r := range []Rating{{0, 1, -1}, {4, 4, 0}, {2, 4, 4}} {
		if err := r.Validate(); err != nil {
			t.Errorf("%+v: %v", r, err)
		}
	}
}
