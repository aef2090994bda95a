package practice

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/timer"
)

// TestClocksAsAnInterviewerDrivesThem: set up, start, pause, resume and
// extend a room's clock on a fake clock; each control's view is the
// clock at the moment it was pressed, and a read agrees with it.
func TestClocksAsAnInterviewerDrivesThem(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	cs := NewClocks(NewMemoryClocks(), clock.Now)
	const room = "room-1"
	steps := []struct {
		after     time.Duration // since the step before
		do        func() (ClockView, error)
		wantErr   error
		wantPhase timer.ClockPhase
		wantUsed  time.Duration
		wantLeft  time.Duration
	}{
		{0, func() (ClockView, error) { return cs.Start(ctx, room) }, ErrNoClock, "", 0, 0},
		{0, func() (ClockView, error) { return cs.Setup(ctx, room, 30*time.Minute) }, nil, timer.ClockIdle, 0, 30 * time.Minute},
		{time.Minute, func() (ClockView, error) { return cs.Pause(ctx, room) }, timer.ErrClockNotStarted, "", 0, 0},
		{0, func() (ClockView, error) { return cs.Start(ctx, room) }, nil, timer.ClockRunning, 0, 30 * time.Minute},
		{10 * time.Minute, func() (ClockView, error) { return cs.Pause(ctx, room) }, nil, timer.ClockPaused, 10 * time.Minute, 20 * time.Minute},
		{5 * time.Minute, func() (ClockView, error) { return cs.Read(ctx, room) }, nil, timer.ClockPaused, 10 * time.Minute, 20 * time.Minute},
		{0, func() (ClockView, error) { return cs.Setup(ctx, room, time.Hour) }, nil, timer.ClockPaused, 10 * time.Minute, 20 * time.Minute},
		{0, func() (ClockView, error) { return cs.Resume(ctx, room) }, nil, timer.ClockRunning, 10 * time.Minute, 20 * time.Minute},
		{25 * time.Minute, func() (ClockView, error) { return cs.Read(ctx, room) }, nil, timer.ClockUp, 30 * time.Minute, 0},
		{0, func() (ClockView, error) { return cs.Extend(ctx, room, 0) }, timer.ErrBadExtension, "", 0, 0},
		{0, func() (ClockView, error) { return cs.Extend(ctx, room, 5*time.Minute) }, nil, timer.ClockRunning, 30 * time.Minute, 5 * time.Minute},
		{2 * time.Minute, func() (ClockView, error) { return cs.Read(ctx, room) }, nil, timer.ClockRunning, 32 * time.Minute, 3 * time.Minute},
	}
	for i, st := range steps {
		clock.Advance(st.after)
		v, err := st.do()
		if !errors.Is(err, st.wantErr) {
			t.Fatalf("step %d: error %v; want %v", i, err, st.wantErr)
		}
		if err != nil {
			continue
		}
		want := timer.ClockState{Phase: st.wantPhase, Used: st.wantUsed, Remaining: st.wantLeft}
		if v.State != want || !v.At.Equal(clock.Now()) {
			t.Fatalf("step %d: %+v at %v; want %+v at %v", i, v.State, v.At, want, clock.Now())
		}
	}
	if _, err := cs.Read(ctx, "another room"); !errors.Is(err, ErrNoClock) {
		t.Errorf("reading a clock never set up: %v; want ErrNoClock", err)
	}
}

// TestClocksControlsAtOnce: extensions pressed at the same moment from
// many requests all count.
func TestClocksControlsAtOnce(t *testing.T) {
	ctx := context.Background()
	cs := NewClocks(NewMemoryClocks(), newFakeClock().Now)
	if _, err := cs.Setup(ctx, "r", time.Minute); err != nil {
		t.Fatal(err)
	}
	const n = 20
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := cs.Extend(ctx, "r", time.Minute); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	v, err := cs.Read(ctx, "r")
	if err != nil || v.Clock.Limit != (n+1)*time.Minute {
		t.Errorf("after %d extensions at once the limit is %v (%v); want %v", n, v.Clock.Limit, err, (n+1)*time.Minute)
	}
}
