package practice

import (
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/storage"
)

// TestRun: the run's clock counts from its start, stops at the last answer
// once every item is done, ignores what was done before the start, and
// stops at the limit.
func TestRun(t *testing.T) {
	rc := storage.RunClock{Clock: storage.Clock{Limit: 4 * time.Minute, StartedAt: t0}}
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	before := t0.Add(-time.Hour)
	tests := []struct {
		name      string
		items     []RunItem
		now       time.Duration
		wantUsed  time.Duration
		wantDone  bool
		wantUp    bool
		wantBound bool
	}{
		{"nothing done yet", []RunItem{{}, {}}, time.Minute, time.Minute, false, false, true},
		{"one answered", []RunItem{{AnsweredAt: at(30 * time.Second)}, {}}, time.Minute, time.Minute, false, false, true},
		{"all answered: stopped at the last", []RunItem{{AnsweredAt: at(30 * time.Second)}, {AnsweredAt: at(50 * time.Second)}}, time.Hour, 50 * time.Second, true, false, false},
		{"revealed unanswered counts as done", []RunItem{{AnsweredAt: at(30 * time.Second)}, {RevealedAt: at(40 * time.Second)}}, time.Hour, 30 * time.Second, true, false, false},
		{"answered before the start does not count", []RunItem{{AnsweredAt: before}, {AnsweredAt: at(10 * time.Second)}}, 2 * time.Minute, 2 * time.Minute, false, false, true},
		{"revealed before the start does not count", []RunItem{{RevealedAt: before}, {AnsweredAt: at(10 * time.Second)}}, 2 * time.Minute, 2 * time.Minute, false, false, true},
		{"the time is up", []RunItem{{}, {}}, 5 * time.Minute, 4 * time.Minute, false, true, true},
		{"answered after the time counts the limit", []RunItem{{AnsweredAt: at(time.Minute)}, {AnsweredAt: at(6 * time.Minute)}}, time.Hour, 4 * time.Minute, true, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Run(rc, tt.items, at(tt.now))
			if got.Used != tt.wantUsed || got.Done != tt.wantDone || got.Up != tt.wantUp || !got.Deadline.Equal(at(4*time.Minute)) || got.Bound().IsZero() == tt.wantBound {
				t.Errorf("Run = %+v (bound %v); want %v used, done %v, up %v, a bound %v", got, got.Bound(), tt.wantUsed, tt.wantDone, tt.wantUp, tt.wantBound)
			}
		})
	}
}
