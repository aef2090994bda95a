package timer

import (
	"errors"
	"testing"
	"time"
)

// TestClock drives a clock through an interviewer's controls, one step at
// a time on a fake clock, checking the state after each.
func TestClock(t *testing.T) {
	t0 := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	type step struct {
		at        time.Duration // from t0
		op        string        // start, pause, resume, extend, or "" to only look
		by        time.Duration // for extend
		wantErr   error
		wantPhase ClockPhase
		wantUsed  time.Duration
		wantLeft  time.Duration
	}
	tests := []struct {
		name  string
		limit time.Duration
		steps []step
	}{
		{"counts down and stops at the limit", 10 * time.Minute, []step{
			{0, "", 0, nil, ClockIdle, 0, 10 * time.Minute},
			{time.Minute, "start", 0, nil, ClockRunning, 0, 10 * time.Minute},
			{4 * time.Minute, "", 0, nil, ClockRunning, 3 * time.Minute, 7 * time.Minute},
			{11 * time.Minute, "", 0, nil, ClockUp, 10 * time.Minute, 0},
			{time.Hour, "", 0, nil, ClockUp, 10 * time.Minute, 0},
		}},
		{"a second start changes nothing", 10 * time.Minute, []step{
			{0, "start", 0, nil, ClockRunning, 0, 10 * time.Minute},
			{2 * time.Minute, "start", 0, nil, ClockRunning, 2 * time.Minute, 8 * time.Minute},
		}},
		{"pause holds the time, resume counts on", 10 * time.Minute, []step{
			{0, "start", 0, nil, ClockRunning, 0, 10 * time.Minute},
			{3 * time.Minute, "pause", 0, nil, ClockPaused, 3 * time.Minute, 7 * time.Minute},
			{4 * time.Minute, "pause", 0, nil, ClockPaused, 3 * time.Minute, 7 * time.Minute},
			{20 * time.Minute, "", 0, nil, ClockPaused, 3 * time.Minute, 7 * time.Minute},
			{20 * time.Minute, "resume", 0, nil, ClockRunning, 3 * time.Minute, 7 * time.Minute},
			{21 * time.Minute, "resume", 0, nil, ClockRunning, 4 * time.Minute, 6 * time.Minute},
			{26 * time.Minute, "", 0, nil, ClockRunning, 9 * time.Minute, time.Minute},
			{28 * time.Minute, "", 0, nil, ClockUp, 10 * time.Minute, 0},
		}},
		{"an extension of a running clock", 10 * time.Minute, []step{
			{0, "start", 0, nil, ClockRunning, 0, 10 * time.Minute},
			{6 * time.Minute, "extend", 5 * time.Minute, nil, ClockRunning, 6 * time.Minute, 9 * time.Minute},
			{15 * time.Minute, "", 0, nil, ClockUp, 15 * time.Minute, 0},
		}},
		{"an extension after the time is up gives exactly what it names", 10 * time.Minute, []step{
			{0, "start", 0, nil, ClockRunning, 0, 10 * time.Minute},
			{25 * time.Minute, "extend", 2 * time.Minute, nil, ClockRunning, 10 * time.Minute, 2 * time.Minute},
			{26 * time.Minute, "", 0, nil, ClockRunning, 11 * time.Minute, time.Minute},
			{40 * time.Minute, "", 0, nil, ClockUp, 12 * time.Minute, 0},
		}},
		{"an extension of a paused clock", 10 * time.Minute, []step{
			{0, "start", 0, nil, ClockRunning, 0, 10 * time.Minute},
			{10 * time.Minute, "pause", 0, nil, ClockUp, 10 * time.Minute, 0},
			{12 * time.Minute, "extend", time.Minute, nil, ClockPaused, 10 * time.Minute, time.Minute},
			{13 * time.Minute, "resume", 0, nil, ClockRunning, 10 * time.Minute, time.Minute},
			{14 * time.Minute, "", 0, nil, ClockUp, 11 * time.Minute, 0},
		}},
		{"counting up never runs out until extended", 0, []step{
			{0, "start", 0, nil, ClockRunning, 0, 0},
			{3 * time.Hour, "", 0, nil, ClockRunning, 3 * time.Hour, 0},
			{3 * time.Hour, "extend", 5 * time.Minute, nil, ClockRunning, 3 * time.Hour, 5 * time.Minute},
			{4 * time.Hour, "", 0, nil, ClockUp, 3*time.Hour + 5*time.Minute, 0},
		}},
		{"controls before the start are refused", 10 * time.Minute, []step{
			{0, "pause", 0, ErrClockNotStarted, ClockIdle, 0, 10 * time.Minute},
			{0, "resume", 0, ErrClockNotStarted, ClockIdle, 0, 10 * time.Minute},
			{0, "extend", 0, ErrBadExtension, ClockIdle, 0, 10 * time.Minute},
			{0, "extend", -time.Minute, ErrBadExtension, ClockIdle, 0, 10 * time.Minute},
			{0, "extend", time.Minute, nil, ClockIdle, 0, 11 * time.Minute},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Clock{Limit: tt.limit}
			for i, st := range tt.steps {
				now := t0.Add(st.at)
				var err error
				switch st.op {
				case "start":
					c = c.Start(now)
				case "pause":
					c, err = c.Pause(now)
				case "resume":
					c, err = c.Resume(now)
				case "extend":
					c, err = c.Extend(now, st.by)
				}
				if !errors.Is(err, st.wantErr) {
					t.Fatalf("step %d (%s at %v): error %v; want %v", i, st.op, st.at, err, st.wantErr)
				}
				got := c.State(now)
				if got != (ClockState{Phase: st.wantPhase, Used: st.wantUsed, Remaining: st.wantLeft}) {
					t.Fatalf("step %d (%s at %v): %+v; want %s, %v used, %v left", i, st.op, st.at, got, st.wantPhase, st.wantUsed, st.wantLeft)
				}
			}
		})
	}
}

// TestClockDeadline: a running clock with a limit says when it runs out;
// paused or counting up it has none.
func TestClockDeadline(t *testing.T) {
	t0 := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	c := Clock{Limit: 10 * time.Minute}.Start(t0)
	if got := c.Deadline(); !got.Equal(t0.Add(10 * time.Minute)) {
		t.Errorf("running: deadline %v; want %v", got, t0.Add(10*time.Minute))
	}
	c, _ = c.Pause(t0.Add(4 * time.Minute))
	if got := c.Deadline(); !got.IsZero() {
		t.Errorf("paused: deadline %v; want none", got)
	}
	c, _ = c.Resume(t0.Add(time.Hour))
	if got := c.Deadline(); !got.Equal(t0.Add(time.Hour + 6*time.Minute)) {
		t.Errorf("resumed: deadline %v; want %v", got, t0.Add(time.Hour+6*time.Minute))
	}
	if got := (Clock{}).Start(t0).Deadline(); !got.IsZero() {
		t.Errorf("counting up: deadline %v; want none", got)
	}
}
