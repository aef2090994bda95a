package practice

import (
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/storage"
	"github.com/faultline-dev/faultline/internal/timer"
)

// TestClockAt: the one rule every practice clock is read by. It counts
// from its start, down from its limit or up without one, stops at its end
// or its limit, whichever is first, and a deadline exists only for a
// clock that counts down.
func TestClockAt(t *testing.T) {
	m := time.Minute
	tests := []struct {
		name         string
		clock        storage.Clock
		at           time.Time
		want         timer.ClockState
		wantDeadline time.Time
	}{
		{"counting down", storage.Clock{Limit: 10 * m, StartedAt: t0}, t0.Add(4 * m),
			timer.ClockState{Phase: timer.ClockRunning, Used: 4 * m, Remaining: 6 * m}, t0.Add(10 * m)},
		{"its limit used", storage.Clock{Limit: 10 * m, StartedAt: t0}, t0.Add(time.Hour),
			timer.ClockState{Phase: timer.ClockUp, Used: 10 * m}, t0.Add(10 * m)},
		{"ended before its limit", storage.Clock{Limit: 10 * m, StartedAt: t0, EndedAt: t0.Add(3 * m)}, t0.Add(time.Hour),
			timer.ClockState{Phase: timer.ClockRunning, Used: 3 * m, Remaining: 7 * m}, t0.Add(10 * m)},
		{"ended after its limit", storage.Clock{Limit: 10 * m, StartedAt: t0, EndedAt: t0.Add(12 * m)}, t0.Add(time.Hour),
			timer.ClockState{Phase: timer.ClockUp, Used: 10 * m}, t0.Add(10 * m)},
		{"read before its end", storage.Clock{Limit: 10 * m, StartedAt: t0, EndedAt: t0.Add(8 * m)}, t0.Add(2 * m),
			timer.ClockState{Phase: timer.ClockRunning, Used: 2 * m, Remaining: 8 * m}, t0.Add(10 * m)},
		{"counting up", storage.Clock{StartedAt: t0}, t0.Add(time.Hour),
			timer.ClockState{Phase: timer.ClockRunning, Used: time.Hour}, time.Time{}},
		{"counting up, ended", storage.Clock{StartedAt: t0, EndedAt: t0.Add(25 * m)}, t0.Add(time.Hour),
			timer.ClockState{Phase: timer.ClockRunning, Used: 25 * m}, time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ClockAt(tt.clock, tt.at); got != tt.want {
				t.Errorf("ClockAt = %+v; want %+v", got, tt.want)
			}
			if got := Deadline(tt.clock); !got.Equal(tt.wantDeadline) {
				t.Errorf("Deadline = %v; want %v", got, tt.wantDeadline)
			}
		})
	}
}
