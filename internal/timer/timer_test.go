package timer

import (
	"testing"
	"time"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time          { return c.now }
func (c *fakeClock) Advance(d time.Duration) { c.now = c.now.Add(d) }

func newClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)}
}

func TestParseMode(t *testing.T) {
	tests := []struct {
		in      string
		want    Mode
		wantErr bool
	}{
		{"", Timed, false},
		{"timed", Timed, false},
		{"untimed", Untimed, false},
		{"Timed", "", true},
		{"forever", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseMode(tt.in)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Fatalf("ParseMode(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestNoStartOnLoad(t *testing.T) {
	clock := newClock()
	s := Session{Mode: Timed, Limit: 2 * time.Minute} // what a page load knows
	clock.Advance(10 * time.Minute)                   // the page sits open, nobody types
	st := s.State(clock.Now())
	if s.Started() || st.Phase != Idle || st.Remaining != 2*time.Minute || st.Expired || st.Locked {
		t.Fatalf("unstarted session after 10 minutes: started %v, state %+v; want idle with the full limit", s.Started(), st)
	}
	if !s.Deadline().IsZero() {
		t.Errorf("Deadline of an unstarted session = %v; want zero", s.Deadline())
	}
	if s.Classify(clock.Now()) != OnTime {
		t.Error("a save before the start was classified late")
	}
}

func TestStartIsIdempotent(t *testing.T) {
	clock := newClock()
	first := clock.Now()
	s := Session{Mode: Timed, Limit: 2 * time.Minute}.Start(first)
	clock.Advance(40 * time.Second)
	again := s.Start(clock.Now())
	if !again.StartedAt.Equal(first) {
		t.Fatalf("second Start moved the start to %v; want %v", again.StartedAt, first)
	}
	if got := again.State(clock.Now()).Remaining; got != 80*time.Second {
		t.Errorf("remaining after a repeated start = %v; want 1m20s", got)
	}
}

func TestStateAndClassify(t *testing.T) {
	limit := 2 * time.Minute
	tests := []struct {
		name          string
		mode          Mode
		elapsed       time.Duration // since the start
		wantPhase     Phase
		wantRemaining time.Duration
		wantLocked    bool
		wantTiming    Timing
	}{
		{"just started", Timed, 0, Running, 2 * time.Minute, false, OnTime},
		{"reload after 45s", Timed, 45 * time.Second, Running, 75 * time.Second, false, OnTime},
		{"one millisecond before the limit", Timed, limit - time.Millisecond, Running, time.Millisecond, false, OnTime},
		{"exactly at the limit", Timed, limit, Locked, 0, true, OnTime},
		{"within the grace", Timed, limit + 3*time.Second, Locked, 0, true, OnTime},
		{"at the end of the grace", Timed, limit + Grace, Locked, 0, true, OnTime},
		{"after the grace", Timed, limit + Grace + time.Millisecond, Locked, 0, true, Late},
		{"an hour later", Timed, time.Hour, Locked, 0, true, Late},
		{"untimed, an hour later", Untimed, time.Hour, Running, 0, false, OnTime},
		{"untimed, a day later", Untimed, 24 * time.Hour, Running, 0, false, OnTime},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newClock()
			s := Session{Mode: tt.mode, Limit: limit}.Start(clock.Now())
			clock.Advance(tt.elapsed)
			st := s.State(clock.Now())
			if st.Phase != tt.wantPhase || st.Remaining != tt.wantRemaining || st.Locked != tt.wantLocked || st.Expired != tt.wantLocked {
				t.Errorf("State = %+v; want phase %s, remaining %v, locked %v", st, tt.wantPhase, tt.wantRemaining, tt.wantLocked)
			}
			if got := s.Classify(clock.Now()); got != tt.wantTiming {
				t.Errorf("Classify = %s; want %s", got, tt.wantTiming)
			}
			if got := s.Overdue(clock.Now()); got != (tt.wantTiming == Late) {
				t.Errorf("Overdue = %v; want %v", got, tt.wantTiming == Late)
			}
		})
	}
}

func TestSubmit(t *testing.T) {
	limit := 2 * time.Minute
	tests := []struct {
		name    string
		mode    Mode
		elapsed time.Duration
		want    Ending
	}{
		{"early", Timed, 47 * time.Second, Ending{HowEnded: Submitted, TimeUsed: 47 * time.Second}},
		{"a moment before the limit", Timed, limit - time.Millisecond, Ending{HowEnded: Submitted, TimeUsed: limit - time.Millisecond}},
		{"at the limit (the box's own submit)", Timed, limit, Ending{HowEnded: Expired, TimeUsed: limit}},
		{"within the grace", Timed, limit + 2*time.Second, Ending{HowEnded: Expired, TimeUsed: limit}},
		{"after the grace", Timed, limit + Grace + time.Second, Ending{HowEnded: Expired, TimeUsed: limit, Late: true}},
		{"untimed, long after the limit", Untimed, 9 * time.Minute, Ending{HowEnded: Submitted, TimeUsed: 9 * time.Minute}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newClock()
			s := Session{Mode: tt.mode, Limit: limit}.Start(clock.Now())
			clock.Advance(tt.elapsed)
			if got := s.Submit(clock.Now()); got != tt.want {
				t.Fatalf("Submit = %+v; want %+v", got, tt.want)
			}
		})
	}
	t.Run("clock behind the start", func(t *testing.T) {
		clock := newClock()
		s := Session{Mode: Timed, Limit: limit}.Start(clock.Now())
		clock.Advance(-time.Second) // another server's clock, slightly behind
		if got := s.Submit(clock.Now()); got.TimeUsed != 0 || got.HowEnded != Submitted {
			t.Fatalf("Submit before the start = %+v; want no time used", got)
		}
	})
}

func TestExpire(t *testing.T) {
	s := Session{Mode: Timed, Limit: 90 * time.Second}.Start(newClock().Now())
	if got := s.Expire(); got != (Ending{HowEnded: Expired, TimeUsed: 90 * time.Second}) {
		t.Fatalf("Expire = %+v", got)
	}
}

func TestWordCount(t *testing.T) {
	tests := []struct {
		text string
		want int
	}{
		{"", 0},
		{"   \n\t ", 0},
		{"one", 1},
		{"Retry with the same key.", 5},
		{"line one\nline  two\n\n- a bullet", 6},
		{"naïve café déjà-vu", 3},
		{"A -- B", 2},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			if got := WordCount(tt.text); got != tt.want {
				t.Fatalf("WordCount(%q) = %d; want %d", tt.text, got, tt.want)
			}
		})
	}
}
