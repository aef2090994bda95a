package practice

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

// TestScreenRun: the time on each step is counted by the server from one
// move to the next, the overall clock counts from the start, a read
// writes nothing, and the time stops at the screen's limit: a move after
// it finishes the run at its deadline and counts nothing after it.
func TestScreenRun(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	store := openStore(t)
	sc := NewScreens(store, clock.Now)
	const user, screen, steps = "user-1", "tech-screen", 3
	if _, err := sc.Read(ctx, user, screen, steps); !errors.Is(err, ErrNoScreenRun) {
		t.Fatalf("Read before a start: %v; want ErrNoScreenRun", err)
	}
	if _, err := sc.Move(ctx, user, screen, 2, steps); !errors.Is(err, ErrNoScreenRun) {
		t.Fatalf("Move before a start: %v; want ErrNoScreenRun", err)
	}
	if _, err := sc.Start(ctx, user, screen, 10*time.Minute, steps); err != nil {
		t.Fatal(err)
	}
	m := time.Minute
	tests := []struct {
		name         string
		after        time.Duration
		do           func() (ScreenView, error)
		wantSteps    []time.Duration
		wantUsed     time.Duration
		wantCurrent  int
		wantFinished bool
		wantUp       bool
	}{
		{"reading counts the current step", 2 * m, func() (ScreenView, error) { return sc.Read(ctx, user, screen, steps) },
			[]time.Duration{2 * m, 0, 0}, 2 * m, 1, false, false},
		{"a move settles the step it leaves", time.Minute, func() (ScreenView, error) { return sc.Move(ctx, user, screen, 2, steps) },
			[]time.Duration{3 * m, 0, 0}, 3 * m, 2, false, false},
		{"back to a step adds to it", 4 * m, func() (ScreenView, error) { return sc.Move(ctx, user, screen, 1, steps) },
			[]time.Duration{3 * m, 4 * m, 0}, 7 * m, 1, false, false},
		{"moving to the same step", m, func() (ScreenView, error) { return sc.Move(ctx, user, screen, 1, steps) },
			[]time.Duration{4 * m, 4 * m, 0}, 8 * m, 1, false, false},
		{"on to step 3", 0, func() (ScreenView, error) { return sc.Move(ctx, user, screen, 3, steps) },
			[]time.Duration{4 * m, 4 * m, 0}, 8 * m, 3, false, false},
		{"the time is up on read", 5 * m, func() (ScreenView, error) { return sc.Read(ctx, user, screen, steps) },
			[]time.Duration{4 * m, 4 * m, 2 * m}, 10 * m, 0, true, true},
		{"a move after the time is up stores the end at the deadline", 5 * m, func() (ScreenView, error) { return sc.Move(ctx, user, screen, 1, steps) },
			[]time.Duration{4 * m, 4 * m, 2 * m}, 10 * m, 0, true, true},
		{"and a finish changes nothing", m, func() (ScreenView, error) { return sc.Finish(ctx, user, screen, steps) },
			[]time.Duration{4 * m, 4 * m, 2 * m}, 10 * m, 0, true, true},
	}
	for _, tt := range tests {
		clock.Advance(tt.after)
		v, err := tt.do()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !slices.Equal(v.StepUsed, tt.wantSteps) || v.Clock.Used != tt.wantUsed || v.Current != tt.wantCurrent ||
			v.Finished != tt.wantFinished || v.Up != tt.wantUp {
			t.Fatalf("%s: steps %v, used %v, current %d, finished %v, up %v; want %v, %v, %d, %v, %v", tt.name,
				v.StepUsed, v.Clock.Used, v.Current, v.Finished, v.Up, tt.wantSteps, tt.wantUsed, tt.wantCurrent, tt.wantFinished, tt.wantUp)
		}
	}
	r, err := store.ScreenRun(ctx, user, screen)
	if err != nil || !r.EndedAt.Equal(t0.Add(10*m)) {
		t.Errorf("the stored run finished at %v (%v); want the deadline %v", r.EndedAt, err, t0.Add(10*m))
	}
	if _, err := sc.Move(ctx, user, screen, 4, steps); err == nil {
		t.Error("a move to step 4 of 3 was accepted")
	}
}

// TestScreenRunCountingUp: a screen without a length counts up and ends
// only when the candidate finishes; a second start begins again.
func TestScreenRunCountingUp(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	sc := NewScreens(openStore(t), clock.Now)
	if _, err := sc.Start(ctx, "u", "s", 0, 2); err != nil {
		t.Fatal(err)
	}
	clock.Advance(3 * time.Hour)
	if v, err := sc.Move(ctx, "u", "s", 2, 2); err != nil || v.Finished || v.Clock.Used != 3*time.Hour || v.Clock.Remaining != 0 {
		t.Fatalf("after three hours: %+v, %v; want still going, counting up", v, err)
	}
	clock.Advance(time.Minute)
	v, err := sc.Finish(ctx, "u", "s", 2)
	if err != nil || !v.Finished || v.Up || !slices.Equal(v.StepUsed, []time.Duration{3 * time.Hour, time.Minute}) {
		t.Fatalf("Finish = %+v, %v", v, err)
	}
	clock.Advance(time.Hour)
	if v, _ := sc.Read(ctx, "u", "s", 2); v.Clock.Used != 3*time.Hour+time.Minute {
		t.Errorf("an hour after the finish the clock shows %v used; want it stopped at the finish", v.Clock.Used)
	}
	v, err = sc.Start(ctx, "u", "s", 0, 2)
	if err != nil || v.Finished || v.Current != 1 || v.StepUsed[0] != 0 || v.StepUsed[1] != 0 {
		t.Fatalf("starting again = %+v, %v; want a fresh run", v, err)
	}
}
